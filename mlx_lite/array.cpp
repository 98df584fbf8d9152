#include "mlx_lite/array.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "backend/gpu_backend.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/primitives.h"
#include "mlx_lite/transforms/eval.h"
#include "mlx_lite/transforms/tracing.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

size_t shape_size(const Shape& shape) {
  for (auto d : shape) {
    if (d < 0) {
      throw std::invalid_argument(
          fmt::format("[array] Shape ({}) has a negative dimension.", fmt::join(shape, ",")));
    }
  }
  // The last guard against a wrapped size: ops check their shapes first.
  return static_cast<size_t>(checked_size(shape, "array"));
}

// `shape` once its elements, its row-major strides and its bytes are known to
// fit in int64 (checked_nbytes): the first member an ArrayDesc builds, the
// last guard against a wrapped size (ops check their shapes first). `op`
// names the node.
Shape checked_shape(Shape shape, Dtype dtype, const char* op) {
  shape_size(shape);  // negative dims first
  checked_nbytes(shape, dtype, op);
  return shape;
}

array::Flags compute_flags(const Shape& shape, const Strides& strides, size_t size) {
  array::Flags f{};
  if (size <= 1) {
    f.contiguous = f.row_contiguous = f.col_contiguous = true;
    return f;
  }
  const int n = static_cast<int>(shape.size());
  // Whether the dims, visited as dim(0), dim(1), ..., are dense fastest first.
  auto dense_in_order = [&](auto dim) {
    int64_t expected = 1;
    for (int i = 0; i < n; ++i) {
      const int d = dim(i);
      if (shape[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= shape[d];
    }
    return true;
  };
  // No allocation on the common paths: every new array comes through here.
  f.col_contiguous = dense_in_order([](int i) { return i; });
  f.row_contiguous = dense_in_order([n](int i) { return n - 1 - i; });
  if (f.row_contiguous || f.col_contiguous) {
    f.contiguous = true;
    return f;
  }
  // Dense in some permuted order: sort dims by stride and check the chain.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return strides[a] < strides[b]; });
  f.contiguous = dense_in_order([&](int i) { return order[i]; });
  return f;
}

// Whether strides == row_major_strides(shape), without building them.
bool is_row_major(const Shape& shape, const Strides& strides) {
  if (strides.size() != shape.size()) return false;
  int64_t expected = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    if (strides[i] != expected) return false;
    expected *= std::max<int64_t>(shape[i], 1);
  }
  return true;
}

}  // namespace

Strides row_major_strides(const Shape& shape) {
  Strides strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  }
  return strides;
}

array::ArrayDesc::ArrayDesc(Shape shape_, Dtype dtype_)
    : shape(checked_shape(std::move(shape_), dtype_, "array")),
      strides(row_major_strides(shape)),
      size(shape_size(shape)),
      dtype(dtype_),
      status(Status::available) {
  flags = compute_flags(shape, strides, size);
}

array::ArrayDesc::ArrayDesc(Shape shape_, Dtype dtype_, std::shared_ptr<Primitive> primitive_,
                            std::vector<array> inputs_)
    : shape(checked_shape(std::move(shape_), dtype_, primitive_ ? primitive_->name() : "array")),
      strides(row_major_strides(shape)),
      size(shape_size(shape)),
      dtype(dtype_),
      primitive(std::move(primitive_)),
      status(Status::unscheduled),
      inputs(std::move(inputs_)) {
  flags = compute_flags(shape, strides, size);
  check_gpu_dtypes();
  // What is computed from a tracer is traced too.
  is_tracer = std::ranges::any_of(inputs, [](const array& in) { return in.is_tracer(); });
}

// Every op's node is built here, on the stream it will run on: the one place
// to refuse float64 on the GPU, as MLX's array constructor does (the GPU
// backend has no float64 kernels; MLX's Metal has none either).
void array::ArrayDesc::check_gpu_dtypes() const {
  if (!primitive || primitive->device() != Device::gpu) return;
  const bool f64 = dtype == float64 || std::ranges::any_of(inputs, [](const array& in) {
                     return in.dtype() == float64;
                   });
  if (f64) {
    throw std::invalid_argument(fmt::format(
        "[{}] float64 is not supported on the GPU: run ops on float64 arrays on the CPU "
        "(pass Device::cpu or a CPU stream), or astype to float32 on the CPU first.",
        primitive->name()));
  }
}

