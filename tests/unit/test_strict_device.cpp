// The emulated device is as strict as a GPU: each deliberately broken kernel, op or data flow
// below is a bug class that fills other GPU libraries' trackers (a table left on the host, a table
// made on one GPU and used on another, a download read before its sync, a staging buffer refilled
// before its copy ran, an uninitialised or freed buffer read). Each must be caught here, on a
// machine without a GPU, with a message that says what went wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/core/launch.hpp"
#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/stages/stage.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_strict_device {
namespace {

// `text` contains `part`; the message shows the whole text.
#define EXPECT_MENTIONS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "expected \"" << (part) << "\" in: " << (text)

// out = table[in], per value.
struct ReadTable {
  AUG_FIELDS(ReadTable, in, out, table)
  k::View<const std::uint8_t> in;
  k::View<std::uint8_t> out;
  const std::uint8_t* table;
  AUG_HD void operator()(int x, int y) const {
    for (int c = 0; c < in.channels; ++c) out.at(x, y, c) = table[in.at(x, y, c)];
  }
};

// out = the first bytes of a scratch block it never wrote.
struct ReadScratch {
  AUG_FIELDS(ReadScratch, out, scratch)
  k::View<std::uint8_t> out;
  const std::uint8_t* scratch;
  AUG_HD void operator()(int x, int y) const {
    for (int c = 0; c < out.channels; ++c) out.at(x, y, c) = scratch[(static_cast<std::size_t>(y) * out.width + x) % 4096];
  }
};

std::vector<std::uint8_t> inverting_table() {
  std::vector<std::uint8_t> t(256);
  for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(255 - i);
  return t;
}

// An op that hands its kernel a table from wherever the test says.
class TableOp final : public Op {
 public:
  enum class Source {
    Uploaded,       // right: ctx.table() puts it on the executing device
    HostVector,     // broken: the host copy itself
    FirstDevice,    // broken: uploaded once, on whichever device ran first, then reused
  };
  TableOp(const Shape& s, Source source) : Op(s, s), source_(source), table_(inverting_table()) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const std::uint8_t* t = nullptr;
    switch (source_) {
      case Source::Uploaded: t = ctx.table(table_); break;
      case Source::HostVector: t = table_.data(); break;
      case Source::FirstDevice:
        if (!cached_) cached_ = ctx.table(table_);
        t = cached_;
        break;
    }
    const auto src = in.view<const std::uint8_t>();
    const auto dst = out.view<std::uint8_t>();
    k::for_2d(ReadTable{src, dst, t}, dst.width, dst.height, ctx.exec(), "read table");
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }

 private:
  Source source_;
  std::vector<std::uint8_t> table_;
  mutable const std::uint8_t* cached_ = nullptr;
};

