// The device a user chooses (--device), and the backends that run on it: one device, or several
// GPUs that share a run's images.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/exec/backend.hpp"

namespace aug {

// Emulated device `index` (cuda-emulated:N; AUGMENT_EMULATED_GPUS sets how many exist).
std::unique_ptr<Backend> make_emulated_backend(int workers, int index = 0);

struct DeviceSpec {
  enum class Kind { Cpu, Auto, Cuda, Emulated };
  Kind kind = Kind::Cpu;
  int index = 0;     // Cuda, Emulated
  bool all = false;  // Cuda, Emulated: "cuda:all", "cuda-emulated:all": every device of that kind
  std::string text;
};

// "cpu", "auto", "cuda" (= cuda:0), "cuda:N", "cuda-emulated" (= cuda-emulated:0),
// "cuda-emulated:N". Throws UsageError naming `option`.
DeviceSpec parse_device(const std::string& text, const std::string& option = "--device");

// A --device value: one of parse_device's, or GPUs only: a comma list of cuda:N and
// cuda-emulated:N ("cuda:0,cuda:2"), "cuda:all" or "cuda-emulated:all". Throws UsageError naming
// `option` and the entry at fault (cpu or auto in a list, a device named twice, "all" with
// others). The one parser of device lists: run's --device and verify-devices' --devices.
std::vector<DeviceSpec> parse_devices(const std::string& text, const std::string& option = "--device");

// The devices a choice names, with "all" replaced by every device of its kind (the usable CUDA
// GPUs by index; the emulated ones, AUGMENT_EMULATED_GPUS). Throws DeviceError when "cuda:all"
// finds no GPU.
std::vector<DeviceSpec> expand_devices(const std::vector<DeviceSpec>& devices);

// Opens the backend for a device choice; "auto" takes the first usable GPU (by CUDA index: cuda:0
// unless that one is too old for this build) when one exists and says which it took in the log.
// Throws DeviceError (listing what exists) for an unusable choice.
std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers);

// The backends of a run and how its workers share them: worker w augments on backend w % n, as
// that backend's worker w / n, so each device gets images as fast as its workers take them.
class DeviceSet {
 public:
  // Opens every device of `devices` (already expanded; see expand_devices), each with its own
  // context and slots. `workers` must be at least the number of devices.
  DeviceSet(const std::vector<DeviceSpec>& devices, int workers);

  std::size_t size() const { return backends_.size(); }
  std::size_t index_of(int worker) const { return static_cast<std::size_t>(worker) % backends_.size(); }
  Backend& backend(std::size_t i) const { return *backends_[i]; }
  Backend& backend_of(int worker) const { return *backends_[index_of(worker)]; }
  int local_worker(int worker) const { return worker / static_cast<int>(backends_.size()); }
  // "cuda:0" or "cuda:0,cuda:2".
  std::string names() const;

 private:
  std::vector<std::unique_ptr<Backend>> backends_;
};

}  // namespace aug
