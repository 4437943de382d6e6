// Devices emulated on the host, as strict as a GPU ("cuda-emulated:N"). What CI runs the GPU
// backend on, so it must catch what a GPU would punish:
//  - Distinct memory. Each emulated device has its own mapped regions for device and for pinned
//    allocations. An allocation is poisoned (every byte 0xFF) when made and when the backend
//    invalidates it, ends at a guard page, and is made inaccessible when freed (its addresses are
//    never reused), so uninitialised reads give wrong pixels and a use after free faults.
//  - Red zones. The bytes of an allocation's pages before it, and after it up to the next 256,
//    hold a canary that is checked after every launch: a kernel that wrote out of its buffer is
//    named, with the allocation and the byte.
//  - Checked launches. Every pointer member of a kernel functor (declared with AUG_FIELDS, down
//    to nested records) is checked: one that points into host memory (heap, stack, a static
//    table), into pinned staging, into another emulated device or into freed memory, or that is
//    not aligned for what it points to, fails the launch, naming the kernel and the member.
//  - The GPU's launch geometry. A launch runs block by block with the thread indices, grid caps
//    and stride loops a GPU gives it (kernels/core/launch.hpp), its blocks in a shuffled order, so
//    a kernel whose threads depend on each other's writes gives wrong pixels here too.
//  - Deferred streams. Copies and launches are queued and run, in order, only when the stream is
//    synchronised; a download's destination holds poison until then. A host read before the
//    sync, or a staging buffer refilled before its copy ran, gives wrong pixels.
//  - Copies only between the stream's device memory and pinned memory, in the direction named.
//  - AUGMENT_EMULATED_FAULT=N makes the Nth launch (counted over the process) fault on the device
//    as a GPU's kernel faults: reported at the next synchronisation without the kernel's name, and
//    sticky: every later launch, copy and synchronisation on that device reports it again.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/gpu/device_api.hpp"

namespace aug::gpu {

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kRegionBytes = std::size_t{64} << 30;  // address space per region, reserved, not committed
constexpr unsigned char kPoison = 0xFF;                       // 255 in u8/u16, NaN in f32
constexpr unsigned char kCanary = 0xA7;                       // the red zones around an allocation

thread_local int t_current = -1;
using Clock = std::chrono::steady_clock;

enum class Memory { Device, Pinned };

std::string size_text(std::size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

std::string demangle(const std::type_info& t) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> s(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && s ? s.get() : t.name();
}

// The name of the member of a functor at byte `offset`, down to the innermost declared field.
std::string member_at(k::FieldList (*fields)(), std::size_t offset) {
  if (fields) {
    const k::FieldList list = fields();
    for (const k::Field& f : list.fields) {
      if (!f.name) break;
      if (offset < f.offset || offset >= f.offset + f.size) continue;
      if (f.nested) {
        const std::string inner = member_at(f.nested, offset - f.offset);
        if (inner.rfind("the member at", 0) != 0) return std::string(f.name) + "." + inner;
      }
      return f.size > sizeof(void*) ? std::string(f.name) + " (its byte " + std::to_string(offset - f.offset) + ")"
                                    : std::string(f.name);
    }
  }
  return "the member at byte " + std::to_string(offset);
}

// A functor's pointer members, down to the innermost declared fields: where each is, and the
// alignment of what it points to.
struct PointerWord {
  std::size_t offset, align;
};
void add_pointer_words(k::FieldList (*fields)(), std::size_t base, std::vector<PointerWord>& out) {
  if (!fields) return;
  const k::FieldList list = fields();
  for (const k::Field& f : list.fields) {
    if (!f.name) break;
    if (f.pointer) out.push_back({base + f.offset, f.pointee_align});
    else if (f.nested) add_pointer_words(f.nested, base + f.offset, out);
  }
}
std::vector<PointerWord> pointer_words(k::FieldList (*fields)()) {
  std::vector<PointerWord> out;
  add_pointer_words(fields, 0, out);
  return out;
}

std::string member_name(k::FieldList (*fields)(), std::size_t offset) {
  const std::string m = member_at(fields, offset);
  return m.rfind("the member at", 0) == 0 ? m : "member " + m;
}

// The host's own mappings (heap, stacks, the executable's and libraries' data), read from
// /proc/self/maps, to tell a host pointer from an integer that only looks like an address.
struct HostMapping {
  std::uintptr_t begin, end;
  std::string name;
};
std::vector<HostMapping> host_mappings() {
  std::vector<HostMapping> maps;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, name;
    fields >> range >> perms >> offset >> dev >> inode;
    std::getline(fields >> std::ws, name);
    const std::size_t dash = range.find('-');
    if (dash == std::string::npos || perms.empty() || perms[0] != 'r') continue;  // unreadable: not data
    maps.push_back({std::stoull(range.substr(0, dash), nullptr, 16), std::stoull(range.substr(dash + 1), nullptr, 16),
                    name.empty() ? "an anonymous mapping (heap or a thread's stack)" : name});
  }
  return maps;
}

class EmulatedApi;

struct Event {
  Clock::time_point at{};
  bool complete = false;
};

// An emulated stream: the work queued on it since its last synchronisation.
class EmulatedStream final : public k::HostQueue {
 public:
  EmulatedStream(EmulatedApi& api, int device) : api_(api), device_(device) {}
  void launch(k::HostLaunch&& l) override;

