// Parameters of shaders/random.comp (RandomBits; backend/vulkan/random.cpp).
// Bindings: 0 the shape block, 1 the keys (uint32 pairs), 2 the output.
#ifndef MLX_PARAMS_RANDOM_H
#define MLX_PARAMS_RANDOM_H

#include "shape_block.h"

MLX_PARAMS_BEGIN

// Each key's stream of num_words words fills per_key elements of WIDTH
// bytes; thread t hashes counter pair t % ceil(num_words / 2) of key
// t / ceil(num_words / 2).
struct RandomParams {
  int64_t keys_size;    // the keys' element count
  int64_t keys_offset;  // the keys' first element
  int64_t num_keys;
  int64_t per_key;
  int64_t num_words;
  ShapeRef keys;  // the keys' shape and strides (they may be views)
};
MLX_PUSH_CONSTANTS(RandomParams)

// WIDTH: the element width in bytes (1 or 4). CONTIGUOUS: the keys are dense.
#define MLX_RANDOM_SPEC(X, S) \
  X(S, 1, uint, WIDTH, 4)     \
  X(S, 2, bool, CONTIGUOUS, false)
MLX_SPEC_CONSTANTS(RandomSpec, MLX_RANDOM_SPEC)

MLX_PARAMS_END

#endif  // MLX_PARAMS_RANDOM_H
