#include "lib/run/devices.hpp"

#include <cstdlib>

#include <spdlog/spdlog.h>

#include "lib/core/error.hpp"
#include "lib/gpu/gpu.hpp"

namespace aug {

std::unique_ptr<Backend> make_emulated_backend(int workers) { return gpu::open_emulated_backend(workers); }

DeviceSpec parse_device(const std::string& text) {
  DeviceSpec d;
  d.text = text;
  if (text == "cpu") d.kind = DeviceSpec::Kind::Cpu;
  else if (text == "auto") d.kind = DeviceSpec::Kind::Auto;
  else if (text == "cuda-emulated") d.kind = DeviceSpec::Kind::Emulated;
  else if (text == "cuda") d.kind = DeviceSpec::Kind::Cuda;
  else if (text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() < 9 &&
           text.find_first_not_of("0123456789", 5) == std::string::npos) {
    d.kind = DeviceSpec::Kind::Cuda;
    d.index = std::atoi(text.c_str() + 5);
  } else {
    throw UsageError("--device " + text + ": expected cpu, auto, cuda, cuda:N or cuda-emulated");
  }
  return d;
}

std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers) {
  switch (device.kind) {
    case DeviceSpec::Kind::Cpu: return make_cpu_backend(workers);
    case DeviceSpec::Kind::Emulated: return make_emulated_backend(workers);
    case DeviceSpec::Kind::Cuda: return gpu::open_backend(device.index, workers);
    case DeviceSpec::Kind::Auto: break;
  }
  const gpu::Inventory inv = gpu::inventory();
  if (!inv.devices.empty()) {
    spdlog::info("device auto: using cuda:0 ({})", inv.devices[0].name);
    return gpu::open_backend(0, workers);
  }
  spdlog::info("device auto: using the CPU ({})", inv.why_none);
  return make_cpu_backend(workers);
}

}  // namespace aug