  int device() const { return device_; }
  void enqueue(std::string what, std::function<void()> work) { pending_.push_back({std::move(what), std::move(work)}); }
  // Runs what is queued, in order. A failure stops the stream like a device fault. An injected
  // fault is told as a GPU tells it (no kernel named); the emulator's own checks name theirs.
  void drain(const std::string& device_name);
  void discard() { pending_.clear(); }

 private:
  struct Work {
    std::string what;
    std::function<void()> run;
  };
  EmulatedApi& api_;
  int device_;
  std::vector<Work> pending_;
};

class EmulatedApi final : public DeviceApi {
 public:
  EmulatedApi(int devices, std::string name) : devices_(devices), name_(std::move(name)), regions_(2 * devices) {
    if (const char* v = std::getenv("AUGMENT_EMULATED_FAULT")) fault_at_ = std::strtoll(v, nullptr, 10);
  }
  ~EmulatedApi() override {
    for (const Region& r : regions_)
      if (r.base) munmap(r.base, kRegionBytes);
  }

  bool emulated() const override { return true; }
  int driver_version() override { return 0; }
  int runtime_version() override { return 0; }
  int device_count(std::string&) override { return devices_; }
  DeviceInfo properties(int device) override { return DeviceInfo{device, name_, 0, 0, 0}; }

  void set_device(int device) override {
    if (device < 0 || device >= devices_)
      throw DeviceError(device_name(device) + " does not exist: " + std::to_string(devices_) + " emulated device" +
                        (devices_ == 1 ? "" : "s") + " (set AUGMENT_EMULATED_GPUS for more)");
    t_current = device;
  }
  int current_device() override { return t_current < 0 ? 0 : t_current; }

  void* device_alloc(std::size_t bytes) override { return allocate(bytes, Memory::Device); }
  void device_free(void* p) override { release(p, Memory::Device); }
  void* pinned_alloc(std::size_t bytes) override { return allocate(bytes, Memory::Pinned); }
  void pinned_free(void* p) override { release(p, Memory::Pinned); }

