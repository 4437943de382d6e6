// The GPU backend, written once against DeviceApi: real CUDA devices and emulated ones run the
// same code. One context per device index; everything it creates (streams, pinned staging,
// device buffers, per-image tables) is created with that device current and never leaves it.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/gpu/device_api.hpp"

namespace aug::gpu {

namespace {

// Makes `device` current on the calling thread. It never switches back: the current device is
// per thread, and switching "back" to the default would create a context on device 0.
void guard(DeviceApi& api, int device) {
  if (api.current_device() != device) api.set_device(device);
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// A device or pinned allocation that only grows, and is reused image after image.
class Buffer {
 public:
  Buffer(DeviceApi& api, bool pinned) : api_(&api), pinned_(pinned) {}
  Buffer(Buffer&& o) noexcept : api_(o.api_), pinned_(o.pinned_), p_(o.p_), size_(o.size_) { o.p_ = nullptr; }
  Buffer(const Buffer&) = delete;
  ~Buffer() { release(); }

  void* reserve(std::size_t bytes) {
    if (bytes > size_) {
      release();
      const std::size_t n = round_up(std::max(bytes, size_ + size_ / 2), 1 << 16);
      p_ = pinned_ ? api_->pinned_alloc(n) : api_->device_alloc(n);
      size_ = n;
    }
    return p_;
  }
  void release() {
    if (p_) pinned_ ? api_->pinned_free(p_) : api_->device_free(p_);
    p_ = nullptr;
    size_ = 0;
  }
  void* data() const { return p_; }
  std::size_t size() const { return size_; }

 private:
  DeviceApi* api_;
  bool pinned_;
  void* p_ = nullptr;
  std::size_t size_ = 0;
};

// Bump allocation in chunks: what it hands out stays valid until reset(), which the backend
// calls only once the image's stream is idle. Chunks are kept; after an image that needed
// several, they are merged into one, so a steady stream of images allocates nothing.
class Arena {
 public:
  Arena(DeviceApi& api, bool pinned) : api_(api), pinned_(pinned) {}

  void* take(std::size_t bytes) {
    bytes = round_up(std::max<std::size_t>(bytes, 1), 256);
    while (current_ < chunks_.size() && offset_ + bytes > chunks_[current_].size()) {
      ++current_;
      offset_ = 0;
    }
    if (current_ == chunks_.size()) {
      chunks_.emplace_back(api_, pinned_);
      chunks_.back().reserve(std::max<std::size_t>(bytes, 1 << 20));
      offset_ = 0;
    }
    used_ += bytes;
    void* p = static_cast<char*>(chunks_[current_].data()) + offset_;
    offset_ += bytes;
    return p;
  }

  void reset() {
    if (chunks_.size() > 1) {
      std::size_t total = 0;
      for (const auto& c : chunks_) total += c.size();
      chunks_.clear();
      chunks_.emplace_back(api_, pinned_);
      chunks_.back().reserve(std::max(total, used_));
    }
    current_ = offset_ = used_ = 0;
  }

 private:
  DeviceApi& api_;
  bool pinned_;
  std::vector<Buffer> chunks_;
  std::size_t current_ = 0, offset_ = 0, used_ = 0;
};

// One worker's share of the device: a stream and its buffers, created and destroyed with the
// device current.
struct Slot {
  explicit Slot(DeviceApi& api)
      : api(api),
        stream(api.stream_create()),
        start(api.event_create()),
        end(api.event_create()),
        a(api, false),
        b(api, false),
        pinned_in(api, true),
        pinned_out(api, true),
        tables(api, false),
        staging(api, true),
        scratch(api, false) {}
  Slot(const Slot&) = delete;
  ~Slot() {
    try {
      api.stream_sync(stream);
      api.event_destroy(start);
      api.event_destroy(end);
      api.stream_destroy(stream);
    } catch (...) {  // a faulted device: its error has been reported where it happened
    }
  }

  DeviceApi& api;
  Stream stream;
  void *start, *end;             // events around each image's work
  double busy_ms = 0;
  Buffer a, b;                   // images, ping-pong
  Buffer pinned_in, pinned_out;  // page-locked staging for the transfers
  Arena tables, staging;         // per-image tables on the device, and their pinned copies
  Arena scratch;                 // intermediates of multi-pass kernels
};

class SlotKernelContext final : public KernelContext {
 public:
  SlotKernelContext(DeviceApi& api, Slot& slot) : api_(api), slot_(slot) {}

  k::Exec exec() const override { return k::Exec{!api_.emulated(), slot_.stream}; }

  const void* table(const void* host, std::size_t bytes) override {
    void* pinned = slot_.staging.take(bytes);
    std::memcpy(pinned, host, bytes);
    void* device = slot_.tables.take(bytes);
    api_.copy_to_device(device, pinned, bytes, slot_.stream);
    return device;
  }
  void* scratch(std::size_t bytes) override { return slot_.scratch.take(bytes); }
  void reset() override {
    slot_.tables.reset();
    slot_.staging.reset();
    slot_.scratch.reset();
  }

 private:
  DeviceApi& api_;
  Slot& slot_;
};

class GpuBackend final : public Backend {
 public:
  GpuBackend(DeviceApi& api, int device, int workers, std::string name, std::unique_ptr<DeviceApi> owned)
      : owned_(std::move(owned)), api_(api), device_(device), name_(std::move(name)) {
    guard(api_, device_);
    for (int w = 0; w < workers; ++w) slots_.push_back(std::make_unique<Slot>(api_));
  }

  ~GpuBackend() override {
    guard(api_, device_);
    slots_.clear();
  }

  std::string name() const override { return name_; }

  double busy_seconds() const override {
    double ms = 0;
    for (const auto& s : slots_) ms += s->busy_ms;  // read after the workers are done
    return ms / 1000;
  }

  Image run(const Plan& plan, const Image& in, int worker) override {
    std::vector<Work> work;
    for (const Step& step : plan.steps)
      if (step.op) work.push_back({step.op.get(), &step});
    return run_work(work, in, worker);
  }

  Image run_op(const Op& op, const Image& in, int worker) override { return run_work({{&op, nullptr}}, in, worker); }

 private:
  struct Work {
    const Op* op;
    const Step* step;  // for messages; null for a lone op
  };

  // The operations, uploaded once, run back to back on the worker's stream, downloaded once.
  Image run_work(const std::vector<Work>& work, const Image& in, int worker) {
    if (work.empty()) return in;
    std::size_t largest = in.shape().bytes();
    for (const Work& w : work) largest = std::max(largest, w.op->out_shape().bytes());

    guard(api_, device_);
    Slot& s = *slots_.at(static_cast<std::size_t>(worker));
    SlotKernelContext ctx(api_, s);
    try {
      s.a.reserve(largest);
      s.b.reserve(largest);
      std::memcpy(s.pinned_in.reserve(in.shape().bytes()), in.data(), in.shape().bytes());
    } catch (const OutOfMemory& e) {
      throw InputError(name_ + ": " + e.what() + " for a " + to_string(in.shape()) + " image and its largest stage output (" +
                       std::to_string(largest >> 20) + " MiB)");
    }
    api_.event_record(s.start, s.stream);
    api_.copy_to_device(s.a.data(), s.pinned_in.data(), in.shape().bytes(), s.stream);

    ImageRef cur{s.a.data(), in.shape(), in.shape().row_bytes()};
    for (const Work& w : work) {
      const Shape& out = w.op->out_shape();
      const ImageRef next{cur.data == s.a.data() ? s.b.data() : s.a.data(), out, out.row_bytes()};
      auto where = [&] {
        return w.step ? w.step->node->name + " (" + w.step->node->pointer + ")" : std::string("a stage");
      };
      try {
        w.op->run(ctx, cur, next);
      } catch (const OutOfMemory& e) {
        throw InputError(where() + " on " + name_ + ": " + e.what());
      } catch (const DeviceError&) {
        throw;
      } catch (const std::exception& e) {
        throw InputError(where() + " failed on " + name_ + ": " + e.what());
      }
      cur = next;
    }
    const std::size_t bytes = cur.shape.bytes();
    api_.copy_to_host(s.pinned_out.reserve(bytes), cur.data, bytes, s.stream);
    api_.event_record(s.end, s.stream);
    api_.stream_sync(s.stream);  // this worker's stream only; throws DeviceError on a device fault
    s.busy_ms += api_.event_elapsed_ms(s.start, s.end);
    Image result(cur.shape);
    std::memcpy(result.data(), s.pinned_out.data(), bytes);
    ctx.reset();
    return result;
  }

 private:
  std::unique_ptr<DeviceApi> owned_;
  DeviceApi& api_;
  int device_;
  std::string name_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

std::string listing(const Inventory& inv) {
  if (inv.devices.empty()) return "there is no usable CUDA GPU: " + inv.why_none;
  std::string s = "this machine has ";
  for (std::size_t i = 0; i < inv.devices.size(); ++i)
    s += (i ? ", " : "") + std::string("cuda:") + std::to_string(inv.devices[i].index) + " (" + inv.devices[i].name + ")";
  return s;
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(DeviceApi& api, int device, int workers, const std::string& name) {
  return std::make_unique<GpuBackend>(api, device, workers, name, nullptr);
}

std::string cuda_version(int v) {
  return v ? std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) : std::string("none");
}

Inventory inventory() {
  Inventory inv;
  DeviceApi* api = cuda_runtime_api();
  if (!api) {
    inv.why_none = "this augment was built without CUDA";
    return inv;
  }
  inv.built_with_cuda = true;
  inv.driver_version = api->driver_version();
  inv.runtime_version = api->runtime_version();
  std::string why;
  const int n = api->device_count(why);
  std::vector<std::string> too_old;
  for (int i = 0; i < n; ++i) {
    const DeviceInfo d = api->properties(i);
    if (d.cc_major * 10 + d.cc_minor < 75)
      too_old.push_back("cuda:" + std::to_string(i) + " " + d.name + " has compute capability " +
                        std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + ", below the 7.5 this build needs");
    else inv.devices.push_back(d);
  }
  if (inv.devices.empty()) inv.why_none = n == 0 ? why : too_old.front();
  return inv;
}

std::unique_ptr<Backend> open_backend(int index, int workers) {
  const Inventory inv = inventory();
  for (const auto& d : inv.devices)
    if (d.index == index) return make_gpu_backend(*cuda_runtime_api(), index, workers, "cuda:" + std::to_string(index));
  throw DeviceError("cuda:" + std::to_string(index) + " is not available: " + listing(inv) + "; use --device cpu" +
                    (inv.devices.empty() ? "" : " or one of those"));
}

double time_kernels(DeviceApi& api, int device, const Op& op, const Image& in, int repeats) {
  guard(api, device);
  Slot s(api);
  SlotKernelContext ctx(api, s);
  const std::size_t in_bytes = in.shape().bytes(), out_bytes = op.out_shape().bytes();
  std::memcpy(s.pinned_in.reserve(in_bytes), in.data(), in_bytes);
  api.copy_to_device(s.a.reserve(in_bytes), s.pinned_in.data(), in_bytes, s.stream);
  s.b.reserve(out_bytes);
  const ImageRef src{s.a.data(), in.shape(), in.shape().row_bytes()};
  const ImageRef dst{s.b.data(), op.out_shape(), op.out_shape().row_bytes()};
  op.run(ctx, src, dst);  // warm up (and size the arenas)
  api.stream_sync(s.stream);
  ctx.reset();
  double total = 0;
  for (int r = 0; r < repeats; ++r) {
    api.event_record(s.start, s.stream);
    op.run(ctx, src, dst);
    api.event_record(s.end, s.stream);
    api.stream_sync(s.stream);
    total += api.event_elapsed_ms(s.start, s.end);
    ctx.reset();
  }
  return total / repeats;
}

double copy_bandwidth_gbs(DeviceApi& api, int device, std::size_t bytes) {
  guard(api, device);
  Buffer a(api, false), b(api, false);
  a.reserve(bytes);
  b.reserve(bytes);
  const Stream stream = api.stream_create();
  void *start = api.event_create(), *end = api.event_create();
  api.copy_on_device(b.data(), a.data(), bytes, stream);  // warm up
  api.event_record(start, stream);
  for (int r = 0; r < 10; ++r) api.copy_on_device(b.data(), a.data(), bytes, stream);
  api.event_record(end, stream);
  api.stream_sync(stream);
  const double ms = api.event_elapsed_ms(start, end) / 10;
  api.event_destroy(start);
  api.event_destroy(end);
  api.stream_destroy(stream);
  return 2.0 * bytes / (ms * 1e6);
}

std::unique_ptr<Backend> open_emulated_backend(int workers) {
  auto api = make_emulated_api();
  DeviceApi& ref = *api;
  return std::make_unique<GpuBackend>(ref, 0, workers, "cuda-emulated", std::move(api));
}

}  // namespace aug::gpu
