// The GPU backend, written once against DeviceApi: real CUDA devices and emulated ones run the
// same code. One context per device index; everything it creates (streams, pinned staging,
// device buffers, per-image tables) is created with that device current and never leaves it.
// A few slots (stream + buffers) per device are borrowed by the workers one image at a time.
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/codec/jpeg_codec.hpp"
#include "kernels/core/probe.hpp"
#include "lib/core/error.hpp"
#include "lib/core/free_buffers.hpp"
#include "lib/exec/backend.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/io/jpeg_coefficients.hpp"

namespace aug::gpu {

namespace {

// Makes `device` current on the calling thread. It never switches back: the current device is
// per thread, and switching "back" to the default would create a context on device 0.
void guard(DeviceApi& api, int device) {
  if (api.current_device() != device) api.set_device(device);
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Memory a slot has outgrown, kept until the device is idle or memory is short: on CUDA, freeing
// device or pinned memory waits for the whole device, stalling the other slots' streams.
class Retired {
 public:
  explicit Retired(DeviceApi& api) : api_(api) {}
  Retired(const Retired&) = delete;
  ~Retired() { free_all(); }

  void add(void* p, bool pinned) { list_.emplace_back(p, pinned); }
  void free_all() noexcept {
    for (const auto& [p, pinned] : list_) try {
        pinned ? api_.pinned_free(p) : api_.device_free(p);
      } catch (...) {
      }
    list_.clear();
  }

 private:
  DeviceApi& api_;
  std::vector<std::pair<void*, bool>> list_;
};

// A device or pinned allocation that only grows, and is reused image after image. With `retired`,
// what it outgrows goes there instead of being freed.
class Buffer {
 public:
  Buffer(DeviceApi& api, bool pinned, Retired* retired = nullptr) : api_(&api), pinned_(pinned), retired_(retired) {}
  Buffer(Buffer&& o) noexcept : api_(o.api_), pinned_(o.pinned_), retired_(o.retired_), p_(o.p_), size_(o.size_) {
    o.p_ = nullptr;
  }
  Buffer(const Buffer&) = delete;
  ~Buffer() { release(); }

  void* reserve(std::size_t bytes) {
    if (bytes > size_) {
      retire();
      const std::size_t n = round_up(std::max(bytes, size_ + size_ / 2), 1 << 16);
      p_ = pinned_ ? api_->pinned_alloc(n) : api_->device_alloc(n);
      size_ = n;
    }
    return p_;
  }
  // Gives the memory up: to the retired list when there is one, else back to the device.
  void retire() {
    if (p_ && retired_) {
      retired_->add(p_, pinned_);
      p_ = nullptr;
      size_ = 0;
    }
    release();
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
  Retired* retired_;
  void* p_ = nullptr;
  std::size_t size_ = 0;
};

// Bump allocation in chunks: what it hands out stays valid until reset(), which the backend
// calls only once the image's stream is idle. Chunks are kept; after an image that needed
// several, they are merged into one, so a steady stream of images allocates nothing.
class Arena {
 public:
  Arena(DeviceApi& api, bool pinned, Retired* retired = nullptr) : api_(api), pinned_(pinned), retired_(retired) {}

  void* take(std::size_t bytes) {
    bytes = round_up(std::max<std::size_t>(bytes, 1), 256);
    while (current_ < chunks_.size() && offset_ + bytes > chunks_[current_].size()) {
      ++current_;
      offset_ = 0;
    }
    if (current_ == chunks_.size()) {
      chunks_.emplace_back(api_, pinned_, retired_);
      chunks_.back().reserve(std::max<std::size_t>(bytes, 1 << 20));
      offset_ = 0;
    }
    used_ += bytes;
    void* p = static_cast<char*>(chunks_[current_].data()) + offset_;
    offset_ += bytes;
    return p;
  }

  // Gives its memory back to the device (only when idle and nothing taken is in use).
  void release() noexcept {
    chunks_.clear();
    current_ = offset_ = used_ = 0;
  }

  // Everything taken is free again (and, on an emulated device, poisoned). Never throws: when
  // the merged chunk cannot be had, the next take() allocates what it needs.
  void reset() noexcept {
    std::size_t total = 0;
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      total += chunks_[i].size();
      const std::size_t used = i < current_ ? chunks_[i].size() : i == current_ ? offset_ : 0;
      try {
        if (used) api_.invalidate(chunks_[i].data(), used);
      } catch (...) {
      }
    }
    const std::size_t need = std::max(total, used_);
    current_ = offset_ = used_ = 0;
    if (chunks_.size() <= 1) return;
    for (Buffer& chunk : chunks_) try {
        chunk.retire();
      } catch (...) {
      }
    chunks_.clear();
    try {
      Buffer merged(api_, pinned_, retired_);
      merged.reserve(need);
      chunks_.push_back(std::move(merged));
    } catch (...) {
    }
  }

 private:
  DeviceApi& api_;
  bool pinned_;
  Retired* retired_;
  std::vector<Buffer> chunks_;
  std::size_t current_ = 0, offset_ = 0, used_ = 0;
};

// Page-locked buffers for whole images, handed out as the pixels of Images: an input decoded into
// one is uploaded from it, and a result downloaded into one is encoded from it, with no copy into
// or out of staging on the way. A buffer comes back when the last Image holding it is dropped (on
// an emulated device it is poisoned then), and up to kKeep bytes of them wait for the next images.
// The Images share the pool, so it lives as long as any of them (the DeviceApi must too).
class PinnedPool : public std::enable_shared_from_this<PinnedPool> {
 public:
  static constexpr std::size_t kKeep = std::size_t{256} << 20;

  PinnedPool(DeviceApi& api, int device) : api_(api), device_(device) {}
  PinnedPool(const PinnedPool&) = delete;
  ~PinnedPool() {
    free_.clear([&](void* p) { release(p); });
  }

  // A `shape` image in a pinned buffer of this device; in plain memory when no more page-locked
  // memory can be had (the backend then stages it as before).
  Image image(const Shape& shape) {
    const std::size_t bytes = round_up(std::max<std::size_t>(shape.bytes(), 1), 64);
    const auto [p, size] = take(bytes);
    if (!p) return Image(shape);
    std::shared_ptr<std::uint8_t[]> storage(static_cast<std::uint8_t*>(p),
                                            [self = shared_from_this(), size = size](std::uint8_t* q) { self->give(q, size); });
    return Image(shape, std::move(storage));
  }

  // Whether [p, p + bytes) lies in a buffer this pool has handed out and not had back.
  bool holds(const void* p, std::size_t bytes) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(m_);
    auto it = out_.upper_bound(a);
    if (it == out_.begin()) return false;
    --it;
    return a + bytes <= it->first + it->second;
  }

 private:
  std::pair<void*, std::size_t> take(std::size_t bytes) {
    {
      std::lock_guard lock(m_);
      if (const auto taken = free_.take(bytes); taken.first) {
        out_.emplace(reinterpret_cast<std::uintptr_t>(taken.first), taken.second);
        return taken;
      }
    }
    const std::size_t size = round_up(bytes, 1 << 16);
    void* p = nullptr;
    try {
      guard(api_, device_);  // pinned memory belongs to the current device's context
      p = api_.pinned_alloc(size);
    } catch (const OutOfMemory&) {
      return {nullptr, 0};
    }
    std::lock_guard lock(m_);
    out_.emplace(reinterpret_cast<std::uintptr_t>(p), size);
    return {p, size};
  }

  void give(void* p, std::size_t size) noexcept {
    try {
      api_.invalidate(p, size);
    } catch (...) {
    }
    {
      std::lock_guard lock(m_);
      out_.erase(reinterpret_cast<std::uintptr_t>(p));
      if (free_.keep(p, size, kKeep)) return;
    }
    release(p);
  }

  void release(void* p) noexcept {
    try {
      api_.pinned_free(p);
    } catch (...) {
    }
  }

  DeviceApi& api_;
  const int device_;
  mutable std::mutex m_;
  FreeBuffers free_;                            // given back, kept for the next images
  std::map<std::uintptr_t, std::size_t> out_;  // handed out: address, size
};

// The small tables a slot's images upload (resampling indices and weights, lookup tables, codec
// tables), kept on the device and found again by content: an image whose table is byte for byte one
// already there uploads nothing. kEntries places of kMaxBytes in one device block (allocated at the
// first table, never grown); the least recently used place is taken for a new table, but never one
// the current image uses (its kernels may still be queued), so such a table goes to the image's own
// arena instead.
class TableCache {
 public:
  static constexpr std::size_t kEntries = 32;
  static constexpr std::size_t kMaxBytes = std::size_t{128} << 10;  // a 16-bit lookup table

