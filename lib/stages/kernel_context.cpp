#include "lib/stages/kernel_context.hpp"

namespace aug {

void* HostKernelContext::scratch(std::size_t bytes) {
  // Blocks are reused image after image: the i-th request of an image gets the i-th block,
  // grown when too small, so a steady stream of images allocates nothing.
  if (used_ == blocks_.size()) {
    blocks_.emplace_back();
    sizes_.push_back(0);
  }
  if (sizes_[used_] < bytes) {
    blocks_[used_].reset(new std::byte[bytes]);  // uninitialised, as on a device
    sizes_[used_] = bytes;
  }
  return blocks_[used_++].get();
}

}  // namespace aug