array::ArrayDesc::~ArrayDesc() {
  // Release a long chain of unevaluated inputs with a loop: destroying it
  // recursively would overflow the stack (a chain of 100,000 ops is normal).
  std::vector<std::shared_ptr<ArrayDesc>> pending;
  auto take_inputs = [&pending](std::vector<array>& inputs) {
    for (auto& in : inputs) {
      if (in.desc_ && in.desc_.use_count() == 1) pending.push_back(std::move(in.desc_));
    }
    inputs.clear();
  };
  take_inputs(inputs);
  while (!pending.empty()) {
    auto desc = std::move(pending.back());
    pending.pop_back();
    take_inputs(desc->inputs);
  }
}

array::array(std::initializer_list<float> data)
    : desc_(std::make_shared<ArrayDesc>(Shape{static_cast<ShapeElem>(data.size())}, float32)) {
  init(data.begin());
}

array::array(std::initializer_list<int> data, Dtype dtype)
    : desc_(std::make_shared<ArrayDesc>(Shape{static_cast<ShapeElem>(data.size())}, dtype)) {
  init(data.begin());
}

array::array(allocator::Buffer data, Shape shape, Dtype dtype, Deleter deleter)
    : desc_(std::make_shared<ArrayDesc>(std::move(shape), dtype)) {
  set_data(data, std::move(deleter));
}

array::array(void* data, Shape shape, Dtype dtype, const std::function<void(void*)>& deleter)
    : desc_(std::make_shared<ArrayDesc>(std::move(shape), dtype)) {
  if (data == nullptr && size() > 0) {
    throw std::invalid_argument(
        fmt::format("[array] The data pointer is null, but shape {} needs {} elements.",
                    shape_string(desc_->shape), size()));
  }
  set_data(allocator::malloc(nbytes()));
  if (size() > 0) std::memcpy(raw_data(), data, nbytes());
  if (deleter) deleter(data);
}

array::array(Shape shape, Dtype dtype, std::shared_ptr<Primitive> primitive,
             std::vector<array> inputs)
    : desc_(std::make_shared<ArrayDesc>(std::move(shape), dtype, std::move(primitive),
                                        std::move(inputs))) {}

std::vector<array> array::make_arrays(std::vector<Shape> shapes, const std::vector<Dtype>& dtypes,
                                      const std::shared_ptr<Primitive>& primitive,
                                      const std::vector<array>& inputs) {
  std::vector<array> outputs;
  outputs.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    outputs.emplace_back(std::move(shapes[i]), dtypes[i], primitive, inputs);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto& desc = *outputs[i].desc_;
    desc.position = static_cast<uint32_t>(i);
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (j != i) {
        desc.siblings.push_back({outputs[j].desc_, outputs[j].shape(), outputs[j].dtype()});
      }
    }
  }
  return outputs;
}

array& array::operator=(const array& other) & {
  if (this != &other) desc_ = other.desc_;
  return *this;
}

array& array::operator=(array&& other) & {
  desc_ = std::move(other.desc_);
  return *this;
}

int array::shape(int dim) const {
  int n = ndim();
  if (dim < -n || dim >= n) {
    // std::out_of_range, as MLX's shape().at() throws.
    throw std::out_of_range(fmt::format(
        "[array::shape] Dimension {} is out of range for an array with {} dimensions.", dim, n));
  }
  return desc_->shape[dim < 0 ? dim + n : dim];
}

int64_t array::strides(int dim) const {
  int n = ndim();
  if (dim < -n || dim >= n) {
    throw std::out_of_range(fmt::format(
        "[array::strides] Dimension {} is out of range for an array with {} dimensions.", dim, n));
  }
  return desc_->strides[dim < 0 ? dim + n : dim];
}

size_t array::data_size() const {
  if (size() == 0) return 0;
  // The span between the lowest and the highest element address.
  int64_t span = 1;
  for (int i = 0; i < ndim(); ++i) span += (desc_->shape[i] - 1) * std::abs(desc_->strides[i]);
  return static_cast<size_t>(span);
}

array::ArrayIterator::ArrayIterator(const array& a, int index) : array_(&a), index_(index) {
  if (a.ndim() == 0) {
    throw std::invalid_argument("[array::ArrayIterator] A 0-D array has no axis to iterate over.");
  }
}

