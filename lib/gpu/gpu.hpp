// The CUDA devices of this machine and the CUDA backend. Built without CUDA, or on a machine
// without a usable GPU, the inventory says why and opening a device is a DeviceError.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace aug {
class Backend;
}

namespace aug::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
};

struct Inventory {
  bool built_with_cuda = false;
  int driver_version = 0;   // e.g. 13000 for 13.0; 0 when there is no driver
  int runtime_version = 0;
  std::vector<DeviceInfo> devices;
  std::string why_none;     // when `devices` is empty: no driver, driver too old, built without CUDA...
};

Inventory inventory();

// A CUDA version number as "13.0" (13000), or "none" for 0.
std::string cuda_version(int v);

// The backend on device `index`. Throws DeviceError listing the devices that exist.
std::unique_ptr<Backend> open_backend(int index, int workers);

// The same backend over emulated device `index` ("cuda-emulated:N", N < AUGMENT_EMULATED_GPUS):
// its own mapped memory, deferred streams, checked launches, kernel bodies run as host loops. It
// needs no GPU and no CUDA build. Throws DeviceError for a device that does not exist.
std::unique_ptr<Backend> open_emulated_backend(int index, int workers);

}  // namespace aug::gpu