  Stream stream_create() override { return new EmulatedStream(*this, current_device()); }
  void stream_destroy(Stream s) override {
    auto* stream = as_stream(s, "stream_destroy");
    std::unique_ptr<EmulatedStream> owned(stream);
    if (fault_of(stream->device()).empty())
      stream->drain(device_name(stream->device()));  // as on a GPU, queued work still completes
    else
      stream->discard();  // a faulted device runs nothing more
  }
  k::HostQueue* host_queue(Stream s) override { return as_stream(s, "a launch"); }

  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check_sticky(as_stream(s, "copy_to_device")->device(), "copy_to_device");
    EmulatedStream* stream = checked_copy("copy_to_device", dst, Memory::Device, src, Memory::Pinned, bytes, s);
    stream->enqueue("copy_to_device", [dst, src, bytes] { std::memcpy(dst, src, bytes); });
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check_sticky(as_stream(s, "copy_to_host")->device(), "copy_to_host");
    EmulatedStream* stream = checked_copy("copy_to_host", dst, Memory::Pinned, src, Memory::Device, bytes, s);
    std::memset(dst, kPoison, bytes);  // undefined until the stream is synchronised
    stream->enqueue("copy_to_host", [dst, src, bytes] { std::memcpy(dst, src, bytes); });
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream s) override {
    EmulatedStream* stream = checked_copy("copy_on_device", dst, Memory::Device, src, Memory::Device, bytes, s);
    stream->enqueue("copy_on_device", [dst, src, bytes] { std::memmove(dst, src, bytes); });
  }
  void stream_sync(Stream s) override {
    auto* stream = as_stream(s, "stream_sync");
    check_sticky(stream->device(), "stream_sync");
    stream->drain(device_name(stream->device()));
  }
  void invalidate(void* p, std::size_t bytes) override {
    if (!p || !bytes) return;
    std::lock_guard lock(m_);
    const Found f = find(p);
    if (f.state != Found::Live || static_cast<char*>(p) + bytes > f.base + f.alloc->bytes)
      throw DeviceError("invalidate: [" + address(p) + ", +" + std::to_string(bytes) + ") is not inside one live allocation");
    std::memset(p, kPoison, bytes);
  }

  void* event_create() override { return new Event; }
  void event_destroy(void* e) override { delete static_cast<Event*>(e); }
  void event_record(void* e, Stream s) override {
    auto* event = static_cast<Event*>(e);
    check_sticky(as_stream(s, "event_record")->device(), "event_record");
    event->complete = false;
    as_stream(s, "event_record")->enqueue("event_record", [event] {
      event->at = Clock::now();
      event->complete = true;
    });
  }
  double event_elapsed_ms(void* a, void* b) override {
    const auto *start = static_cast<Event*>(a), *end = static_cast<Event*>(b);
    if (!start->complete || !end->complete)
      throw DeviceError("event_elapsed_ms: an event has not completed (synchronise its stream first)");
    return std::chrono::duration<double, std::milli>(end->at - start->at).count();
  }

  // The first red zone of `device`'s memory that a kernel wrote into, described, or ""; the
  // canary is put back so that the next launch is not blamed for it.
  std::string red_zone_damage(int device) {
    std::lock_guard lock(m_);
    for (const auto& [at, a] : live_) {
      if (a.device != device) continue;
      char* const p = reinterpret_cast<char*>(at);
      const auto damaged = [](char* from, char* to) {
        for (char* c = from; c < to; ++c)
          if (static_cast<unsigned char>(*c) != kCanary) return c;
        return to;
      };
      char* const before = damaged(a.pages, p);
      char* const after = damaged(p + a.bytes, p + a.size);
      if (before == p && after == p + a.size) continue;
      const std::string what = "an allocation of " + std::to_string(a.bytes) + " bytes of " + kind(a.memory);
      const std::string text = before != p ? "wrote " + std::to_string(p - before) + " bytes before the start of " + what
                                           : "wrote past the end of " + what + " (its byte " +
                                                 std::to_string(after - p) + ")";
      std::memset(a.pages, kCanary, static_cast<std::size_t>(p - a.pages));
      std::memset(p + a.bytes, kCanary, a.size - a.bytes);
      return text;
    }
    return "";
  }

