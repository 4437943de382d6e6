// Images as lib/ sees them: a sample type, a size, 1/3/4 interleaved channels (gray, RGB, RGBA;
// never BGR inside the tool), and a row pitch. `Image` owns host memory; `ImageRef` is a
// non-owning view that may point at host or device memory and converts to kernel views.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kernels/core/common.hpp"

namespace aug {

enum class DType : std::uint8_t { U8, U16, F32 };

constexpr std::size_t sample_size(DType t) { return t == DType::U8 ? 1 : (t == DType::U16 ? 2 : 4); }
const char* dtype_name(DType t);  // "u8", "u16", "f32"

struct Shape {
  int width = 0;
  int height = 0;
  int channels = 0;
  DType dtype = DType::U8;

  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels * sample_size(dtype); }
  std::size_t bytes() const { return row_bytes() * static_cast<std::size_t>(height); }
  std::size_t values() const { return static_cast<std::size_t>(width) * height * channels; }
  bool operator==(const Shape& o) const {
    return width == o.width && height == o.height && channels == o.channels && dtype == o.dtype;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }
};

std::string to_string(const Shape& s);  // "640x480x3 u8"

struct ImageRef {
  void* data = nullptr;
  Shape shape;
  std::size_t pitch = 0;

  template <class T>
  k::View<T> view() const {
    return k::View<T>{static_cast<T*>(data), shape.width, shape.height, shape.channels, pitch};
  }
};

// Host image with tightly packed rows (pitch == row bytes), 64-byte aligned.
class Image {
 public:
  Image() = default;
  explicit Image(const Shape& shape);
  // An image in memory that someone else manages (a GPU backend's pinned staging): `storage` holds
  // at least shape.bytes() rounded up to 64, 64-byte aligned; its deleter gives the memory back.
  Image(const Shape& shape, std::shared_ptr<std::uint8_t[]> storage);

  const Shape& shape() const { return shape_; }
  int width() const { return shape_.width; }
  int height() const { return shape_.height; }
  int channels() const { return shape_.channels; }
  DType dtype() const { return shape_.dtype; }
  std::size_t pitch() const { return shape_.row_bytes(); }
  bool empty() const { return !data_; }

  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }
  std::uint8_t* row(int y) { return data() + y * pitch(); }
  const std::uint8_t* row(int y) const { return data() + y * pitch(); }

  ImageRef ref() { return ImageRef{data(), shape_, pitch()}; }
  ImageRef ref() const { return ImageRef{const_cast<std::uint8_t*>(data()), shape_, pitch()}; }
  template <class T>
  k::View<T> view() { return ref().view<T>(); }
  template <class T>
  k::View<const T> view() const { return ref().view<const T>(); }

  Image clone() const;

 private:
  Shape shape_;
  std::shared_ptr<std::uint8_t[]> data_;
};

// Where a producer of images (a decoder) puts their pixels: a GPU backend hands out its pinned
// staging so that an image is uploaded without a copy. Unset: a plain Image.
using ImageAllocator = std::function<Image(const Shape&)>;
inline Image allocate_image(const Shape& shape, const ImageAllocator& allocate) {
  return allocate ? allocate(shape) : Image(shape);
}

// Calls f(T{}) with T the C++ sample type of `t`.
template <class F>
decltype(auto) with_sample_type(DType t, F&& f) {
  switch (t) {
    case DType::U8: return f(std::uint8_t{});
    case DType::U16: return f(std::uint16_t{});
    case DType::F32: break;
  }
  return f(float{});
}

}  // namespace aug
