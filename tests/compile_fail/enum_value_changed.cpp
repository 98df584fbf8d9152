// Must not compile: a shader constant that no longer matches the C++ enum's
// value (as if BinaryOp had been reordered).
#include "backend/vulkan/shaders/params/prelude.h"
#include "mlx_lite/primitives/binary.h"

MLX_PARAMS_BEGIN
MLX_ENUM_VALUE(BinaryOp, Subtract, 0)
MLX_PARAMS_END
