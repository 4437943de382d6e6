// Where an Op runs. The CPU backend's context runs on this thread, through the stages' vectorised
// host drivers where they have one and the kernel bodies as host loops otherwise; the GPU
// backend's context (lib/gpu) runs the kernels on a stream of the chosen device, or as host loops
// on an emulated device. Tables and scratch memory are made available on that device and stay
// valid until the context is reset for the next image.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "kernels/core/launch.hpp"

namespace aug {

class KernelContext : public k::Scratch {
 public:
  virtual ~KernelContext() = default;

  virtual k::Exec exec() const = 0;
  // The CPU backend: an Op may call a library that computes its exact arithmetic instead.
  bool cpu() const { return exec().cpu; }

  // Host data (a table computed in double on the host, then rounded) readable by the kernels.
  virtual const void* table(const void* host, std::size_t bytes) = 0;
  // Uninitialised memory on the executing device.
  void* scratch(std::size_t bytes) override = 0;
  // Frees every table and scratch block of the previous image (call when its kernels are done).
  virtual void reset() = 0;

  template <class T>
  const T* table(const std::vector<T>& v) {
    return static_cast<const T*>(table(v.data(), v.size() * sizeof(T)));
  }
};

// The CPU backend's context: this host thread. Tables are used in place (the caller keeps them alive).
class HostKernelContext final : public KernelContext {
 public:
  k::Exec exec() const override { return k::Exec::cpu_backend(); }
  const void* table(const void* host, std::size_t) override { return host; }
  void* scratch(std::size_t bytes) override;
  void reset() override { used_ = 0; }

 private:
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::vector<std::size_t> sizes_;
  std::size_t used_ = 0;  // blocks handed out since the last reset
};

}  // namespace aug
