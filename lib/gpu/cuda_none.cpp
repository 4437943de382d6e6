// Built without CUDA: there is no runtime; the inventory says so and only emulated devices exist.
#include "lib/gpu/device_api.hpp"

namespace aug::gpu {

DeviceApi* cuda_runtime_api() { return nullptr; }

}  // namespace aug::gpu
