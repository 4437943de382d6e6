#include "lib/run/devices.hpp"

#include <cstdlib>

#include <spdlog/spdlog.h>

#include "lib/core/error.hpp"
#include "lib/gpu/gpu.hpp"

namespace aug {

std::unique_ptr<Backend> make_emulated_backend(int workers, int index) { return gpu::open_emulated_backend(index, workers); }

namespace {

// "N" after a prefix such as "cuda:", or -1.
int index_after(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) != 0 || text.size() <= prefix.size() || text.size() > prefix.size() + 3 ||
      text.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
    return -1;
  return std::atoi(text.c_str() + prefix.size());
}

}  // namespace

DeviceSpec parse_device(const std::string& text) {
  DeviceSpec d;
  d.text = text;
  if (text == "cpu") d.kind = DeviceSpec::Kind::Cpu;
  else if (text == "auto") d.kind = DeviceSpec::Kind::Auto;
  else if (text == "cuda-emulated") d.kind = DeviceSpec::Kind::Emulated;
  else if (text == "cuda") d.kind = DeviceSpec::Kind::Cuda;
  else if (const int n = index_after(text, "cuda:"); n >= 0) {
    d.kind = DeviceSpec::Kind::Cuda;
    d.index = n;
  } else if (const int e = index_after(text, "cuda-emulated:"); e >= 0) {
    d.kind = DeviceSpec::Kind::Emulated;
    d.index = e;
  } else {
    throw UsageError("--device " + text + ": expected cpu, auto, cuda, cuda:N, cuda-emulated or cuda-emulated:N");
  }
  return d;
}

std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers) {
  switch (device.kind) {
    case DeviceSpec::Kind::Cpu: return make_cpu_backend(workers);
    case DeviceSpec::Kind::Emulated: return make_emulated_backend(workers, device.index);
    case DeviceSpec::Kind::Cuda: return gpu::open_backend(device.index, workers);
    case DeviceSpec::Kind::Auto: break;
  }
  const gpu::Inventory inv = gpu::inventory();
  if (!inv.devices.empty()) {
    // The first usable GPU by its CUDA index: the inventory leaves out GPUs too old for this
    // build, so the first entry need not be cuda:0.
    const gpu::DeviceInfo& first = inv.devices.front();
    spdlog::info("device auto: using cuda:{} ({})", first.index, first.name);
    return gpu::open_backend(first.index, workers);
  }
  spdlog::info("device auto: using the CPU ({})", inv.why_none);
  return make_cpu_backend(workers);
}

}  // namespace aug