  explicit TableCache(DeviceApi& api) : block_(api, false) {}

  static bool fits(std::size_t bytes) { return bytes > 0 && bytes <= kMaxBytes; }

  // The device copy of `host` (`bytes` of it), or nullptr when it is not there.
  const void* find(const void* host, std::size_t bytes) {
    const std::uint64_t h = hash(host, bytes);
    for (Entry& e : entries_)
      if (e.bytes == bytes && e.hash == h && std::memcmp(e.host.data(), host, bytes) == 0) {
        e.last_use = ++tick_;
        e.image = image_;
        return e.device;
      }
    return nullptr;
  }

  // Room for `host` on the device, recorded as holding it (the caller uploads it there on the
  // slot's stream), or nullptr when every entry is in use by this image. Throws OutOfMemory.
  void* add(const void* host, std::size_t bytes) {
    if (!block_.data()) block_.reserve(kEntries * kMaxBytes);
    Entry* e = nullptr;
    if (entries_.size() < kEntries) {
      entries_.push_back(Entry{0, 0, 0, 0, {}, static_cast<char*>(block_.data()) + entries_.size() * kMaxBytes});
      e = &entries_.back();
    } else {
      for (Entry& c : entries_)
        if (c.image != image_ && (!e || c.last_use < e->last_use)) e = &c;
      if (!e) return nullptr;
    }
    e->host.assign(static_cast<const std::uint8_t*>(host), static_cast<const std::uint8_t*>(host) + bytes);
    e->bytes = bytes;
    e->hash = hash(host, bytes);
    e->last_use = ++tick_;
    e->image = image_;
    return e->device;
  }