  // The sticky fault of `device` ("" while there is none), and setting it.
  std::string fault_of(int device) {
    std::lock_guard lock(m_);
    const auto it = faults_.find(device);
    return it == faults_.end() ? "" : it->second;
  }
  void set_fault(int device, const std::string& what) {
    std::lock_guard lock(m_);
    faults_.emplace(device, what);
  }
  // Throws the device's sticky fault, if it has one, as the GPU's runtime returns it from a call.
  void check_sticky(int device, const char* call) {
    const std::string f = fault_of(device);
    if (!f.empty()) throw DeviceError(device_name(device) + ": " + call + ": " + f);
  }

  // True for the launch that AUGMENT_EMULATED_FAULT names.
  bool faults() { return fault_at_ > 0 && ++launches_ == fault_at_; }
  std::uint64_t next_launch() { return ++numbered_; }

  // Checks a launch on `stream` before it is queued: the functor may point only into live
  // device memory of the stream's device, which must be the current one.
  void check_launch(const EmulatedStream& stream, const k::HostLaunch& l) {
    const std::string fault = fault_of(stream.device());
    if (!fault.empty())
      throw k::EarlierFault("a kernel that ran before \"" + std::string(l.what) + "\" faulted: " + fault);
    const std::string kernel = "kernel \"" + std::string(l.what) + "\" (" + demangle(*l.type) + ")";
    if (stream.device() != current_device())
      throw k::LaunchError(kernel + " launched on a stream of " + device_name(stream.device()) + " while " +
                           device_name(current_device()) + " is current");
    std::vector<HostMapping> maps;
    bool maps_read = false;
    for (const PointerWord& p : pointer_words(l.fields)) {
      std::uintptr_t word;
      std::memcpy(&word, static_cast<const char*>(l.args) + p.offset, sizeof word);
      if (word == 0) continue;  // null
      const std::string problem = classify(word, stream.device(), maps, maps_read);
      if (!problem.empty())
        throw k::LaunchError(kernel + " on " + device_name(stream.device()) + ": " + member_name(l.fields, p.offset) +
                             " points into " + problem +
                             "; a kernel may only read the launching device's memory (upload tables with the "
                             "context's table(), take intermediates from scratch())");
      if (word % p.align != 0)
        throw k::LaunchError(kernel + " on " + device_name(stream.device()) + ": " + member_name(l.fields, p.offset) +
                             " is " + address(reinterpret_cast<const void*>(word)) + ", not a multiple of " +
                             std::to_string(p.align) + " bytes as what it points to needs (a GPU faults on a "
                             "misaligned access)");
    }
  }

 private:
  struct Allocation {
    std::size_t bytes;        // as asked for
    std::size_t size;         // rounded up to 256 bytes, as a GPU's allocator aligns
    char* pages;              // its pages: [pages, pages + mapped), then one guard page
    std::size_t mapped;
    int device;
    Memory memory;
  };
  struct Region {
    char* base = nullptr;
    std::size_t next = 0;  // bytes handed out (never reused)
  };
  struct Found {
    enum State { Outside, Live, Freed } state = Outside;
    int device = 0;
    Memory memory = Memory::Device;
    char* base = nullptr;
    const Allocation* alloc = nullptr;
  };

  std::string device_name(int device) const { return name_ + ":" + std::to_string(device); }
  static std::string address(const void* p) {
    std::ostringstream s;
    s << p;
    return s.str();
  }
  static const char* kind(Memory m) { return m == Memory::Device ? "device memory" : "pinned host memory"; }

  EmulatedStream* as_stream(Stream s, const char* call) {
    if (!s) throw DeviceError(std::string(call) + ": the default stream is not used by augment; pass a stream");
    return static_cast<EmulatedStream*>(s);
  }

  Region& region(int device, Memory m) { return regions_[static_cast<std::size_t>(2 * device + (m == Memory::Pinned))]; }