class ScratchOp final : public Op {
 public:
  explicit ScratchOp(const Shape& s) : Op(s, s) {}
  void run(KernelContext& ctx, const ImageRef&, const ImageRef& out) const override {
    const auto* scratch = static_cast<const std::uint8_t*>(ctx.scratch(4096));
    const auto dst = out.view<std::uint8_t>();
    k::for_2d(ReadScratch{dst, scratch}, dst.width, dst.height, ctx.exec(), "read scratch");
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

const Image& picture() {
  static const Image im = testing::sample("chelsea.png");
  return im;
}

TEST(StrictDevice, UploadedTableRunsAndMatchesTheCpu) {
  auto api = gpu::make_emulated_api(1, "emu");
  const auto gpu = gpu::make_gpu_backend(*api, 0, 1, "emu:0");
  const auto cpu = make_cpu_backend(1);
  const TableOp op(picture().shape(), TableOp::Source::Uploaded);
  EXPECT_EQ(testing::compare(gpu->run_op(op, picture(), 0), cpu->run_op(op, picture(), 0)).count, 0u);
}

TEST(StrictDevice, HostTableIsCaught) {
  auto api = gpu::make_emulated_api(1, "emu");
  const auto gpu = gpu::make_gpu_backend(*api, 0, 1, "emu:0");
  const TableOp op(picture().shape(), TableOp::Source::HostVector);
  std::string message;
  try {
    gpu->run_op(op, picture(), 0);
  } catch (const DeviceError& e) {  // the device path is broken, not the image: the run stops
    message = e.what();
  }
  EXPECT_MENTIONS(message, ("kernel \"read table\""));
  EXPECT_MENTIONS(message, ("ReadTable"));
  EXPECT_MENTIONS(message, ("member table points into host memory"));
  // The CPU backend is where a host table belongs: the same op runs there.
  EXPECT_NO_THROW(make_cpu_backend(1)->run_op(op, picture(), 0));
}

TEST(StrictDevice, TableFromTheOtherDeviceIsCaught) {
  auto api = gpu::make_emulated_api(2, "emu");
  const auto gpu0 = gpu::make_gpu_backend(*api, 0, 1, "emu:0");
  const auto gpu1 = gpu::make_gpu_backend(*api, 1, 1, "emu:1");
  const TableOp op(picture().shape(), TableOp::Source::FirstDevice);
  EXPECT_NO_THROW(gpu0->run_op(op, picture(), 0));
  const std::string message = error_of([&] { gpu1->run_op(op, picture(), 0); });
  EXPECT_MENTIONS(message, ("on emu:1: member table points into device memory of emu:0"));
}

TEST(StrictDevice, PinnedStagingInAKernelIsCaught) {
  auto api = gpu::make_emulated_api(1, "emu");
  api->set_device(0);
  const gpu::Stream s = api->stream_create();
  auto* pinned = static_cast<std::uint8_t*>(api->pinned_alloc(256));
  auto* image = static_cast<std::uint8_t*>(api->device_alloc(16 * 3));
  const k::View<std::uint8_t> v{image, 4, 4, 3, 12};
  const std::string message = error_of([&] {
    k::for_2d(ReadTable{k::as_const(v), v, pinned}, 4, 4, k::Exec::emulated(api->host_queue(s)), "read table");
  });
  EXPECT_MENTIONS(message, ("member table points into pinned host memory"));
  api->stream_destroy(s);
  api->pinned_free(pinned);
  api->device_free(image);
}

TEST(StrictDevice, FreedMemoryInAKernelIsCaughtAndFaultsWhenTouched) {
  auto api = gpu::make_emulated_api(1, "emu");
  api->set_device(0);
  const gpu::Stream s = api->stream_create();
  auto* image = static_cast<std::uint8_t*>(api->device_alloc(16 * 3));
  auto* table = static_cast<std::uint8_t*>(api->device_alloc(256));
  api->device_free(table);
  const k::View<std::uint8_t> v{image, 4, 4, 3, 12};
  const std::string message = error_of([&] {
    k::for_2d(ReadTable{k::as_const(v), v, table}, 4, 4, k::Exec::emulated(api->host_queue(s)), "read table");
  });
  EXPECT_MENTIONS(message, ("member table points into freed (or never allocated) device memory of emu:0"));
  EXPECT_DEATH({ [[maybe_unused]] volatile std::uint8_t b = table[0]; }, "");
  // Reading one byte past the end of an allocation faults too (it ends at a guard page).
  EXPECT_DEATH({ [[maybe_unused]] volatile std::uint8_t b = image[256]; }, "");
  api->stream_destroy(s);
  api->device_free(image);
}

TEST(StrictDevice, StreamOfAnotherDeviceIsCaught) {
  auto api = gpu::make_emulated_api(2, "emu");
  api->set_device(0);
  const gpu::Stream s = api->stream_create();
  auto* image = static_cast<std::uint8_t*>(api->device_alloc(16 * 3));
  api->set_device(1);
  const k::View<std::uint8_t> v{image, 4, 4, 3, 12};
  const std::string message = error_of([&] {
    k::for_2d(ReadTable{k::as_const(v), v, image}, 4, 4, k::Exec::emulated(api->host_queue(s)), "read table");
  });
  EXPECT_MENTIONS(message, ("launched on a stream of emu:0 while emu:1 is current"));
  api->set_device(0);
  api->stream_destroy(s);
  api->device_free(image);
}

TEST(StrictDevice, UninitialisedScratchReadsPoison) {
  auto api = gpu::make_emulated_api(1, "emu");
  const auto gpu = gpu::make_gpu_backend(*api, 0, 1, "emu:0");
  const Image im({8, 8, 3, DType::U8});
  const ScratchOp op(im.shape());
  for (int round = 0; round < 2; ++round) {  // fresh, then after the arena was reset
    const Image out = gpu->run_op(op, im, 0);
    const auto* p = static_cast<const std::uint8_t*>(out.data());
    EXPECT_TRUE(std::all_of(p, p + out.shape().bytes(), [](std::uint8_t b) { return b == 0xFF; })) << "round " << round;
  }
}

// The backend's own data flow, done wrong on purpose with the device API.
struct Flow {
  explicit Flow(std::size_t n) : api(gpu::make_emulated_api(1, "emu")), n(n) {
    api->set_device(0);
    s = api->stream_create();
    a = static_cast<std::uint8_t*>(api->device_alloc(n));
    b = static_cast<std::uint8_t*>(api->device_alloc(n));
    in = static_cast<std::uint8_t*>(api->pinned_alloc(n));
    out = static_cast<std::uint8_t*>(api->pinned_alloc(n));
  }
  ~Flow() {
    api->stream_destroy(s);
    for (void* p : {a, b}) api->device_free(p);
    for (void* p : {in, out}) api->pinned_free(p);
  }
  Image download(const std::uint8_t* device, const Shape& shape, bool sync_first) {
    api->copy_to_host(out, device, n, s);
    if (sync_first) api->stream_sync(s);
    Image im(shape);
    std::memcpy(im.data(), out, n);  // with sync_first false: the host reads before the sync
    api->stream_sync(s);
    return im;
  }
  std::unique_ptr<gpu::DeviceApi> api;
  std::size_t n;
  gpu::Stream s;
  std::uint8_t *a, *b, *in, *out;
};

TEST(StrictDevice, DownloadReadBeforeSyncGivesWrongPixels) {
  const Image& im = picture();
  Flow f(im.shape().bytes());
  std::memcpy(f.in, im.data(), f.n);
  f.api->copy_to_device(f.a, f.in, f.n, f.s);
  const auto early = testing::compare(f.download(f.a, im.shape(), false), im);
  EXPECT_GT(early.count, im.shape().bytes() / 2) << "a read before the sync must not see the pixels: " << early.str();
  EXPECT_EQ(testing::compare(f.download(f.a, im.shape(), true), im).count, 0u);
}

TEST(StrictDevice, StagingRefilledBeforeItsCopyRanGivesWrongPixels) {
  const Image& first = picture();
  const Image second = testing::sample("coffee.png").shape() == first.shape() ? testing::sample("coffee.png") : Image(first.shape());
  Flow f(first.shape().bytes());
  std::memcpy(f.in, first.data(), f.n);
  f.api->copy_to_device(f.a, f.in, f.n, f.s);
  std::memcpy(f.in, second.data(), f.n);  // too early: the first copy has not run
  f.api->copy_to_device(f.b, f.in, f.n, f.s);
  const auto d = testing::compare(f.download(f.a, first.shape(), true), first);
  EXPECT_GT(d.count, 0u) << "the first upload must carry the refilled buffer's pixels";
}

TEST(StrictDevice, CopiesCheckDirectionAndMemoryKind) {
  auto api = gpu::make_emulated_api(2, "emu");
  api->set_device(0);
  const gpu::Stream s = api->stream_create();
  void* device = api->device_alloc(1024);
  void* pinned = api->pinned_alloc(1024);
  std::vector<std::uint8_t> host(1024);
  EXPECT_MENTIONS(error_of([&] { api->copy_to_device(device, host.data(), 1024, s); }), ("copy_to_device: the source must be pinned host memory of emu:0, not memory augment did not "
                        "allocate on a device"));
  EXPECT_MENTIONS(error_of([&] { api->copy_to_device(pinned, device, 1024, s); }), ("the destination must be device memory of emu:0, not pinned host memory"));
  EXPECT_MENTIONS(error_of([&] { api->copy_to_host(pinned, device, 2048, s); }), ("run past its end"));
  api->set_device(1);
  void* other = api->device_alloc(1024);
  api->set_device(0);
  EXPECT_MENTIONS(error_of([&] { api->copy_to_device(other, pinned, 1024, s); }), ("the destination must be device memory of emu:0, not device memory of emu:1"));
  EXPECT_MENTIONS(error_of([&] { api->device_free(pinned); }), ("not a live device memory allocation"));
  api->stream_destroy(s);
  api->device_free(device);
  api->pinned_free(pinned);
  api->set_device(1);
  api->device_free(other);
}

TEST(StrictDevice, EventsTellTimeOnlyAfterTheirSync) {
  auto api = gpu::make_emulated_api(1, "emu");
  api->set_device(0);
  const gpu::Stream s = api->stream_create();
  void *a = api->event_create(), *b = api->event_create();
  api->event_record(a, s);
  api->event_record(b, s);
  EXPECT_MENTIONS(error_of([&] { api->event_elapsed_ms(a, b); }), ("has not completed"));
  api->stream_sync(s);
  EXPECT_GE(api->event_elapsed_ms(a, b), 0.0);
  api->event_destroy(a);
  api->event_destroy(b);
  api->stream_destroy(s);
}

// out[x] = out[x - 1] + 1 along one row: each thread reads what another thread of the same launch
// writes, a race on a GPU. Run in order (the CPU backend's host loops) it counts 0, 1, 2, ...
struct CountFromTheLeft {
  AUG_FIELDS(CountFromTheLeft, row, width)
  std::uint8_t* row;
  int width;
  AUG_HD void operator()(int x, int) const { row[x] = static_cast<std::uint8_t>(x == 0 ? 0 : row[x - 1] + 1); }
};

// out[y] += 1 for every row: each row must be visited exactly once.
struct VisitRows {
  AUG_FIELDS(VisitRows, rows)
  std::uint8_t* rows;
  AUG_HD void operator()(int, int y) const { rows[y] += 1; }
};

// Writes `offset` bytes from the start of its buffer (past either end when told to).
struct WriteAt {
  AUG_FIELDS(WriteAt, buffer, offset)
  std::uint8_t* buffer;
  std::ptrdiff_t offset;
  AUG_HD void operator()(std::size_t) const { buffer[offset] = 1; }
};

struct ReadFloats {
  AUG_FIELDS(ReadFloats, in, out)
  const float* in;
  float* out;
  AUG_HD void operator()(std::size_t i) const { out[i] = in[i]; }
};

class EmulatedLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    api_->set_device(0);
    stream_ = api_->stream_create();
  }
  void TearDown() override { api_->stream_destroy(stream_); }
  k::Exec exec() { return k::Exec::emulated(api_->host_queue(stream_)); }
  void sync() { api_->stream_sync(stream_); }

