// The device a user chooses (--device), and the backend that runs on it.
#pragma once

#include <memory>
#include <string>

#include "lib/exec/backend.hpp"

namespace aug {

// Emulated device `index` (cuda-emulated:N; AUGMENT_EMULATED_GPUS sets how many exist).
std::unique_ptr<Backend> make_emulated_backend(int workers, int index = 0);

struct DeviceSpec {
  enum class Kind { Cpu, Auto, Cuda, Emulated };
  Kind kind = Kind::Cpu;
  int index = 0;  // Cuda, Emulated
  std::string text;
};

// "cpu", "auto", "cuda" (= cuda:0), "cuda:N", "cuda-emulated" (= cuda-emulated:0),
// "cuda-emulated:N". Throws UsageError.
DeviceSpec parse_device(const std::string& text);

// Opens the backend for a device choice; "auto" takes the first usable GPU (by CUDA index: cuda:0
// unless that one is too old for this build) when one exists and says which it took in the log.
// Throws DeviceError (listing what exists) for an unusable choice.
std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers);

}  // namespace aug