  void* allocate(std::size_t bytes, Memory m) {
    const int device = current_device();
    if (device >= devices_) throw DeviceError(device_name(device) + " does not exist");
    const std::size_t size = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
    const std::size_t mapped = (size + kPage - 1) / kPage * kPage;
    std::lock_guard lock(m_);
    Region& r = region(device, m);
    if (!r.base) {
      void* base = mmap(nullptr, kRegionBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw OutOfMemory("cannot reserve the emulated device's address space");
      r.base = static_cast<char*>(base);
    }
    if (r.next + mapped + kPage > kRegionBytes)
      throw OutOfMemory("out of " + std::string(kind(m)) + " on " + device_name(device) + " (" +
                        size_text(bytes) + " more needed; the emulated device's address space is used up)");
    char* pages = r.base + r.next;
    r.next += mapped + kPage;  // the guard page after it stays inaccessible
    if (mprotect(pages, mapped, PROT_READ | PROT_WRITE) != 0)
      throw OutOfMemory("out of host memory for " + std::string(kind(m)) + " on " + device_name(device) + " (" +
                        size_text(bytes) + ")");
    // The allocation ends where the guard page starts, so running past it faults; the bytes
    // around it on its pages are its red zones.
    char* p = pages + mapped - size;
    const std::size_t used = std::max<std::size_t>(bytes, 1);
    std::memset(pages, kCanary, mapped);
    std::memset(p, kPoison, used);
    live_[reinterpret_cast<std::uintptr_t>(p)] = Allocation{used, size, pages, mapped, device, m};
    return p;
  }

  void release(void* p, Memory m) {
    if (!p) return;
    std::lock_guard lock(m_);
    const auto it = live_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == live_.end() || it->second.memory != m)
      throw DeviceError(std::string(m == Memory::Device ? "device_free" : "pinned_free") + "(" + address(p) +
                        "): not a live " + kind(m) + " allocation (freed twice, or never allocated)");
    // Inaccessible from now on, and its pages returned: a use after free faults.
    madvise(it->second.pages, it->second.mapped, MADV_DONTNEED);
    mprotect(it->second.pages, it->second.mapped, PROT_NONE);
    live_.erase(it);
  }

  // Where `p` points among the emulated devices' memory (call with m_ held).
  Found find(const void* p) const {
    Found f;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (std::size_t i = 0; i < regions_.size(); ++i) {
      const auto base = reinterpret_cast<std::uintptr_t>(regions_[i].base);
      if (!base || a < base || a >= base + kRegionBytes) continue;
      f.state = Found::Freed;
      f.device = static_cast<int>(i / 2);
      f.memory = i % 2 ? Memory::Pinned : Memory::Device;
      auto it = live_.upper_bound(a);
      if (it != live_.begin()) {
        --it;
        // one past the end still belongs to the allocation (an end pointer)
        if (a <= it->first + it->second.bytes) {
          f.state = Found::Live;
          f.base = reinterpret_cast<char*>(it->first);
          f.alloc = &it->second;
        }
      }
      return f;
    }
    return f;
  }

  // Why a functor word must not travel to `device`, or "" when it may (or is not a pointer).
  std::string classify(std::uintptr_t word, int device, std::vector<HostMapping>& maps, bool& maps_read) {
    {
      std::lock_guard lock(m_);
      const Found f = find(reinterpret_cast<const void*>(word));
      if (f.state == Found::Live && f.device == device && f.alloc->memory == Memory::Device) return "";
      if (f.state == Found::Live)
        return f.device == device ? "pinned host memory (a staging buffer), not device memory"
                                  : std::string(kind(f.alloc->memory)) + " of " + device_name(f.device);
      if (f.state == Found::Freed)
        return "freed (or never allocated) " + std::string(kind(f.memory)) + " of " + device_name(f.device);
    }
    if (word < kPage || word >= (std::uintptr_t{1} << 47)) return "an invalid address";
    if (!maps_read) {
      maps = host_mappings();
      maps_read = true;
    }
    for (const HostMapping& m : maps)
      if (word >= m.begin && word < m.end) return "host memory (" + m.name + ")";
    return "memory that is not mapped (a dangling or uninitialised pointer)";
  }