  std::unique_ptr<gpu::DeviceApi> api_ = gpu::make_emulated_api(1, "emu");
  gpu::Stream stream_ = nullptr;
};

TEST_F(EmulatedLaunch, BlocksRunInAnOrderThatShowsThreadsDependingOnEachOther) {
  constexpr int kWidth = 32 * 64;
  auto* row = static_cast<std::uint8_t*>(api_->device_alloc(kWidth));
  k::for_2d(CountFromTheLeft{row, kWidth}, kWidth, 1, exec(), "count");
  sync();
  int in_order = 0;
  for (int x = 0; x < kWidth; ++x) in_order += row[x] == static_cast<std::uint8_t>(x);
  EXPECT_LT(in_order, kWidth) << "the blocks ran in order: a race between them would not show";
  // The host loops of the CPU backend run in order and count as a sequential reading expects.
  std::vector<std::uint8_t> host(kWidth);
  k::for_2d(CountFromTheLeft{host.data(), kWidth}, kWidth, 1, k::Exec::host(), "count");
  EXPECT_EQ(host[kWidth - 1], static_cast<std::uint8_t>(kWidth - 1));
  api_->device_free(row);
}

TEST_F(EmulatedLaunch, TallImagesTakeTheStrideLoopAndEveryRowRunsOnce) {
  // More rows than 65,535 blocks of 8 threads: the grid is capped and threads loop down.
  constexpr int kHeight = 65535 * 8 + 1000;
  auto* rows = static_cast<std::uint8_t*>(api_->device_alloc(kHeight));
  std::memset(rows, 0, kHeight);
  k::for_2d(VisitRows{rows}, 1, kHeight, exec(), "visit");
  sync();
  EXPECT_EQ(std::count(rows, rows + kHeight, std::uint8_t{1}), kHeight);
  EXPECT_EQ(k::grid_2d(1, kHeight).y, 65535u);
  api_->device_free(rows);
}

