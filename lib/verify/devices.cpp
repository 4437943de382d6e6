// The devices verify-devices compares: the CPU (always, first: the reference) and the GPUs.
#include <sstream>

#include "lib/run/devices.hpp"
#include "lib/core/text.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/gpu/gpu.hpp"
#include "lib/verify/verify.hpp"

namespace aug {

namespace {

VerifyDevice cpu_device(int workers) {
  return {"cpu", "this CPU; the reference: every stage's input is the CPU's output of the stage before", false,
          make_cpu_backend(workers)};
}

VerifyDevice emulated_device(int index, int workers) {
  auto backend = make_emulated_backend(workers, index);
  std::string name = backend->name();
  return {std::move(name), "no GPU: the GPU backend on an emulated device, the CUDA kernels run on the host", false,
          std::move(backend)};
}

VerifyDevice gpu_device(const gpu::Inventory& inv, const gpu::DeviceInfo& d, int workers) {
  std::ostringstream desc;
  desc << d.name << ", " << d.memory_bytes / (1 << 20) << " MiB, compute capability " << d.cc_major << "." << d.cc_minor
       << ", driver " << gpu::cuda_version(inv.driver_version)
       << ", runtime " << gpu::cuda_version(inv.runtime_version);
  return {"cuda:" + std::to_string(d.index), desc.str(), true, gpu::open_backend(d.index, workers)};
}

}  // namespace

std::vector<VerifyDevice> open_verify_devices(const std::string& list, bool require_gpu, int workers) {
  const gpu::Inventory inv = gpu::inventory();
  std::vector<VerifyDevice> devices;
  devices.push_back(cpu_device(workers));
  if (list.empty() || list == "all") {
    for (const auto& d : inv.devices) devices.push_back(gpu_device(inv, d, workers));
    if (inv.devices.empty()) {
      if (require_gpu) throw DeviceError("--require-gpu: there is no usable CUDA GPU (" + inv.why_none + ")");
      for (int i = 0; i < gpu::emulated_device_count(); ++i) devices.push_back(emulated_device(i, workers));
    }
    return devices;
  }
  // The CPU is always compared, first; the rest is a device list as run's --device takes it.
  std::string others;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (item != "cpu") others += (others.empty() ? "" : ",") + item;
  if (others.empty()) throw UsageError("--devices " + list + ": name at least one device besides the CPU");
  for (const DeviceSpec& spec : expand_devices(parse_devices(others, "--devices"))) {
    if (spec.kind == DeviceSpec::Kind::Emulated) {
      devices.push_back(emulated_device(spec.index, workers));
      continue;
    }
    if (spec.kind != DeviceSpec::Kind::Cuda)
      throw UsageError("--devices: " + spec.text + " is not a device to compare (cuda:N, cuda-emulated:N)");
    bool found = false;
    for (const auto& d : inv.devices)
      if (d.index == spec.index) {
        devices.push_back(gpu_device(inv, d, workers));
        found = true;
      }
    if (!found) gpu::open_backend(spec.index, workers);  // throws the DeviceError listing what exists
  }
  bool gpu = false;
  for (const auto& d : devices) gpu = gpu || d.gpu;
  if (require_gpu && !gpu)
    throw DeviceError("--require-gpu: no GPU among the devices compared" +
                      (inv.devices.empty() ? " (" + inv.why_none + ")" : std::string()));
  if (devices.size() < 2) throw UsageError("--devices " + list + ": name at least one device besides the CPU");
  return devices;
}

}  // namespace aug
