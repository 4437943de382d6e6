// Built without CUDA: no devices, and a clear reason.
#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/gpu/gpu.hpp"

namespace aug::gpu {

Inventory inventory() {
  Inventory inv;
  inv.why_none = "this augment was built without CUDA";
  return inv;
}

std::unique_ptr<Backend> open_backend(int index, int) {
  throw DeviceError("cuda:" + std::to_string(index) + " is not available: " + inventory().why_none +
                    "; use --device cpu");
}

}  // namespace aug::gpu