  EmulatedStream* checked_copy(const char* call, void* dst, Memory dst_kind, const void* src, Memory src_kind,
                               std::size_t bytes, Stream s) {
    EmulatedStream* stream = as_stream(s, call);
    const int device = stream->device();
    std::lock_guard lock(m_);
    auto check = [&](const void* p, Memory want, const char* role) {
      const Found f = find(p);
      std::string problem;
      if (f.state != Found::Live) problem = f.state == Found::Freed ? "freed memory" : "memory augment did not allocate on a device (plain host memory)";
      else if (f.alloc->memory != want) problem = kind(f.alloc->memory);
      else if (f.device != device) problem = std::string(kind(want)) + " of " + device_name(f.device);
      else if (static_cast<const char*>(p) + bytes > f.base + f.alloc->bytes)
        problem = "an allocation of " + std::to_string(f.alloc->bytes) + " bytes, " + std::to_string(bytes) +
                  " bytes from byte " + std::to_string(static_cast<const char*>(p) - f.base) + " run past its end";
      if (!problem.empty())
        throw DeviceError(device_name(device) + ": " + call + ": the " + role + " must be " + kind(want) + " of " +
                          device_name(device) + ", not " + problem);
    };
    if (bytes == 0) return stream;
    check(dst, dst_kind, "destination");
    check(src, src_kind, "source");
    return stream;
  }

  int devices_;
  std::string name_;
  std::mutex m_;
  std::vector<Region> regions_;               // device and pinned, per device
  std::map<std::uintptr_t, Allocation> live_;  // by address
  std::map<int, std::string> faults_;          // sticky faults, by device
  long long fault_at_ = 0;
  std::atomic<long long> launches_{0};
  std::atomic<std::uint64_t> numbered_{0};
};

// What a GPU's runtime says of an injected fault.
constexpr const char* kInjectedFault = "an illegal memory access was encountered (AUGMENT_EMULATED_FAULT)";
struct InjectedFault {};

void EmulatedStream::drain(const std::string& device_name) {
  std::vector<Work> work;
  work.swap(pending_);
  for (Work& w : work) {
    try {
      w.run();
    } catch (const InjectedFault&) {
      api_.set_fault(device_, kInjectedFault);
      throw DeviceError(device_name + ": " + kInjectedFault);
    } catch (const std::exception& e) {
      throw DeviceError(device_name + ": " + w.what + " failed on the device: " + e.what());
    }
  }
}

void EmulatedStream::launch(k::HostLaunch&& l) {
  api_.check_launch(*this, l);
  std::function<void()> run;
  if (api_.faults()) {
    run = [] { throw InjectedFault{}; };
  } else {
    // The blocks in an order drawn from the launch's number: any order is one a GPU may take.
    run = [this, blocks = l.blocks, block = std::move(l.block), seed = api_.next_launch()] {
      std::vector<std::uint32_t> order(blocks);
      for (std::size_t b = 0; b < blocks; ++b) order[b] = static_cast<std::uint32_t>(b);
      std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
      for (std::size_t b = blocks; b > 1; --b) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        std::swap(order[b - 1], order[state % b]);
      }
      for (const std::uint32_t b : order) block(b);
      const std::string damage = api_.red_zone_damage(device_);
      if (!damage.empty()) throw std::runtime_error(damage);
    };
  }
  enqueue(std::string("kernel \"") + l.what + "\"", std::move(run));
}

}  // namespace

std::unique_ptr<DeviceApi> make_emulated_api(int devices, const std::string& name) {
  return std::make_unique<EmulatedApi>(devices, name);
}

int emulated_device_count() {
  static const int n = [] {
    const char* v = std::getenv("AUGMENT_EMULATED_GPUS");
    if (!v || !*v) return 1;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end || n < 1 || n > 16)
      throw UsageError(std::string("AUGMENT_EMULATED_GPUS=") + v + ": expected a number of emulated GPUs from 1 to 16");
    return static_cast<int>(n);
  }();
  return n;
}

DeviceApi& emulated_api() {
  static const std::unique_ptr<DeviceApi> api = make_emulated_api(emulated_device_count(), "cuda-emulated");
  return *api;
}

}  // namespace aug::gpu