  // The image's work is done (its stream idle): its entries may be replaced from now on.
  void next_image() { ++image_; }

  // Forgets every table and gives the block back to the device.
  void release() noexcept {
    entries_.clear();
    block_.release();
  }

 private:
  struct Entry {
    std::size_t bytes;
    std::uint64_t hash;
    std::uint64_t last_use;
    std::uint64_t image;             // the last image that used it
    std::vector<std::uint8_t> host;  // what the device copy holds
    void* device;                    // its place in the block
  };

  // 64-bit words mixed by multiplies and xor-shifts (not cryptographic: a match is confirmed by memcmp).
  static std::uint64_t hash(const void* p, std::size_t bytes) {
    const auto* b = static_cast<const unsigned char*>(p);
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes;
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, b + i, 8);
      h = (h ^ (w * 0xBF58476D1CE4E5B9ull)) * 0x94D049BB133111EBull;
      h ^= h >> 29;
    }
    for (; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
  }

  Buffer block_;
  std::vector<Entry> entries_;
  std::uint64_t tick_ = 0;
  std::uint64_t image_ = 1;  // entries start at image 0: free to replace
};

// A share of the device that one image at a time borrows: a stream and its buffers, created and
// destroyed with the device current.
struct Slot {
  explicit Slot(DeviceApi& api)
      : api(api),
        stream(api.stream_create()),
        start(api.event_create()),
        end(api.event_create()),
        retired(api),
        a(api, false, &retired),
        b(api, false, &retired),
        pinned_in(api, true, &retired),
        pinned_out(api, true, &retired),
        tables(api, false, &retired),
        staging(api, true, &retired),
        scratch(api, false, &retired),
        cached(api) {}
  Slot(const Slot&) = delete;
  ~Slot() {
    try {
      api.stream_sync(stream);
    } catch (...) {  // a faulted device: its error has been reported where it happened
    }
    try {  // the stream first: work still queued on it may refer to the events
      api.stream_destroy(stream);
    } catch (...) {
    }
    try {
      api.event_destroy(start);
      api.event_destroy(end);
    } catch (...) {
    }
  }

