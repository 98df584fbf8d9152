// Parameters of the elementwise shaders: copy, unary, binary and select
// (shaders/elementwise_main.glsl runs them; backend/vulkan/elementwise.cpp
// dispatches them). Bindings: 0 the shape block, then the inputs, then the
// output.
#ifndef MLX_PARAMS_ELEMENTWISE_H
#define MLX_PARAMS_ELEMENTWISE_H

#include "shape_block.h"

#ifdef __cplusplus
#include "mlx_lite/primitives/binary.h"
#include "mlx_lite/primitives/unary.h"
#endif

MLX_PARAMS_BEGIN

MLX_CONSTANT(int32_t, kMaxElementwiseOperands, 3)

struct ElementwiseParams {
  int64_t n;  // elements, in row-major order of the output
  // Operand k's first element in its binding. For copy's kCopyStridedOut,
  // operand 1 is the destination, a strided view of the output.
  int64_t offset[kMaxElementwiseOperands];
  // The operands' shape and strides (read on the strided path only).
  ShapeRef dims;
};
MLX_PUSH_CONSTANTS(ElementwiseParams)

// OP: a UnaryOp, a BinaryOp, or for copy where element i goes.
// CONTIGUOUS: every operand is dense row-major, so element i of operand k
// is at offset[k] + i. ELEMENTS_PER_THREAD: see elementwise_main.glsl.
// RUNS_OF_4: every operand 4 bytes an element, n a multiple of 4, and each
// input either a splat (below) or read in aligned runs of 4 (its location
// of element 4t a multiple of 4, which holds where it is dense with an
// offset a multiple of 4, or on the strided path where the innermost dim
// is a multiple of 4 long, the input unit-strided along it, and its offset
// and other strides multiples of 4): thread t takes output elements 4t to
// 4t + 3 as one 16-byte vector of each operand (the shaders that define
// run_of_4(); the others take them one by one). SPLATS (RUNS_OF_4, or
// CONTIGUOUS): bit k set says operand k holds one element for each run of
// 4, read once at its location: on the dense path one element broadcast to
// every position (a scalar operand, or what full() copies), on the strided
// path an operand whose innermost stride is 0 (a (rows, 1) operand of a
// (rows, 64) op). A splat's location need not be a multiple of 4.
#define MLX_ELEMENTWISE_SPEC(X, S)      \
  X(S, 1, uint, OP, 0)                  \
  X(S, 2, bool, CONTIGUOUS, false)      \
  X(S, 3, uint, ELEMENTS_PER_THREAD, 1) \
  X(S, 4, bool, RUNS_OF_4, false)       \
  X(S, 5, uint, SPLATS, 0)
MLX_SPEC_CONSTANTS(ElementwiseSpec, MLX_ELEMENTWISE_SPEC)

// copy's OP: a new row-major output (the shape block describes the source
// only), or a strided view of the output (operand 1), which is how
// concatenate, pad and slice_update write their parts.
MLX_CONSTANT(uint32_t, kCopyDense, 0)
MLX_CONSTANT(uint32_t, kCopyStridedOut, 1)

MLX_ENUM_VALUE(UnaryOp, Abs, 0)
MLX_ENUM_VALUE(UnaryOp, Negative, 1)
MLX_ENUM_VALUE(UnaryOp, Floor, 2)
MLX_ENUM_VALUE(UnaryOp, Ceil, 3)
MLX_ENUM_VALUE(UnaryOp, Round, 4)
MLX_ENUM_VALUE(UnaryOp, Exp, 5)
MLX_ENUM_VALUE(UnaryOp, Log, 6)
MLX_ENUM_VALUE(UnaryOp, Log1p, 7)
MLX_ENUM_VALUE(UnaryOp, Sqrt, 8)
MLX_ENUM_VALUE(UnaryOp, Rsqrt, 9)
MLX_ENUM_VALUE(UnaryOp, Square, 10)
MLX_ENUM_VALUE(UnaryOp, Sin, 11)
MLX_ENUM_VALUE(UnaryOp, Cos, 12)
MLX_ENUM_VALUE(UnaryOp, Tanh, 13)
MLX_ENUM_VALUE(UnaryOp, Sigmoid, 14)
MLX_ENUM_VALUE(UnaryOp, Erf, 15)
MLX_ENUM_VALUE(UnaryOp, ErfInv, 16)
MLX_ENUM_VALUE(UnaryOp, LogicalNot, 17)
MLX_ENUM_VALUE(UnaryOp, Sign, 18)
MLX_ENUM_VALUE(UnaryOp, Tan, 19)
MLX_ENUM_VALUE(UnaryOp, ArcSin, 20)
MLX_ENUM_VALUE(UnaryOp, ArcCos, 21)
MLX_ENUM_VALUE(UnaryOp, ArcTan, 22)
MLX_ENUM_VALUE(UnaryOp, Sinh, 23)
MLX_ENUM_VALUE(UnaryOp, Cosh, 24)
MLX_ENUM_VALUE(UnaryOp, ArcSinh, 25)
MLX_ENUM_VALUE(UnaryOp, ArcCosh, 26)
MLX_ENUM_VALUE(UnaryOp, ArcTanh, 27)
MLX_ENUM_VALUE(UnaryOp, Expm1, 28)
MLX_ENUM_VALUE(UnaryOp, Log2, 29)
MLX_ENUM_VALUE(UnaryOp, Log10, 30)
MLX_ENUM_VALUE(UnaryOp, BitwiseInvert, 31)
MLX_ENUM_VALUE(UnaryOp, IsFinite, 32)
MLX_ENUM_VALUE(UnaryOp, IsInf, 33)

MLX_ENUM_VALUE(BinaryOp, Add, 0)
MLX_ENUM_VALUE(BinaryOp, Subtract, 1)
MLX_ENUM_VALUE(BinaryOp, Multiply, 2)
MLX_ENUM_VALUE(BinaryOp, Divide, 3)
MLX_ENUM_VALUE(BinaryOp, Maximum, 4)
MLX_ENUM_VALUE(BinaryOp, Minimum, 5)
MLX_ENUM_VALUE(BinaryOp, Power, 6)
MLX_ENUM_VALUE(BinaryOp, Equal, 7)
MLX_ENUM_VALUE(BinaryOp, NotEqual, 8)
MLX_ENUM_VALUE(BinaryOp, Greater, 9)
MLX_ENUM_VALUE(BinaryOp, GreaterEqual, 10)
MLX_ENUM_VALUE(BinaryOp, Less, 11)
MLX_ENUM_VALUE(BinaryOp, LessEqual, 12)
MLX_ENUM_VALUE(BinaryOp, LogicalAnd, 13)
MLX_ENUM_VALUE(BinaryOp, LogicalOr, 14)
MLX_ENUM_VALUE(BinaryOp, BitwiseAnd, 15)
MLX_ENUM_VALUE(BinaryOp, BitwiseOr, 16)
MLX_ENUM_VALUE(BinaryOp, ArcTan2, 17)
MLX_ENUM_VALUE(BinaryOp, LogAddExp, 18)
MLX_ENUM_VALUE(BinaryOp, FloorDivide, 19)
MLX_ENUM_VALUE(BinaryOp, Remainder, 20)
MLX_ENUM_VALUE(BinaryOp, BitwiseXor, 21)
MLX_ENUM_VALUE(BinaryOp, LeftShift, 22)
MLX_ENUM_VALUE(BinaryOp, RightShift, 23)

MLX_PARAMS_END

#endif  // MLX_PARAMS_ELEMENTWISE_H