TEST_F(EmulatedLaunch, WritesOutsideAnAllocationAreNamedAfterTheLaunch) {
  auto* buffer = static_cast<std::uint8_t*>(api_->device_alloc(1000));
  k::for_1d(WriteAt{buffer, 999}, 1, exec(), "inside");
  EXPECT_NO_THROW(sync());
  k::for_1d(WriteAt{buffer, 1003}, 1, exec(), "past the end");
  std::string message = error_of([&] { sync(); });
  EXPECT_MENTIONS(message, ("kernel \"past the end\" failed on the device: wrote past the end of an allocation of 1000 bytes"));
  EXPECT_MENTIONS(message, ("its byte 1003"));
  k::for_1d(WriteAt{buffer, -5}, 1, exec(), "before the start");
  message = error_of([&] { sync(); });
  EXPECT_MENTIONS(message, ("kernel \"before the start\" failed on the device: wrote 5 bytes before the start"));
  // The red zones are whole again: the next launch is not blamed.
  k::for_1d(WriteAt{buffer, 0}, 1, exec(), "innocent");
  EXPECT_NO_THROW(sync());
  api_->device_free(buffer);
}

TEST_F(EmulatedLaunch, MisalignedPointersAreCaught) {
  auto* bytes = static_cast<std::uint8_t*>(api_->device_alloc(64));
  const auto* misaligned = reinterpret_cast<const float*>(bytes + 2);
  const std::string message =
      error_of([&] { k::for_1d(ReadFloats{misaligned, reinterpret_cast<float*>(bytes + 32)}, 4, exec(), "read floats"); });
  EXPECT_MENTIONS(message, ("member in is "));
  EXPECT_MENTIONS(message, ("not a multiple of 4 bytes"));
  api_->device_free(bytes);
}