  // An idle slot gives back the device memory earlier images grew it to.
  void release_device_memory() noexcept {
    retired.free_all();
    a.release();
    b.release();
    tables.release();
    scratch.release();
    cached.release();
  }

  // After an image (its stream idle): what it left in the buffers is stale.
  void invalidate() noexcept {
    for (Buffer* buf : {&a, &b, &pinned_in, &pinned_out}) try {
        if (buf->data()) api.invalidate(buf->data(), buf->size());
      } catch (...) {
      }
  }

  DeviceApi& api;
  Stream stream;
  void *start, *end;             // events around each image's work
  double busy_ms = 0;
  Retired retired;               // outgrown buffers, freed when the device is idle (Alone, close)
  Buffer a, b;                   // images, ping-pong
  Buffer pinned_in, pinned_out;  // page-locked staging for the transfers
  Arena tables, staging;         // per-image tables on the device, and their pinned copies
  Arena scratch;                 // intermediates of multi-pass kernels
  TableCache cached;             // small tables kept across images
};

class SlotKernelContext final : public KernelContext {
 public:
  SlotKernelContext(DeviceApi& api, Slot& slot) : api_(api), slot_(slot) {}

  k::Exec exec() const override {
    if (k::HostQueue* queue = api_.host_queue(slot_.stream)) return k::Exec::emulated(queue);
    if (api_.emulated()) return k::Exec::host();
    return k::Exec{true, slot_.stream};
  }

  const void* table(const void* host, std::size_t bytes) override {
    void* device = nullptr;
    if (TableCache::fits(bytes)) {
      if (const void* there = slot_.cached.find(host, bytes)) return there;
      device = slot_.cached.add(host, bytes);
    }
    if (!device) device = slot_.tables.take(bytes);
    void* pinned = slot_.staging.take(bytes);
    std::memcpy(pinned, host, bytes);
    api_.copy_to_device(device, pinned, bytes, slot_.stream);
    return device;
  }
  void* scratch(std::size_t bytes) override { return slot_.scratch.take(bytes); }
  void reset() override {
    slot_.cached.next_image();
    slot_.tables.reset();
    slot_.staging.reset();
    slot_.scratch.reset();
  }

 private:
  DeviceApi& api_;
  Slot& slot_;
};

// Set AUGMENT_SYNC_LAUNCHES=1 to synchronise after every stage, so that a device fault names the
// stage that caused it (slower; for debugging).
bool sync_each_stage() {
  const char* v = std::getenv("AUGMENT_SYNC_LAUNCHES");
  return v && *v && std::string(v) != "0";
}

// Which step a device fault came from. A GPU reports a kernel's fault at the next call that
// waits for it (or at any later launch), not at the launch that caused it, so the fault is put on
// the steps that ran since the device last synchronised; with AUGMENT_SYNC_LAUNCHES=1 that is one.
std::string blame(const std::vector<std::string>& since_sync) {
  if (since_sync.empty()) return "";
  if (since_sync.size() == 1) return " (in " + since_sync.front() + ")";
  std::string list;
  for (const std::string& s : since_sync) list += (list.empty() ? "" : ", ") + s;
  return " (in one of the steps since the device last synchronised: " + list +
         "; AUGMENT_SYNC_LAUNCHES=1 synchronises after each step and names the one)";
}

class GpuBackend final : public Backend {
 public:
  // Slots per device: enough to overlap one image's transfers with another's kernels; more
  // workers share them (decoding and encoding stay on the CPU).
  static constexpr int kMaxSlots = 4;

