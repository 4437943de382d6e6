// The device a user chooses (--device), and the backend that runs on it.
#pragma once

#include <memory>
#include <string>

#include "lib/exec/backend.hpp"

namespace aug {

std::unique_ptr<Backend> make_emulated_backend(int workers);

struct DeviceSpec {
  enum class Kind { Cpu, Auto, Cuda, Emulated };
  Kind kind = Kind::Cpu;
  int index = 0;  // Cuda
  std::string text;
};

// "cpu", "auto", "cuda" (= cuda:0), "cuda:N", "cuda-emulated". Throws UsageError.
DeviceSpec parse_device(const std::string& text);

// Opens the backend for a device choice; "auto" takes cuda:0 when a usable GPU exists and says
// which it took in the log. Throws DeviceError (listing what exists) for an unusable choice.
std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers);

}  // namespace aug
