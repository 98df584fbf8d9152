// CPU kernels of the creation primitives.
#include "mlx_lite/primitives/creation.h"

#include <cstring>
#include <type_traits>

#include "backend/cpu/strided.h"

namespace mlx_lite {

void Arange::eval_cpu(const std::vector<array>&, array& out) {
  common::allocate(out);
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    T* o = static_cast<T*>(out.raw_data());
    const int64_t n = static_cast<int64_t>(out.size());
    // start + i * step rather than a running sum, so float errors do not
    // accumulate (numpy does the same).
    for (int64_t i = 0; i < n; ++i) {
      const double v = start_ + static_cast<double>(i) * step_;
      if constexpr (std::is_integral_v<T>) {
        // Through int64 so negative values wrap into unsigned types instead
        // of being undefined behaviour.
        o[i] = static_cast<T>(static_cast<int64_t>(v));
      } else if constexpr (std::is_same_v<T, double>) {
        o[i] = v;
      } else {
        o[i] = static_cast<T>(static_cast<float>(v));
      }
    }
  });
}

void Eye::eval_cpu(const std::vector<array>&, array& out) {
  common::allocate(out);
  // All-zero bytes are zero in every dtype.
  if (out.nbytes() > 0) std::memset(out.raw_data(), 0, out.nbytes());
  const int64_t n = out.shape(0), m = out.shape(1);
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    T* o = static_cast<T*>(out.raw_data());
    for (int64_t r = std::max<int64_t>(0, -k_); r < n && r + k_ < m; ++r) {
      o[r * m + r + k_] = static_cast<T>(1);
    }
  });
}

}  // namespace mlx_lite
