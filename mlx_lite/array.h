/// \file
/// The array: a cheap handle to shared state holding either data (a buffer,
/// an element offset and strides) or a recipe (a primitive and its inputs).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <ostream>
#include <vector>

#include "mlx_lite/allocator.h"
#include "mlx_lite/dtype.h"

namespace mlx_lite {

/// The type of one dimension of a Shape.
using ShapeElem = int32_t;
/// An array's dimensions, outermost first; {} for a scalar.
using Shape = std::vector<ShapeElem>;
/// The step between neighbouring elements along each dim, in elements (not
/// bytes): 0 along a broadcast dim, negative along a reversed one.
using Strides = std::vector<int64_t>;

class Primitive;
class array;
namespace detail {
// Marks `a` as traced by a running transform (the transforms call it).
void set_tracer(array& a, bool is_tracer);
}  // namespace detail
/// Frees a buffer an array was given, once no array uses it.
using Deleter = std::function<void(allocator::Buffer)>;

/// Row-major strides (in elements) of a dense array of `shape`.
Strides row_major_strides(const Shape& shape);

/// A lazy n-dimensional array, as MLX's. Copying one copies a handle: the
/// copies share one state, which holds either data (a buffer, an element
/// offset and strides) or a recipe (a primitive and its inputs) that eval()
/// turns into data. Ops build recipes; nothing is computed before eval.
class array {
 public:
  /// Facts about the layout of the elements in their buffer. Dims of size 1
  /// do not count, and an array of at most one element is all three.
  struct Flags {
    /// The elements fill a dense block of size() elements, in some order.
    bool contiguous : 1;
    /// Dense in row-major order (the last dim fastest).
    bool row_contiguous : 1;
    /// Dense in column-major order (the first dim fastest).
    bool col_contiguous : 1;
  };
  /// Whether the array has its data.
  enum class Status {
    unscheduled,  ///< A recipe, not evaluated yet.
    available     ///< Has its data (GPU work from async_eval may still be writing it).
  };

  /// A scalar (a 0-D array) holding `val` converted to `dtype`.
  template <ArrayScalar T>
  explicit array(T val, Dtype dtype = TypeToDtype<T>());

  /// Data copied from an iterator range of shape's size, converted to `dtype`.
  template <std::input_iterator It>
  array(It data, Shape shape,
        Dtype dtype = TypeToDtype<typename std::iterator_traits<It>::value_type>());

  /// A 1-D array of the listed values, converted to `dtype`: by default the
  /// Dtype of their C++ type (TypeToDtype), float32 for array({1.5f, 2.0f}).
  /// @{
  template <typename T>
  array(std::initializer_list<T> data, Dtype dtype = TypeToDtype<T>());
  array(std::initializer_list<float> data);
  array(std::initializer_list<int> data, Dtype dtype);
  /// @}

  /// Data of the given shape from an initializer list, converted to `dtype`.
  /// Throws std::invalid_argument when the list's size is not the shape's.
  template <typename T>
  array(std::initializer_list<T> data, Shape shape, Dtype dtype = TypeToDtype<T>());

  /// Wraps a buffer the caller allocated, holding row-contiguous elements of
  /// `shape` and `dtype`; `deleter` frees it with the array.
  array(allocator::Buffer data, Shape shape, Dtype dtype, Deleter deleter = allocator::free);

  /// An array of the row-contiguous elements of `shape` and `dtype` at the
  /// user's `data`, as MLX's constructor from a raw pointer. MLX may use the
  /// memory without a copy; mlx_lite copies it into its own buffer (which the
  /// GPU can read) and calls `deleter(data)` as soon as the copy is made, so
  /// the caller's memory is released when MLX's contract allows it at the
  /// earliest. `data` may be null only for an empty shape.
  array(void* data, Shape shape, Dtype dtype, const std::function<void(void*)>& deleter);

  /// An unevaluated output of `primitive` applied to `inputs`.
  array(Shape shape, Dtype dtype, std::shared_ptr<Primitive> primitive, std::vector<array> inputs);

  /// The outputs of a multi-output primitive, siblings of one another.
  static std::vector<array> make_arrays(std::vector<Shape> shapes, const std::vector<Dtype>& dtypes,
                                        const std::shared_ptr<Primitive>& primitive,
                                        const std::vector<array>& inputs);

