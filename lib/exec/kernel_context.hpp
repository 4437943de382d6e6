// Where an Op's kernels run. The host context runs kernel bodies as loops on this thread (the CPU
// path for most stages, and the "cuda-emulated" device); the CUDA context (lib/gpu) runs them on a
// stream of the chosen device. Tables and scratch memory are made available on that device and
// stay valid until the context is reset for the next image.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "kernels/launch.hpp"

namespace aug {

class KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual k::Exec exec() const = 0;

  // Host data (a table computed in double on the host, then rounded) readable by the kernels.
  virtual const void* table(const void* host, std::size_t bytes) = 0;
  // Uninitialised memory on the executing device.
  virtual void* scratch(std::size_t bytes) = 0;
  // Frees every table and scratch block of the previous image (call when its kernels are done).
  virtual void reset() = 0;

  template <class T>
  const T* table(const std::vector<T>& v) {
    return static_cast<const T*>(table(v.data(), v.size() * sizeof(T)));
  }
  template <class T>
  T* scratch_of(std::size_t count) {
    return static_cast<T*>(scratch(count * sizeof(T)));
  }
};

// Runs kernels on this host thread. Tables are used in place (the caller keeps them alive).
class HostKernelContext final : public KernelContext {
 public:
  k::Exec exec() const override { return k::Exec::host(); }
  const void* table(const void* host, std::size_t) override { return host; }
  void* scratch(std::size_t bytes) override;
  void reset() override { used_ = 0; }

 private:
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::vector<std::size_t> sizes_;
  std::size_t used_ = 0;  // blocks handed out since the last reset
};

}  // namespace aug
