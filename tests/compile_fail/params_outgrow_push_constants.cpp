// Must not compile: a parameter struct of 136 bytes, more than the 128 bytes
// of push constants every Vulkan device has.
#include "backend/vulkan/shaders/params/prelude.h"

MLX_PARAMS_BEGIN
struct TooLarge {
  int64_t words[17];
};
MLX_PUSH_CONSTANTS(TooLarge)
MLX_PARAMS_END