array array::ArrayIterator::operator*() const {
  Shape start(array_->ndim(), 0), stop = array_->shape();
  start[0] = index_;
  stop[0] = index_ + 1;
  return squeeze(slice(*array_, std::move(start), std::move(stop)), 0);
}

array::ArrayIterator array::end() const {
  return ArrayIterator(*this, ndim() == 0 ? 0 : shape(0));
}

bool array::is_tracer() const {
  return desc_->is_tracer && detail::in_tracing();
}

void array::eval() {
  if (!is_available()) {
    mlx_lite::eval({*this});
  } else {
    gpu_backend::wait_for(*this);  // async_eval's GPU work may still be writing it
  }
}

std::vector<array> array::siblings() const {
  std::vector<array> out;
  for (auto& sibling : desc_->siblings) {
    if (auto s = sibling.desc.lock()) out.push_back(array(std::move(s)));
  }
  return out;
}

std::vector<array> array::outputs() const {
  std::vector<array> out;
  out.reserve(desc_->siblings.size() + 1);
  size_t j = 0;
  for (uint32_t i = 0; i <= desc_->siblings.size(); ++i) {
    if (i == desc_->position) {
      out.push_back(*this);
      continue;
    }
    auto& sibling = desc_->siblings[j++];
    // A sibling nobody holds still needs somewhere for the primitive to write.
    auto s = sibling.desc.lock();
    out.push_back(s ? array(std::move(s)) : array(sibling.shape, sibling.dtype, nullptr, {}));
  }
  return out;
}

void array::detach() {
  desc_->inputs.clear();
  desc_->siblings.clear();
  desc_->position = 0;
  desc_->primitive = nullptr;
}

void* array::raw_data() const {
  if (!desc_->data) return nullptr;
  return static_cast<char*>(desc_->data->buffer.raw_ptr()) + desc_->offset * itemsize();
}

void array::set_data(allocator::Buffer buffer, Deleter deleter) {
  desc_->data = std::make_shared<Data>(buffer, std::move(deleter));
  desc_->offset = 0;
  // Arrays built by ops already have row-major strides: keep them, without
  // allocating new ones.
  if (!is_row_major(desc_->shape, desc_->strides)) {
    desc_->strides = row_major_strides(desc_->shape);
    desc_->flags = compute_flags(desc_->shape, desc_->strides, desc_->size);
  }
  desc_->status = Status::available;
}

void array::copy_shared_buffer(const array& other, const Strides& strides, int64_t offset) {
  desc_->data = other.desc_->data;
  desc_->offset = offset;
  desc_->strides = strides;
  desc_->flags = compute_flags(desc_->shape, desc_->strides, desc_->size);
  desc_->status = Status::available;
}

void array::copy_shared_buffer(const array& other) {
  copy_shared_buffer(other, other.strides(), other.offset());
}

void array::init_from(const void* src, Dtype src_type) {
  set_data(allocator::malloc(nbytes()));
  detail::convert_elements(src, src_type, raw_data(), dtype(), size());
}

namespace detail {

void convert_elements(const void* src, Dtype src_type, void* dst, Dtype dst_type, size_t n) {
  if (n == 0) return;  // an empty array's pointers may be null, even for memcpy
  if (src_type == dst_type) {
    std::memcpy(dst, src, n * size_of(src_type));
    return;
  }
  dispatch_dtype(src_type, [&]<typename S>() {
    dispatch_dtype(dst_type, [&]<typename D>() {
      auto* s = static_cast<const S*>(src);
      auto* d = static_cast<D*>(dst);
      for (size_t i = 0; i < n; ++i) {
        d[i] = static_cast<D>(static_cast<compute_type_t<S>>(s[i]));
      }
    });
  });
}

void throw_bad_data_type(const char* op, Dtype have, const char* want) {
  throw std::invalid_argument(fmt::format(
      "[{}] The array's dtype is {} but its elements were requested as {}; the C++ type must be "
      "the dtype's own (astype the array first to read another type).",
      op, dtype_name(have), want));
}

void set_tracer(array& a, bool is_tracer) {
  a.desc_->is_tracer = is_tracer;
}

void throw_not_scalar(const Shape& shape) {
  throw std::invalid_argument(
      fmt::format("[array::item] item() needs an array of one element, but the shape is {} with {} "
                  "elements.",
                  shape_string(shape), shape_size(shape)));
}

}  // namespace detail

}  // namespace mlx_lite
