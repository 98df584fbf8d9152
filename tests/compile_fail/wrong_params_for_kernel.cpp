// Must not compile: an elementwise kernel dispatched with reduce's parameters.
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/elementwise.h"
#include "backend/vulkan/shaders/params/reduce.h"

namespace mlx_lite::vulkan {

void record(Encoder& encoder, const Kernel<params::ElementwiseParams, params::ElementwiseSpec>& k,
            const array& in, const array& out) {
  encoder.dispatch(k, params::ElementwiseSpec{}, params::ReduceParams{}, ShapeBlock{},
                   {input(in), output(out)}, Grid::threads(1));
}

}  // namespace mlx_lite::vulkan