  /// Another handle to `other`'s array; no data is copied.
  /// @{
  array(const array& other) = default;
  array(array&& other) = default;
  /// @}
  /// Makes this handle refer to `other`'s array; no data is copied. Only on
  /// lvalues, as in MLX.
  /// @{
  array& operator=(const array& other) &;
  array& operator=(array&& other) &;
  /// @}

  /// Bytes per element.
  size_t itemsize() const { return size_of(dtype()); }
  /// The number of elements.
  size_t size() const { return desc_->size; }
  /// Bytes of the elements: size() * itemsize().
  size_t nbytes() const { return size() * itemsize(); }
  /// The number of dims.
  int ndim() const { return static_cast<int>(desc_->shape.size()); }
  /// The dims.
  const Shape& shape() const { return desc_->shape; }
  /// The size of dim `dim` (negative counts from the end). Throws
  /// std::invalid_argument when out of range.
  int shape(int dim) const;
  /// The strides, in elements.
  const Strides& strides() const { return desc_->strides; }
  /// The stride of dim `dim` in elements (negative counts from the end).
  /// Throws std::invalid_argument when out of range.
  int64_t strides(int dim) const;
  /// The element type.
  Dtype dtype() const { return desc_->dtype; }
  /// The layout facts of the strides.
  Flags flags() const { return desc_->flags; }

  /// Evaluates the array (when it already holds data, only waits for GPU
  /// work from async_eval that may still be writing it).
  void eval();

  /// The value of a one-element array. Evaluates first. T must be the C++
  /// type of dtype() (DtypeToType; an integer type of the same width and
  /// signedness, such as long long for int64, also matches), as MLX reads
  /// the element as a T: `astype` first to read another type. Throws
  /// std::invalid_argument when the array has another size or T does not
  /// match.
  /// @{
  template <typename T>
  T item();
  template <typename T>
  T item() const;
  /// @}

  /// Pointer to the first element (honouring offset). Evaluates first; T must
  /// match dtype() as for item(), else std::invalid_argument. Elements are at
  /// data + sum(index * strides).
  /// @{
  template <typename T>
  T* data();
  template <typename T>
  const T* data() const;
  /// @}

  /// The number of elements of the buffer the array spans, from its first
  /// element in memory to its last (MLX's data_size): size() for a dense
  /// array, 1 for a broadcast scalar, more than size() for a strided view.
  /// Meaningful once the array has data.
  size_t data_size() const;

  /// Iterates over the first axis, as MLX's: `*it` is the sub-array at index
  /// i, with the first dim dropped (a lazy slice). Throws
  /// std::invalid_argument for a 0-D array.
  class ArrayIterator {
   public:
    /// MLX's iterator traits.
    /// @{
    using iterator_category = std::forward_iterator_tag;
    using difference_type = std::ptrdiff_t;
    using value_type = array;
    using reference = array;
    /// @}
    /// Position `index` along the first axis of `a`.
    ArrayIterator(const array& a, int index);
    /// The sub-array at the current index.
    array operator*() const;
    /// Steps to the next index.
    /// @{
    ArrayIterator& operator++() {
      ++index_;
      return *this;
    }
    ArrayIterator operator++(int) {
      ArrayIterator old = *this;
      ++index_;
      return old;
    }
    /// @}
    /// The same array and index.
    friend bool operator==(const ArrayIterator& a, const ArrayIterator& b) {
      return a.array_->id() == b.array_->id() && a.index_ == b.index_;
    }

   private:
    const array* array_;
    int index_;
  };
  /// The first sub-array along the first axis.
  ArrayIterator begin() const { return ArrayIterator(*this, 0); }
  /// One past the last sub-array along the first axis.
  ArrayIterator end() const;

  /// Whether the array is being traced by a function transform (vjp, jvp,
  /// grad) that is running now: its primals' stand-ins and what is computed
  /// from them, as MLX's is_tracer.
  bool is_tracer() const;

