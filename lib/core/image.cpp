#include "lib/core/image.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <utility>
#include <cstring>
#include <new>
#include <stdexcept>

#include "lib/core/free_buffers.hpp"

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

namespace {

// Large pixel buffers (1 MiB and more) are mapped from the system and kept, when freed, in a small
// pool that the next image of about the same size takes: a stream of images neither faults in
// fresh pages for every image nor leaves freed buffers in the allocator's per-thread arenas, where
// they would stay resident.
class LargeBuffers {
 public:
  static constexpr std::size_t kMin = std::size_t{1} << 20;
  static constexpr std::size_t kPooled = std::size_t{32} << 20;  // free bytes kept at most

  // A buffer of at least `bytes`, and its size (give it back with that size).
  std::pair<void*, std::size_t> take(std::size_t bytes) {
    {
      std::lock_guard lk(m_);
      if (const auto taken = free_.take(bytes); taken.first) return taken;
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return {p, bytes};
  }

  void give(void* p, std::size_t bytes) {
    {
      std::lock_guard lk(m_);
      if (free_.keep(p, bytes, kPooled)) return;
    }
    munmap(p, bytes);
  }

 private:
  std::mutex m_;
  FreeBuffers free_;
};

LargeBuffers& large_buffers() {
  static auto* pool = new LargeBuffers;  // never destroyed: images may outlive static destruction
  return *pool;
}

}  // namespace

Image::Image(const Shape& shape) : shape_(shape) {
  const std::size_t bytes = shape.bytes();
  // Round up so that the last row can be read with wide loads; aligned for SIMD and DMA.
  const std::size_t alloc = ((bytes ? bytes : 1) + 63) / 64 * 64;
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer checks the allocator's blocks, not mapped ones
  if (alloc >= LargeBuffers::kMin) {
    const auto [p, size] = large_buffers().take(alloc);
    data_ = std::shared_ptr<std::uint8_t[]>(static_cast<std::uint8_t*>(p),
                                            [size = size](std::uint8_t* q) { large_buffers().give(q, size); });
    return;
  }
#endif
  void* p = std::aligned_alloc(64, alloc);
  if (!p) throw std::bad_alloc();
  data_ = std::shared_ptr<std::uint8_t[]>(static_cast<std::uint8_t*>(p), [](std::uint8_t* q) { std::free(q); });
}

Image::Image(const Shape& shape, std::shared_ptr<std::uint8_t[]> storage) : shape_(shape), data_(std::move(storage)) {
  if (!data_ || reinterpret_cast<std::uintptr_t>(data_.get()) % 64 != 0)
    throw std::invalid_argument("Image: external storage must be 64-byte aligned and not null");
}

Image Image::clone() const {
  Image out(shape_);
  if (!empty()) std::memcpy(out.data(), data(), shape_.bytes());
  return out;
}

}  // namespace aug
