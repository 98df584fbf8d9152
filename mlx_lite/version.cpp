#include "mlx_lite/version.h"

namespace mlx_lite {

#define MLX_LITE_STRINGIFY_(x) #x
#define MLX_LITE_STRINGIFY(x) MLX_LITE_STRINGIFY_(x)

const char* version() {
  return MLX_LITE_STRINGIFY(MLX_LITE_VERSION_MAJOR) "." MLX_LITE_STRINGIFY(
      MLX_LITE_VERSION_MINOR) "." MLX_LITE_STRINGIFY(MLX_LITE_VERSION_PATCH);
}

}  // namespace mlx_lite