  GpuBackend(DeviceApi& api, int device, int workers, std::string name)
      : api_(api), device_(device), name_(std::move(name)), pool_(std::make_shared<PinnedPool>(api, device)) {
    api_.set_device(device_);  // always, even when current: it also sets how this device waits
    try {
      for (int w = 0; w < std::clamp(workers, 1, kMaxSlots); ++w) {
        slots_.push_back(std::make_unique<Slot>(api_));
        free_.push_back(slots_.back().get());
      }
    } catch (const OutOfMemory& e) {
      throw DeviceError(name_ + ": cannot open the device: " + e.what());
    }
    probe();
  }

  ~GpuBackend() override {
    try {
      guard(api_, device_);
    } catch (...) {  // a broken device: the slots still free what they hold
    }
    slots_.clear();
  }

  std::string name() const override { return name_; }

  double busy_seconds() const override {
    double ms = 0;
    for (const auto& s : slots_) ms += s->busy_ms;  // read after the workers are done
    return ms / 1000;
  }

  Image run(const Plan& plan, const Image& in, int) override { return run_work(steps(plan), {in, nullptr}, 0).pixels; }

  CodedImage run_coded(const Plan& plan, const CodedImage& in, int jpeg_quality, int) override {
    return run_work(steps(plan), in, jpeg_quality);
  }

  Image run_op(const Op& op, const Image& in, int) override {
    return run_work({{&op, nullptr}}, {in, nullptr}, 0).pixels;
  }

  ImageAllocator input_allocator() override {
    return [pool = pool_](const Shape& shape) { return pool->image(shape); };
  }

 private:
  struct Work {
    const Op* op;
    const Step* step;  // for messages; null for a lone op
  };

  static std::vector<Work> steps(const Plan& plan) {
    std::vector<Work> work;
    for (const Step& step : plan.steps)
      if (step.op) work.push_back({step.op.get(), &step});
    return work;
  }

  // A slot, borrowed for one image and given back however the image ends.
  // While a thread has the device to itself (see Alone), only that thread gets one.
  class Lease {
   public:
    explicit Lease(GpuBackend& b) : b_(b) {
      std::unique_lock lock(b_.m_);
      b_.cv_.wait(lock, [&] { return !b_.free_.empty() && (!b_.alone_ || b_.alone_with_ == std::this_thread::get_id()); });
      slot_ = b_.free_.back();
      b_.free_.pop_back();
    }
    ~Lease() {
      {
        std::lock_guard lock(b_.m_);
        b_.free_.push_back(slot_);
      }
      b_.cv_.notify_all();
    }
    Slot& operator*() const { return *slot_; }

   private:
    GpuBackend& b_;
    Slot* slot_;
  };

  // The device to the calling thread alone, for an image that did not fit beside the others: once
  // every other image's slot is idle (no new one starts meanwhile), the idle slots give back the
  // memory earlier images grew them to. Take it holding no Lease.
  class Alone {
   public:
    explicit Alone(GpuBackend& b) : b_(b) {
      std::unique_lock lock(b_.m_);
      b_.cv_.wait(lock, [&] { return !b_.alone_; });
      b_.alone_ = true;
      b_.alone_with_ = std::this_thread::get_id();
      b_.cv_.wait(lock, [&] { return b_.free_.size() == b_.slots_.size(); });
      for (Slot* slot : b_.free_) slot->release_device_memory();
    }
    ~Alone() {
      {
        std::lock_guard lock(b_.m_);
        b_.alone_ = false;
      }
      b_.cv_.notify_all();
    }

   private:
    GpuBackend& b_;
  };

  // Whatever way an image's work ends, its slot is left idle and clean for the next image.
  struct Settle {
    DeviceApi& api;
    Slot& slot;
    SlotKernelContext& ctx;
    bool synced = false;  // the work ended with its stream synchronised
    ~Settle() {
      if (!synced) try {
          api.stream_sync(slot.stream);
        } catch (...) {  // already reported by whoever met it first
        }
      try {
        ctx.reset();
      } catch (...) {
      }
      slot.invalidate();
    }
  };

