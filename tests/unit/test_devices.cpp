// --device: one device, a list of GPUs, "all", and how a run's workers share several devices.
#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/gpu/gpu.hpp"
#include "lib/run/devices.hpp"

namespace aug::test_devices {
namespace {

std::string thrown(const std::string& text) {
  try {
    parse_devices(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(Devices, OneDeviceIsParsedAsBefore) {
  for (const char* text : {"cpu", "auto", "cuda", "cuda:3", "cuda-emulated", "cuda-emulated:1"}) {
    const auto d = parse_devices(text);
    ASSERT_EQ(d.size(), 1u) << text;
    EXPECT_EQ(d[0].kind, parse_device(text).kind) << text;
    EXPECT_EQ(d[0].index, parse_device(text).index) << text;
    EXPECT_FALSE(d[0].all) << text;
  }
  EXPECT_NE(thrown("gpu0").find("--device gpu0: expected cpu, auto"), std::string::npos);
}

TEST(Devices, AListNamesGpusInOrder) {
  const auto d = parse_devices("cuda:2,cuda:0,cuda-emulated:1");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].kind, DeviceSpec::Kind::Cuda);
  EXPECT_EQ(d[0].index, 2);
  EXPECT_EQ(d[1].index, 0);
  EXPECT_EQ(d[2].kind, DeviceSpec::Kind::Emulated);
  EXPECT_EQ(d[2].index, 1);
  EXPECT_EQ(d[2].text, "cuda-emulated:1");
  // "cuda" is cuda:0 and "cuda-emulated" is cuda-emulated:0, also in a list.
  const auto short_names = parse_devices("cuda,cuda-emulated");
  EXPECT_EQ(short_names[0].text, "cuda:0");
  EXPECT_EQ(short_names[1].text, "cuda-emulated:0");
}

TEST(Devices, AllIsOneEntryExpandedWhenOpened) {
  const auto cuda = parse_devices("cuda:all");
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_TRUE(cuda[0].all);
  EXPECT_EQ(cuda[0].kind, DeviceSpec::Kind::Cuda);
  const auto emulated = parse_devices("cuda-emulated:all");
  ASSERT_EQ(emulated.size(), 1u);
  EXPECT_TRUE(emulated[0].all);
  EXPECT_EQ(emulated[0].kind, DeviceSpec::Kind::Emulated);

  // Every emulated device (AUGMENT_EMULATED_GPUS, one by default), by name.
  const auto expanded = expand_devices(emulated);
  ASSERT_EQ(static_cast<int>(expanded.size()), gpu::emulated_device_count());
  for (std::size_t i = 0; i < expanded.size(); ++i) {
    EXPECT_FALSE(expanded[i].all);
    EXPECT_EQ(expanded[i].index, static_cast<int>(i));
    EXPECT_EQ(expanded[i].text, "cuda-emulated:" + std::to_string(i));
  }
  // Every usable CUDA GPU, or an error that says why there is none.
  const gpu::Inventory inv = gpu::inventory();
  if (inv.devices.empty()) {
    try {
      expand_devices(cuda);
      ADD_FAILURE() << "cuda:all expanded without a GPU";
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("--device cuda:all: there is no usable CUDA GPU (" + inv.why_none + ")"),
                std::string::npos)
          << e.what();
    }
  } else {
    const auto gpus = expand_devices(cuda);
    ASSERT_EQ(gpus.size(), inv.devices.size());
    for (std::size_t i = 0; i < gpus.size(); ++i) EXPECT_EQ(gpus[i].text, "cuda:" + std::to_string(inv.devices[i].index));
  }
}

TEST(Devices, ListErrorsNameTheEntryAtFault) {
  EXPECT_NE(thrown("cuda:0,cuda:0").find("--device cuda:0,cuda:0: cuda:0 is named twice"), std::string::npos);
  EXPECT_NE(thrown("cuda,cuda:0").find("cuda:0 is named twice (as cuda and cuda:0)"), std::string::npos);
  EXPECT_NE(thrown("cuda-emulated:1,cuda-emulated:1").find("cuda-emulated:1 is named twice"), std::string::npos);
  EXPECT_NE(thrown("cpu,cuda:0").find("cpu cannot be in a list, which names GPUs only"), std::string::npos);
  EXPECT_NE(thrown("cuda:0,auto").find("auto cannot be in a list"), std::string::npos);
  EXPECT_NE(thrown("cuda:0,gpu1").find("--device cuda:0,gpu1: gpu1 is not a GPU"), std::string::npos);
  EXPECT_NE(thrown("cuda:0,,cuda:1").find("an empty entry"), std::string::npos);
  EXPECT_NE(thrown("cuda:0,").find("an empty entry after the last comma"), std::string::npos);
  EXPECT_NE(thrown("cuda:all,cuda:1").find("cuda:all already names every such GPU; give it alone"), std::string::npos);
}

TEST(Devices, WorkersAreSpreadOverTheDevicesOfASet) {
  // One device: every worker is that device's own worker, as with a single backend.
  const DeviceSet one(parse_devices("cpu"), 3);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.names(), "cpu");
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(&one.backend_of(w), &one.backend(0));
    EXPECT_EQ(one.local_worker(w), w);
  }
  // Two devices (the one emulated GPU twice would be refused by parse_devices; a set is given
  // devices already checked, so two distinct backends are opened here on the CPU and on it).
  std::vector<DeviceSpec> two{parse_device("cpu"), parse_device("cuda-emulated:0")};
  const DeviceSet set(two, 5);
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.names(), "cpu,cuda-emulated:0");
  for (int w = 0; w < 5; ++w) {
    EXPECT_EQ(set.index_of(w), static_cast<std::size_t>(w % 2)) << w;
    EXPECT_EQ(&set.backend_of(w), &set.backend(w % 2)) << w;
    EXPECT_EQ(set.local_worker(w), w / 2) << w;
  }
  EXPECT_EQ(set.backend(1).name(), "cuda-emulated:0");
  EXPECT_THROW(DeviceSet(two, 1), std::logic_error) << "every device needs a worker";
  EXPECT_THROW(DeviceSet(parse_devices("cuda-emulated:all"), 2), std::logic_error) << "all is expanded first";
}

}  // namespace
}  // namespace aug::test_devices
