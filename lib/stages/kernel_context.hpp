// Where an Op runs. The CPU backend's context runs on this thread, through the stages' vectorised
// host drivers where they have one and the kernel bodies as host loops otherwise; the GPU
// backend's context (lib/gpu) runs the kernels on a stream of the chosen device, or as host loops
// on an emulated device. Tables and scratch memory are made available on that device and stay
// valid until the context is reset for the next image.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/core/launch.hpp"

namespace aug {

// An allocator whose resize leaves new values uninitialised (no zeroing pass): for the large
// per-image planes an Op writes in full before it reads them (weather layers).
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using PlaneVector = std::vector<T, UninitAllocator<T>>;

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

  template <class T, class A>
  const T* table(const std::vector<T, A>& v) {
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