  // An image the device's memory cannot hold beside the other images in flight (their slots, and
  // the memory idle slots kept) is run again with the device to itself; one that does not fit even
  // then is an InputError saying so. Images wait; none fails because of another.
  CodedImage run_work(const std::vector<Work>& work, const CodedImage& in, int jpeg_quality) {
    try {
      return attempt(work, in, jpeg_quality, false);
    } catch (const NoRoom&) {
    }
    Alone alone(*this);
    return attempt(work, in, jpeg_quality, true);
  }

  // Out of memory for an image, told (when it is not alone on the device) to try again alone.
  struct NoRoom {};
  [[noreturn]] void out_of_memory(bool alone, const std::string& message) const {
    if (!alone) throw NoRoom{};
    throw InputError(message + (slots_.size() > 1 ? " (with no other image on the device)" : ""));
  }

  // The operations, uploaded once, run back to back on a slot's stream, downloaded once. A JPEG
  // input is uploaded as its coefficients and reconstructed first; with jpeg_quality > 0, an
  // 8-bit gray or RGB result is downloaded as its coefficients at that quality. Pixels or
  // coefficients in the pool's pinned buffers are uploaded from where they are, and a result is
  // downloaded into one, which it then holds; anything else passes through the slot's staging.
  CodedImage attempt(const std::vector<Work>& work, const CodedImage& in, int jpeg_quality, bool alone) {
    if (work.empty() && !in.jpeg && jpeg_quality <= 0) return in;
    const Shape in_shape = in.shape();
    std::size_t largest = in_shape.bytes();
    for (const Work& w : work) largest = std::max(largest, w.op->out_shape().bytes());

    guard(api_, device_);
    std::vector<std::string> since_sync;  // the steps a fault reported now may come from
    Image result;  // before the lease: dropped only once the slot's stream is idle
    std::shared_ptr<JpegCoefficients> coded;  // the same
    Lease lease(*this);
    Slot& s = *lease;
    SlotKernelContext ctx(api_, s);
    Settle settle{api_, s, ctx};
    const void* upload = in.jpeg ? static_cast<const void*>(in.jpeg->coefficients.data()) : in.pixels.data();
    const std::size_t in_bytes = in.jpeg ? in.jpeg->coefficients.size() * sizeof(std::int16_t) : in_shape.bytes();
    const bool in_place = pool_->holds(upload, in_bytes);
    try {
      s.a.reserve(largest);
      s.b.reserve(largest);
      if (!in_place) std::memcpy(s.pinned_in.reserve(in_bytes), upload, in_bytes);
    } catch (const OutOfMemory& e) {
      out_of_memory(alone, name_ + ": " + e.what() + " for a " + to_string(in_shape) +
                               " image and its largest stage output (" + std::to_string(largest >> 20) + " MiB)");
    }
    api_.event_record(s.start, s.stream);
    ImageRef cur{s.a.data(), in_shape, in_shape.row_bytes()};
    if (in.jpeg) {
      codec_step("JPEG decoding", since_sync, alone, [&] {
        auto* coefficients = static_cast<std::int16_t*>(ctx.scratch(in_bytes));
        api_.copy_to_device(coefficients, in_place ? upload : s.pinned_in.data(), in_bytes, s.stream);
        const auto* tables = static_cast<const k::JpegTables*>(ctx.table(&in.jpeg->tables, sizeof in.jpeg->tables));
        k::jpeg_reconstruct(in.jpeg->layout, coefficients, tables, cur.view<std::uint8_t>(), ctx, ctx.exec());
      });
    } else {
      api_.copy_to_device(s.a.data(), in_place ? upload : s.pinned_in.data(), in_bytes, s.stream);
    }

    for (const Work& w : work) {
      const Shape& out = w.op->out_shape();
      const ImageRef next{cur.data == s.a.data() ? s.b.data() : s.a.data(), out, out.row_bytes()};
      auto where = [&] {
        return w.step ? w.step->node->name + " (" + w.step->node->pointer + ")" : std::string("a stage");
      };
      since_sync.push_back(where());
      try {
        w.op->run(ctx, cur, next);
        if (sync_each_stage()) {
          api_.stream_sync(s.stream);
          since_sync.clear();
        }
      } catch (const OutOfMemory& e) {
        out_of_memory(alone, where() + " on " + name_ + ": " + e.what());
      } catch (const k::EarlierFault& e) {
        throw DeviceError(name_ + ": " + e.what() + blame(since_sync));
      } catch (const k::LaunchError& e) {
        // The device refused the launch: nothing more can run on it, whatever the image.
        throw DeviceError(name_ + ": " + where() + ": " + e.what());
      } catch (const DeviceError& e) {
        throw DeviceError(std::string(e.what()) + blame(since_sync));
      } catch (const std::exception& e) {
        throw InputError(where() + " failed on " + name_ + ": " + e.what());
      }
      cur = next;
    }

    const Shape shape = cur.shape;
    const void* result_on_device = cur.data;
    if (jpeg_quality > 0 && shape.dtype == DType::U8 && (shape.channels == 1 || shape.channels == 3)) {
      coded = std::make_shared<JpegCoefficients>();
      coded->layout = k::jpeg_encoder_layout(shape.width, shape.height, shape.channels);
      coded->tables = jpeg_quality_tables(jpeg_quality, shape.channels);
      codec_step("JPEG encoding", since_sync, alone, [&] {
        const std::size_t n = coded->layout.coefficients();
        auto* coefficients = static_cast<std::int16_t*>(ctx.scratch(n * sizeof(std::int16_t)));
        const auto* tables = static_cast<const k::JpegTables*>(ctx.table(&coded->tables, sizeof coded->tables));
        k::jpeg_transform(cur.view<const std::uint8_t>(), coded->layout, tables, coefficients, ctx, ctx.exec());
        result_on_device = coefficients;
      });
    }
    const std::size_t bytes = coded ? coded->layout.coefficients() * sizeof(std::int16_t) : shape.bytes();
    void* download = nullptr;  // the pool's pinned memory, where there was some
    if (coded) {
      coded->coefficients.resize(coded->layout.coefficients(), input_allocator());
      if (pool_->holds(coded->coefficients.data(), bytes)) download = coded->coefficients.data();
    } else {
      result = pool_->image(shape);
      if (pool_->holds(result.data(), bytes)) download = result.data();
    }
    try {
      if (!download) download = s.pinned_out.reserve(bytes);
    } catch (const OutOfMemory& e) {
      out_of_memory(alone, name_ + ": " + e.what() + " for the " + to_string(shape) + " result");
    }
    try {
      api_.copy_to_host(download, result_on_device, bytes, s.stream);
      api_.event_record(s.end, s.stream);
      api_.stream_sync(s.stream);  // this slot's stream only; throws DeviceError on a device fault
    } catch (const DeviceError& e) {
      throw DeviceError(std::string(e.what()) + blame(since_sync));
    }
    settle.synced = true;
    s.busy_ms += api_.event_elapsed_ms(s.start, s.end);
    if (coded) {
      if (download != coded->coefficients.data()) std::memcpy(coded->coefficients.data(), download, bytes);
      return {Image(), std::move(coded)};
    }
    if (download != result.data()) std::memcpy(result.data(), download, bytes);
    return {std::move(result), nullptr};
  }