  // Graph state.
  /// Whether the array has a recipe: not evaluated yet, or evaluated but not
  /// detached (as while a transform traces a function).
  bool has_primitive() const { return desc_->primitive != nullptr; }
  /// The primitive that computes the array; only when has_primitive().
  Primitive& primitive() const { return *desc_->primitive; }
  /// Shared ownership of the primitive; null when there is none.
  const std::shared_ptr<Primitive>& primitive_ptr() const { return desc_->primitive; }
  /// The arrays the primitive is applied to (none once detached).
  /// @{
  std::vector<array>& inputs() { return desc_->inputs; }
  const std::vector<array>& inputs() const { return desc_->inputs; }
  /// @}
  /// The other outputs of this array's primitive (live ones only).
  std::vector<array> siblings() const;
  /// All outputs of this array's primitive in order, this one included.
  std::vector<array> outputs() const;
  /// Whether the data is there.
  Status status() const { return desc_->status; }
  /// status() == Status::available.
  bool is_available() const { return desc_->status == Status::available; }
  /// Sets status(), for code that evaluates primitives.
  void set_status(Status s) { desc_->status = s; }
  /// Forgets the recipe once the data is there, freeing the inputs.
  void detach();
  /// A number that identifies the array among live ones: the same for every
  /// handle to it.
  std::uintptr_t id() const { return reinterpret_cast<std::uintptr_t>(desc_.get()); }
  /// Whether `other` is a handle to the same array.
  bool is_same(const array& other) const { return desc_ == other.desc_; }

  // Data state.
  /// The buffer holding the data; only when has_data().
  /// @{
  allocator::Buffer& buffer() { return desc_->data->buffer; }
  const allocator::Buffer& buffer() const { return desc_->data->buffer; }
  /// @}
  /// Shared ownership of the data: views of one buffer share this pointer.
  const std::shared_ptr<void> data_shared_ptr() const { return desc_->data; }
  /// Element offset of this array's first element within its buffer.
  int64_t offset() const { return desc_->offset; }
  /// Untyped pointer to the first element; null without data. Does not
  /// evaluate.
  void* raw_data() const;
  /// Whether the array holds a buffer.
  bool has_data() const { return desc_->data != nullptr; }
  /// Whether this handle is the only reference to the array and the array the
  /// only user of its buffer, so a kernel may write its output there.
  bool is_donatable() const { return desc_.use_count() == 1 && desc_->data.use_count() == 1; }

  /// Gives this (row-contiguous) array a freshly allocated buffer, which
  /// `deleter` frees once no array uses it; the array becomes available.
  void set_data(allocator::Buffer buffer, Deleter deleter = allocator::free);
  /// Makes this array a view of `other`'s buffer with its own strides and
  /// offset (without them, `other`'s); the array becomes available.
  /// @{
  void copy_shared_buffer(const array& other, const Strides& strides, int64_t offset);
  void copy_shared_buffer(const array& other);
  /// @}

 private:
  struct Data {
    allocator::Buffer buffer;
    Deleter deleter;
    Data(allocator::Buffer b, Deleter d) : buffer(b), deleter(std::move(d)) {}
    Data(const Data&) = delete;
    Data& operator=(const Data&) = delete;
    ~Data() { deleter(buffer); }
  };

  struct ArrayDesc {
    Shape shape;
    Strides strides;
    size_t size;
    Dtype dtype;
    std::shared_ptr<Primitive> primitive;
    Status status;
    std::shared_ptr<Data> data;
    int64_t offset = 0;
    Flags flags{};
    std::vector<array> inputs;
    // Weak, so an unevaluated multi-output node is no reference cycle; shape and
    // dtype let eval stand in a scratch array for a sibling nobody holds.
    struct Sibling {
      std::weak_ptr<ArrayDesc> desc;
      Shape shape;
      Dtype dtype;
    };
    std::vector<Sibling> siblings;
    uint32_t position = 0;
    // Set on the primals' stand-ins and on what ops compute from tracers.
    bool is_tracer = false;

    ArrayDesc(Shape shape, Dtype dtype);
    ArrayDesc(Shape shape, Dtype dtype, std::shared_ptr<Primitive> primitive,
              std::vector<array> inputs);
    ~ArrayDesc();
    // Throws std::invalid_argument when a GPU node reads or writes float64.
    void check_gpu_dtypes() const;
  };

  explicit array(std::shared_ptr<ArrayDesc> desc) : desc_(std::move(desc)) {}
  friend void detail::set_tracer(array& a, bool is_tracer);
  void init_from(const void* src, Dtype src_type);
  template <typename It>
  void init(It begin);

