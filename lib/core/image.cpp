#include "lib/core/image.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace aug {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::U8: return "u8";
    case DType::U16: return "u16";
    case DType::F32: return "f32";
  }
  return "?";
}

std::string to_string(const Shape& s) {
  return std::to_string(s.width) + "x" + std::to_string(s.height) + "x" + std::to_string(s.channels) + " " +
         dtype_name(s.dtype);
}

Image::Image(const Shape& shape) : shape_(shape) {
  const std::size_t bytes = shape.bytes();
  // Round up so that the last row can be read with wide loads; aligned for SIMD and DMA.
  const std::size_t alloc = ((bytes ? bytes : 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, alloc);
  if (!p) throw std::bad_alloc();
  data_ = std::shared_ptr<std::uint8_t[]>(static_cast<std::uint8_t*>(p), [](std::uint8_t* q) { std::free(q); });
}

Image Image::clone() const {
  Image out(shape_);
  if (!empty()) std::memcpy(out.data(), data(), shape_.bytes());
  return out;
}

}  // namespace aug
