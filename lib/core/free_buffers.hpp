// Freed buffers kept for the next ones of about the same size: what the pools of large image
// buffers (lib/core/image.cpp) and of a GPU's pinned buffers (lib/gpu/gpu_backend.cpp) share. Not
// thread-safe: its owner locks.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace aug {

class FreeBuffers {
 public:
  // The smallest kept buffer that holds `bytes` and is at most twice that, taken out of the
  // list, with its size; {nullptr, 0} when there is none.
  std::pair<void*, std::size_t> take(std::size_t bytes) {
    std::size_t best = list_.size();
    for (std::size_t i = 0; i < list_.size(); ++i)
      if (list_[i].second >= bytes && list_[i].second <= 2 * bytes &&
          (best == list_.size() || list_[i].second < list_[best].second))
        best = i;
    if (best == list_.size()) return {nullptr, 0};
    const auto taken = list_[best];
    list_.erase(list_.begin() + static_cast<std::ptrdiff_t>(best));
    kept_ -= taken.second;
    return taken;
  }

  // Keeps `p` (of `size` bytes) when the kept bytes stay within `limit`; false: the caller frees it.
  bool keep(void* p, std::size_t size, std::size_t limit) {
    if (kept_ + size > limit) return false;
    list_.emplace_back(p, size);
    kept_ += size;
    return true;
  }

  // Empties the list, calling free_one(pointer) for each buffer.
  template <class F>
  void clear(F&& free_one) {
    for (const auto& [p, size] : list_) free_one(p);
    list_.clear();
    kept_ = 0;
  }

 private:
  std::vector<std::pair<void*, std::size_t>> list_;
  std::size_t kept_ = 0;
};

}  // namespace aug