  std::shared_ptr<ArrayDesc> desc_;
};

namespace detail {
// Converts n elements of src_type at src into dst_type at dst.
void convert_elements(const void* src, Dtype src_type, void* dst, Dtype dst_type, size_t n);
void throw_bad_data_type(const char* op, Dtype have, const char* want);
// Whether T is how elements of `dtype` are stored: DtypeToType, or an integer
// type of the same width and signedness (long long for int64).
template <typename T>
bool stores_as(Dtype dtype) {
  return dispatch_dtype(dtype, [&]<typename U>() {
    if constexpr (std::is_same_v<U, T>) {
      return true;
    } else if constexpr (std::is_integral_v<T> && std::is_integral_v<U> &&
                         !std::is_same_v<T, bool> && !std::is_same_v<U, bool>) {
      return sizeof(T) == sizeof(U) && std::is_signed_v<T> == std::is_signed_v<U>;
    } else {
      return false;
    }
  });
}
// A name for T in messages.
template <typename T>
constexpr const char* cpp_type_name() {
  using U = std::remove_cv_t<T>;
  constexpr const char* ints[2][4] = {{"uint8_t", "uint16_t", "uint32_t", "uint64_t"},
                                      {"int8_t", "int16_t", "int32_t", "int64_t"}};
  if constexpr (std::is_same_v<U, bool>)
    return "bool";
  else if constexpr (std::is_integral_v<U>)
    return ints[std::is_signed_v<U>][sizeof(U) == 1   ? 0
                                     : sizeof(U) == 2 ? 1
                                     : sizeof(U) == 4 ? 2
                                                      : 3];
  else if constexpr (std::is_same_v<U, float>)
    return "float";
  else if constexpr (std::is_same_v<U, double>)
    return "double";
  else if constexpr (std::is_same_v<U, float16_t>)
    return "float16_t";
  else if constexpr (std::is_same_v<U, bfloat16_t>)
    return "bfloat16_t";
  else
    return "another C++ type";
}
void throw_not_scalar(const Shape& shape);
}  // namespace detail

template <ArrayScalar T>
array::array(T val, Dtype dtype) : desc_(std::make_shared<ArrayDesc>(Shape{}, dtype)) {
  init(&val);
}

template <std::input_iterator It>
array::array(It data, Shape shape, Dtype dtype)
    : desc_(std::make_shared<ArrayDesc>(std::move(shape), dtype)) {
  init(data);
}

template <typename T>
array::array(std::initializer_list<T> data, Dtype dtype)
    : desc_(std::make_shared<ArrayDesc>(Shape{static_cast<ShapeElem>(data.size())}, dtype)) {
  init(data.begin());
}

template <typename T>
array::array(std::initializer_list<T> data, Shape shape, Dtype dtype)
    : desc_(std::make_shared<ArrayDesc>(std::move(shape), dtype)) {
  if (data.size() != size()) {
    throw std::invalid_argument("[array] Data size " + std::to_string(data.size()) +
                                " does not match the shape's size " + std::to_string(size()) + ".");
  }
  init(data.begin());
}

template <typename It>
void array::init(It begin) {
  // Stage in the storage type of the C++ type's Dtype (bool a byte; double
  // stays double, so a float64 array keeps every digit), then convert to the
  // array's dtype.
  using T = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;
  constexpr Dtype staged_type = std::is_same_v<T, double> ? float64 : TypeToDtype<T>();
  using S = std::conditional_t<std::is_same_v<T, bool>, uint8_t,
                               typename DtypeToType<staged_type.val>::type>;
  std::vector<S> staged(size());
  It it = begin;
  for (auto& v : staged) v = static_cast<S>(*it++);
  init_from(staged.data(), staged_type);
}

template <typename T>
T array::item() {
  if (size() != 1) detail::throw_not_scalar(shape());
  if (!detail::stores_as<T>(dtype())) {
    detail::throw_bad_data_type("array::item", dtype(), detail::cpp_type_name<T>());
  }
  eval();
  return *static_cast<const T*>(raw_data());
}

template <typename T>
T array::item() const {
  return const_cast<array*>(this)->item<T>();
}

template <typename T>
T* array::data() {
  if (!detail::stores_as<T>(dtype())) {
    detail::throw_bad_data_type("array::data", dtype(), detail::cpp_type_name<T>());
  }
  eval();
  return static_cast<T*>(raw_data());
}

template <typename T>
const T* array::data() const {
  return const_cast<array*>(this)->data<T>();
}

/// Prints the array in MLX's format, `array([[1, 2],` / `[3, 4]], dtype=int32)`
/// (a line per row), evaluating it first; an axis longer than 6 shows its
/// first and last 3 elements.
std::ostream& operator<<(std::ostream& os, array a);
/// Prints a shape as shape_string() writes it: (2,3,4).
std::ostream& operator<<(std::ostream& os, const Shape& shape);

}  // namespace mlx_lite