// AUG_FIELDS proves its list complete when it compiles; what it checks, on a struct that cannot
// declare itself wrongly (a wrong declaration would not build).
struct ThreeMembers {
  int a;
  const float* p;
  int b;
};
constexpr k::FieldList all_three{{k::make_field<int>("a", offsetof(ThreeMembers, a)),
                                  k::make_field<const float*>("p", offsetof(ThreeMembers, p)),
                                  k::make_field<int>("b", offsetof(ThreeMembers, b))}};
constexpr k::FieldList pointer_left_out{{k::make_field<int>("a", offsetof(ThreeMembers, a)),
                                         k::make_field<int>("b", offsetof(ThreeMembers, b))}};
constexpr k::FieldList last_left_out{{k::make_field<int>("a", offsetof(ThreeMembers, a)),
                                      k::make_field<const float*>("p", offsetof(ThreeMembers, p))}};
static_assert(k::fields_cover(all_three, sizeof(ThreeMembers), alignof(ThreeMembers)));
static_assert(!k::fields_cover(pointer_left_out, sizeof(ThreeMembers), alignof(ThreeMembers)));
static_assert(!k::fields_cover(last_left_out, sizeof(ThreeMembers), alignof(ThreeMembers)));
static_assert(k::holds_pointers<const float* [2]>() && k::holds_pointers<CountFromTheLeft[3]>());
static_assert(!k::holds_pointers<int[4]>() && !k::holds_pointers<float>());
static_assert(all_three.fields[1].pointee_align == alignof(float));

// Float to integer: the helpers give, on the host, what PTX's cvt gives on a GPU (saturation;
// NaN to 0 for a 32-bit result, to the smallest value for a 64-bit one). x86 alone gives the
// smallest value for every one of these; the first row is the hazard they close (+inf as 8-bit
// was 0 on the host and 255 on a GPU).
TEST(Conversions, HostHelpersGiveTheDevicesResults) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(k::saturate<std::uint8_t>(k::rne(inf)), 255);
  EXPECT_EQ(k::saturate<std::uint8_t>(k::rne(nan)), 0);
  EXPECT_EQ(k::rne(inf), INT64_MAX);
  EXPECT_EQ(k::rne(1e20f), INT64_MAX);
  EXPECT_EQ(k::rne(-inf), INT64_MIN);
  EXPECT_EQ(k::rne(nan), INT64_MIN);
  EXPECT_EQ(k::rne(static_cast<double>(inf)), INT64_MAX);
  EXPECT_EQ(k::rne(static_cast<double>(nan)), INT64_MIN);
  EXPECT_EQ(k::rne(2.5f), 2);
  EXPECT_EQ(k::rne(-2.5f), -2);
  EXPECT_EQ(k::rne(3.5), 4);
  EXPECT_EQ(k::trunc_i32(nan), 0);
  EXPECT_EQ(k::trunc_i32(3e9f), INT32_MAX);
  EXPECT_EQ(k::trunc_i32(-3e9f), INT32_MIN);
  EXPECT_EQ(k::trunc_i32(-inf), INT32_MIN);
  EXPECT_EQ(k::trunc_i32(-2.7f), -2);
  EXPECT_EQ(k::trunc_u32(nan), 0u);
  EXPECT_EQ(k::trunc_u32(-5.f), 0u);
  EXPECT_EQ(k::trunc_u32(5e9f), UINT32_MAX);
  EXPECT_EQ(k::trunc_u32(inf), UINT32_MAX);
  EXPECT_EQ(k::trunc_u32(4294967040.f), 4294967040u);
}

}  // namespace
}  // namespace aug::test_strict_device