  // The codec's kernels, with their errors told as the stages' are.
  template <class F>
  void codec_step(const char* what, std::vector<std::string>& since_sync, bool alone, F&& f) {
    since_sync.push_back(what);
    try {
      f();
    } catch (const OutOfMemory& e) {
      out_of_memory(alone, std::string(what) + " on " + name_ + ": " + e.what());
    } catch (const k::EarlierFault& e) {
      throw DeviceError(name_ + ": " + e.what() + blame(since_sync));
    } catch (const k::LaunchError& e) {
      throw DeviceError(name_ + ": " + what + ": " + e.what());
    } catch (const DeviceError& e) {
      throw DeviceError(std::string(e.what()) + blame(since_sync));
    } catch (const std::exception& e) {
      throw InputError(std::string(what) + " failed on " + name_ + ": " + e.what());
    }
  }

  // One small kernel, run and read back: a device that cannot run augment's kernels fails here,
  // when the backend opens, before anything is written.
  void probe() {
    constexpr std::size_t kCount = 4096;
    Slot& s = *slots_.front();
    SlotKernelContext ctx(api_, s);
    try {
      auto* values = static_cast<std::uint32_t*>(s.a.reserve(kCount * sizeof(std::uint32_t)));
      k::probe(values, kCount, ctx.exec());
      api_.copy_to_host(s.pinned_out.reserve(kCount * sizeof(std::uint32_t)), values, kCount * sizeof(std::uint32_t),
                        s.stream);
      api_.stream_sync(s.stream);
    } catch (const std::exception& e) {
      throw DeviceError(name_ + ": cannot run augment's kernels on this device (" + e.what() +
                        "); check that the NVIDIA driver supports this build's CUDA runtime and that the GPU's "
                        "architecture is among those it was built for (augment devices lists both)");
    }
    const auto* got = static_cast<const std::uint32_t*>(s.pinned_out.data());
    for (std::size_t i = 0; i < kCount; ++i)
      if (got[i] != k::probe_value(i))
        throw DeviceError(name_ + ": the probe kernel returned wrong values (element " + std::to_string(i) +
                          ", which mixes in float-to-integer conversions of an infinity, NaN or out-of-range value "
                          "that must equal the host's); this device cannot be trusted with augment's kernels");
    s.invalidate();
  }

  DeviceApi& api_;
  int device_;
  std::string name_;
  std::shared_ptr<PinnedPool> pool_;  // images' pixels in pinned memory (shared with those Images)
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Slot*> free_;
  bool alone_ = false;           // a thread has the device to itself (Alone)
  std::thread::id alone_with_;   // which
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
  return std::make_unique<GpuBackend>(api, device, workers, name);
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

namespace {

// The mean ms of one device-to-device copy of `bytes`: `rounds` times, `per_round` copies back to
// back between two events, then a sync.
double mean_copy_ms(DeviceApi& api, int device, std::size_t bytes, int rounds, int per_round) {
  guard(api, device);
  Buffer a(api, false), b(api, false);
  a.reserve(bytes);
  b.reserve(bytes);
  const Stream stream = api.stream_create();
  void *start = api.event_create(), *end = api.event_create();
  api.copy_on_device(b.data(), a.data(), bytes, stream);  // warm up
  api.stream_sync(stream);
  double total = 0;
  for (int r = 0; r < rounds; ++r) {
    api.event_record(start, stream);
    for (int k = 0; k < per_round; ++k) api.copy_on_device(b.data(), a.data(), bytes, stream);
    api.event_record(end, stream);
    api.stream_sync(stream);
    total += api.event_elapsed_ms(start, end);
  }
  api.event_destroy(start);
  api.event_destroy(end);
  api.stream_destroy(stream);
  return total / (static_cast<double>(rounds) * per_round);
}

}  // namespace

double copy_bandwidth_gbs(DeviceApi& api, int device, std::size_t bytes) {
  return 2.0 * bytes / (mean_copy_ms(api, device, bytes, 1, 10) * 1e6);
}

double copy_time_ms(DeviceApi& api, int device, std::size_t bytes, int repeats) {
  // As time_kernels times an op: one copy between two events.
  return mean_copy_ms(api, device, bytes, repeats, 1);
}

std::unique_ptr<Backend> open_emulated_backend(int index, int workers) {
  const int n = emulated_device_count();
  if (index < 0 || index >= n)
    throw DeviceError("cuda-emulated:" + std::to_string(index) + " does not exist: " +
                      (n == 1 ? std::string("there is one emulated device, cuda-emulated:0")
                              : "the emulated devices are cuda-emulated:0 to cuda-emulated:" + std::to_string(n - 1)) +
                      " (AUGMENT_EMULATED_GPUS sets how many)");
  return std::make_unique<GpuBackend>(emulated_api(), index, workers, "cuda-emulated:" + std::to_string(index));
}

}  // namespace aug::gpu
