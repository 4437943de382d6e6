// verify-devices: what it measures, and that it finds what is wrong.
#include <gtest/gtest.h>

#include <random>

#include "lib/run/devices.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/jpeg_coefficients.hpp"
#include "lib/verify/verify.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_verify {
namespace {

Image noise(int w, int h, int c, std::uint32_t seed) { return testing::random_image({w, h, c, DType::U8}, seed); }

std::vector<VerifyDevice> cpu_and_emulated(int threads) {
  std::vector<VerifyDevice> devices;
  devices.push_back({"cpu", "reference", false, make_cpu_backend(threads)});
  devices.push_back({"cuda-emulated", "", false, make_emulated_backend(threads)});
  return devices;
}

// The samples, each as 8-bit and as float.
VerifyOptions samples_as_u8_and_f32(int threads) {
  VerifyOptions o;
  o.input = testing::samples_dir();
  o.dtypes = {DType::U8, DType::F32};
  o.threads = threads;
  return o;
}

TEST(Compare, CountsWorstValueHistogramAndPsnr) {
  const Image a = noise(20, 10, 3, 1);
  Image b = a.clone();
  b.row(4)[7 * 3 + 2] = static_cast<std::uint8_t>(b.row(4)[7 * 3 + 2] ^ 8);  // one value off by 8
  b.row(0)[0] = static_cast<std::uint8_t>(b.row(0)[0] == 255 ? 254 : b.row(0)[0] + 1);  // and one by 1
  const Difference d = compare_images(a, b, 1);
  EXPECT_EQ(d.values, 600u);
  EXPECT_EQ(d.differing, 2u);
  EXPECT_EQ(d.over, 1u);
  EXPECT_EQ(d.max_abs, 8);
  EXPECT_EQ(d.worst.x, 7);
  EXPECT_EQ(d.worst.y, 4);
  EXPECT_EQ(d.worst.c, 2);
  EXPECT_EQ(d.worst.a, a.row(4)[23]);
  EXPECT_EQ(d.worst.b, b.row(4)[23]);
  EXPECT_EQ(d.histogram[0], 1u);  // |d| = 1
  EXPECT_EQ(d.histogram[4], 1u);  // 8-15
  EXPECT_NEAR(d.psnr, 10 * std::log10(255.0 * 255.0 / (65.0 / 600)), 1e-9);
  EXPECT_TRUE(std::isinf(compare_images(a, a, 0).psnr));
}

TEST(Compare, PatternLabels) {
  const Image a = noise(100, 80, 1, 2);
  std::mt19937 rng(3);
  Image scattered = a.clone();  // 2% single pixels off by one, at random: rounding
  for (int i = 0; i < 160; ++i) {
    auto& v = scattered.row(rng() % 80)[rng() % 100];
    v = static_cast<std::uint8_t>(v == 0 ? 1 : v - 1);
  }
  EXPECT_EQ(compare_images(a, scattered, 0).pattern, Pattern::Isolated);
  Image border = a.clone();  // the first three columns: a border effect
  for (int y = 0; y < 80; ++y)
    for (int x = 0; x < 3; ++x) border.row(y)[x] ^= 4;
  EXPECT_EQ(compare_images(a, border, 0).pattern, Pattern::Clustered);
  Image block = a.clone();  // one 8x8 block
  for (int y = 8; y < 16; ++y)
    for (int x = 24; x < 32; ++x) block.row(y)[x] ^= 1;
  EXPECT_EQ(compare_images(a, block, 0).pattern, Pattern::Clustered);
  Image shifted = a.clone();  // everything
  for (int y = 0; y < 80; ++y)
    for (int x = 0; x < 100; ++x) shifted.row(y)[x] = static_cast<std::uint8_t>(shifted.row(y)[x] ^ 1);
  EXPECT_EQ(compare_images(a, shifted, 0).pattern, Pattern::Global);
  EXPECT_EQ(compare_images(a, a, 0).pattern, Pattern::None);
}

// The emulated device, with one value of one stage's output off by one.
class FaultyBackend final : public Backend {
 public:
  FaultyBackend(std::string stage_summary, int x, int y, int c)
      : inner_(make_emulated_backend(2)), stage_(std::move(stage_summary)), x_(x), y_(y), c_(c) {}
  std::string name() const override { return "faulty"; }
  Image run(const Plan& plan, const Image& in, int worker) override { return inner_->run(plan, in, worker); }
  Image run_op(const Op& op, const Image& in, int worker) override {
    Image out = inner_->run_op(op, in, worker);
    if (op.params().dump() == stage_) {
      std::uint8_t& v = out.row(y_)[x_ * out.channels() + c_];
      v = static_cast<std::uint8_t>(v == 255 ? 254 : v + 1);
    }
    return out;
  }

 private:
  std::unique_ptr<Backend> inner_;
  std::string stage_;
  int x_, y_, c_;
};

TEST(Verify, FindsAnInjectedOneValueDifferenceExactly) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "in");
  std::filesystem::copy_file(testing::samples_dir() / "chelsea.png", dir / "in" / "chelsea.png");
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [
      {"stage": "resize", "short_side": 120}, {"stage": "gaussian_blur", "sigma": 1.5}, {"stage": "flip"}]})",
                                     "fault.json");
  const std::string blur = R"({"border":"reflect101","kernel_size":11,"sigma":1.5})";
  std::vector<VerifyDevice> devices;
  devices.push_back({"cpu", "reference", false, make_cpu_backend(2)});
  devices.push_back({"faulty", "emulated, one value off", false, std::make_unique<FaultyBackend>(blur, 17, 9, 1)});
  VerifyOptions o;
  o.input = dir / "in";
  o.threads = 2;
  const VerifyReport r = verify(p, devices, o);

  ASSERT_EQ(r.images.size(), 1u);
  const ImageRecord& im = r.images[0];
  ASSERT_EQ(im.stages.size(), 3u);
  EXPECT_TRUE(im.stages[0].pairs[0].ok());
  const PairResult& bad = im.stages[1].pairs[0];
  EXPECT_EQ(im.stages[1].stage, "gaussian_blur");
  EXPECT_EQ(im.stages[1].at, "/stages/1");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.diff.differing, 1u);
  EXPECT_EQ(bad.diff.worst.x, 17);
  EXPECT_EQ(bad.diff.worst.y, 9);
  EXPECT_EQ(bad.diff.worst.c, 1);
  EXPECT_EQ(std::abs(bad.diff.worst.b - bad.diff.worst.a), 1);
  EXPECT_TRUE(im.stages[2].pairs[0].ok());  // flip gets the CPU's blur output: not blamed
  EXPECT_EQ(im.first_divergence.at("faulty"), "/stages/1 (gaussian_blur)");
  EXPECT_EQ(im.end_to_end[0].diff.differing, 1u);  // the flipped fault, end to end
  EXPECT_EQ(r.exit_code(), Exit::mismatch);
  ASSERT_EQ(r.evidence.size(), 1u);  // pictures of the failing stage comparison
  EXPECT_TRUE(r.evidence[0].gating);
  EXPECT_EQ(r.evidence[0].a_name, "cpu");
  EXPECT_EQ(r.evidence[0].b_name, "faulty");

  const std::string table = verify_table(r);
  EXPECT_NE(table.find("/stages/1 gaussian_blur"), std::string::npos);
  EXPECT_NE(table.find("OVER"), std::string::npos) << table;
  EXPECT_NE(table.find("first divergence: /stages/1 (gaussian_blur) in 1"), std::string::npos) << table;
  EXPECT_NE(table.find("exit 3"), std::string::npos);
  const auto j = r.to_json(nlohmann::json::object());
  EXPECT_EQ(j["schema"], kVerifySchema);
  EXPECT_EQ(j["summary"]["exit_code"], 3);
  const auto& worst = j["images"][0]["stages"][1]["comparisons"][0]["worst"];
  EXPECT_EQ(worst["x"], 17);
  EXPECT_EQ(worst["y"], 9);
  EXPECT_EQ(worst["channel"], 1);
  // The page leads with the verdict and the first comparison over its tolerance.
  const std::string html = verify_html(r);
  EXPECT_NE(html.find("<img"), std::string::npos);
  const std::size_t fail = html.find(">FAIL<small>2 of 4 device comparisons exceed their stage's tolerance");
  EXPECT_NE(fail, std::string::npos);
  EXPECT_LT(fail, html.find("Devices, stage by stage"));
  EXPECT_EQ(html.find("PASS"), std::string::npos);
  EXPECT_NE(html.find("chelsea.png (u8), /stages/1 gaussian_blur, cpu vs faulty: max difference 1 over tolerance 0, "
                      "at x 17 y 9 channel 1"),
            std::string::npos);
}

// Stages that their `p` skips: nothing to compare for them, the image goes on unchanged, and
// end to end the devices still agree (including an image on which every stage was skipped).
TEST(Verify, SkippedStagesLeaveTheImageAsItIs) {
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [
      {"stage": "flip", "p": 0}, {"stage": "channel_gain", "r": 1.2, "p": 0.5}]})",
                                     "skips.json");
  std::vector<VerifyDevice> devices = cpu_and_emulated(2);
  VerifyOptions o = samples_as_u8_and_f32(2);
  o.seed = 3;  // draws both outcomes of p = 0.5 over the six samples
  const VerifyReport r = verify(p, devices, o);
  ASSERT_FALSE(r.images.empty());
  std::size_t untouched = 0, gained = 0;
  for (const auto& im : r.images) {
    EXPECT_EQ(im.error, "") << im.input;
    ASSERT_FALSE(im.end_to_end.empty()) << im.input;
    for (const auto& pr : im.end_to_end) {
      EXPECT_EQ(pr.diff.values, im.shape.values()) << im.input;
      if (pr.gating) {
        EXPECT_EQ(pr.diff.differing, 0u) << im.input;
      }
    }
    EXPECT_LE(im.stages.size(), 1u);
    (im.stages.empty() ? untouched : gained) += 1;
  }
  EXPECT_GT(untouched, 0u);
  EXPECT_GT(gained, 0u);
  EXPECT_EQ(r.exit_code(), Exit::ok);
}

TEST(Verify, TypeComparisonCountsMatchAnIndependentComputation) {
  const Pipeline p = Pipeline::load_file((testing::source_dir() / "configs/bench-p1.json").string());
  std::vector<VerifyDevice> devices = cpu_and_emulated(1);
  VerifyOptions o = samples_as_u8_and_f32(1);
  const VerifyReport r = verify(p, devices, o);
  EXPECT_EQ(r.exit_code(), Exit::ok);  // type differences inform, they do not fail

  // Independently: each stage on the CPU as 8-bit and as float from the same 8-bit input, the
  // float result rounded to 8 bits, differing values counted here.
  const auto cpu = make_cpu_backend(1);
  std::uint64_t expected = 0, reported = 0;
  for (const auto& f : testing::list_files(testing::samples_dir())) {
    // The images augment reads from samples/ (not its README or the saved Albumentations pipelines).
    const std::string ext = std::filesystem::path(f).extension().string();
    if (ext != ".jpg" && ext != ".png") continue;
    const Image im = testing::sample(f);
    const Plan p8 = p.plan(0, f, 0, im.shape());
    const Plan pf = p.plan(0, f, 0, to_f32(im).shape());
    Image cur = im;
    for (std::size_t s = 0; s < p8.steps.size(); ++s) {
      const Image out8 = cpu->run_op(*p8.steps[s].op, cur, 0);
      const Image outf = to_u8(cpu->run_op(*pf.steps[s].op, to_f32(cur), 0));
      expected += testing::compare(out8, outf).count;
      cur = out8;
    }
  }
  for (const auto& im : r.images)
    if (im.dtype == DType::F32)
      for (const auto& s : im.stages)
        for (const auto& pr : s.pairs)
          if (!pr.gating) reported += pr.diff.differing;
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(reported, expected);
}

TEST(Compare, FilesByteForByte) {
  const std::vector<std::uint8_t> a{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(compare_bytes(a, a).differing, 0u);
  EXPECT_EQ(compare_bytes(a, a).values, 8u);
  EXPECT_TRUE(std::isinf(compare_bytes(a, a).psnr));
  EXPECT_EQ(compare_bytes(a, a).pattern, Pattern::None);
  std::vector<std::uint8_t> b = a;
  b[5] = 26;  // 6 -> 26
  const Difference one = compare_bytes(a, b);
  EXPECT_EQ(one.differing, 1u);
  EXPECT_EQ(one.over, 1u);
  EXPECT_EQ(one.max_abs, 20);
  EXPECT_EQ(one.worst.x, 5);
  EXPECT_EQ(one.histogram[5], 1u);  // 16-31
  EXPECT_EQ(one.pattern, Pattern::Global);
  const std::vector<std::uint8_t> shorter(a.begin(), a.begin() + 6);
  const Difference cut = compare_bytes(a, shorter);  // two bytes missing
  EXPECT_EQ(cut.values, 8u);
  EXPECT_EQ(cut.differing, 2u);
  EXPECT_EQ(cut.max_abs, 255);
}

// The emulated device with its JPEG codec half off: one reconstructed value one level off, or
// one quantised coefficient of an encoded image one step off.
class FaultyCodecBackend final : public Backend {
 public:
  FaultyCodecBackend(bool decode_fault, bool encode_fault)
      : inner_(make_emulated_backend(2)), decode_(decode_fault), encode_(encode_fault) {}
  std::string name() const override { return "faulty"; }
  Image run(const Plan& plan, const Image& in, int worker) override { return inner_->run(plan, in, worker); }
  Image run_op(const Op& op, const Image& in, int worker) override { return inner_->run_op(op, in, worker); }
  CodedImage run_coded(const Plan& plan, const CodedImage& in, int quality, int worker) override {
    CodedImage out = inner_->run_coded(plan, in, quality, worker);
    if (decode_ && in.jpeg && !out.pixels.empty()) {
      std::uint8_t& v = out.pixels.row(30)[40 * out.pixels.channels() + 2];
      v = static_cast<std::uint8_t>(v == 255 ? 254 : v + 1);
    }
    if (encode_ && out.jpeg) {
      auto changed = std::make_shared<JpegCoefficients>(*out.jpeg);
      changed->coefficients[changed->coefficients.size() / 2] += 1;
      out.jpeg = changed;
    }
    return out;
  }

 private:
  std::unique_ptr<Backend> inner_;
  bool decode_, encode_;
};

// --device-jpeg: the devices' JPEG decoding and encoding are compared, and a fault in either is
// found where it is.
TEST(Verify, DeviceJpegComparesTheCodecOnEachDevice) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "in");
  for (const char* f : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png"})
    std::filesystem::copy_file(testing::samples_dir() / f, dir / "in" / f);
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}]})", "flip.json");
  VerifyOptions o;
  o.input = dir / "in";
  o.threads = 2;
  o.device_jpeg = true;
  o.jpeg_quality = 90;
  const auto record = [](const VerifyReport& r, const std::string& input) -> const ImageRecord& {
    for (const auto& im : r.images)
      if (im.input == input) return im;
    throw std::runtime_error("no record for " + input);
  };

  std::vector<VerifyDevice> devices = cpu_and_emulated(2);
  const VerifyReport clean = verify(p, devices, o);
  EXPECT_EQ(clean.exit_code(), Exit::ok) << verify_table(clean);
  const ImageRecord& jpg = record(clean, "astronaut.jpg");
  ASSERT_EQ(jpg.jpeg_decode.size(), 1u);
  EXPECT_EQ(jpg.jpeg_decode[0].diff.values, 512u * 512 * 3);
  EXPECT_EQ(jpg.jpeg_decode[0].diff.differing, 0u);
  ASSERT_EQ(jpg.jpeg_encode.size(), 1u);
  EXPECT_GT(jpg.jpeg_encode[0].diff.values, 1000u);  // the file's bytes
  EXPECT_EQ(jpg.jpeg_encode[0].diff.differing, 0u);
  const ImageRecord& png = record(clean, "chelsea.png");
  EXPECT_TRUE(png.jpeg_decode.empty());  // not a JPEG: nothing for the device to decode
  EXPECT_EQ(png.jpeg_encode.size(), 1u);
  const ImageRecord& rgba = record(clean, "coffee_rgba.png");
  EXPECT_TRUE(rgba.jpeg_encode.empty());
  ASSERT_EQ(rgba.jpeg_on_cpu.size(), 1u);
  EXPECT_NE(rgba.jpeg_on_cpu[0].find("not 8-bit gray or RGB"), std::string::npos);
  const std::string table = verify_table(clean);
  EXPECT_NE(table.find("JPEG decoding (values)"), std::string::npos) << table;
  EXPECT_NE(table.find("JPEG encoding q90 (file bytes)"), std::string::npos) << table;
  EXPECT_NE(table.find("--device-jpeg: 1 image runs encoded on the CPU"), std::string::npos) << table;
  EXPECT_EQ(clean.to_json(nlohmann::json::object())["device_jpeg"]["quality"], 90);

  std::vector<VerifyDevice> bad_decode;
  bad_decode.push_back({"cpu", "reference", false, make_cpu_backend(2)});
  bad_decode.push_back({"faulty", "", false, std::make_unique<FaultyCodecBackend>(true, false)});
  const VerifyReport d = verify(p, bad_decode, o);
  EXPECT_EQ(d.exit_code(), Exit::mismatch);
  const ImageRecord& dj = record(d, "astronaut.jpg");
  ASSERT_EQ(dj.jpeg_decode.size(), 1u);
  EXPECT_EQ(dj.jpeg_decode[0].diff.differing, 1u);
  EXPECT_EQ(dj.jpeg_decode[0].diff.worst.x, 40);
  EXPECT_EQ(dj.jpeg_decode[0].diff.worst.y, 30);
  EXPECT_EQ(dj.jpeg_decode[0].diff.worst.c, 2);
  EXPECT_EQ(dj.stages.at(0).pairs.at(0).diff.differing, 0u);  // flip gets the CPU's decode: not blamed
  EXPECT_EQ(dj.first_divergence.at("faulty"), "JPEG decoding");
  EXPECT_EQ(dj.end_to_end.at(0).diff.differing, 1u);  // the device's own chain starts from its decode
  EXPECT_EQ(dj.jpeg_encode.at(0).diff.differing, 0u);

  std::vector<VerifyDevice> bad_encode;
  bad_encode.push_back({"cpu", "reference", false, make_cpu_backend(2)});
  bad_encode.push_back({"faulty", "", false, std::make_unique<FaultyCodecBackend>(false, true)});
  const VerifyReport e = verify(p, bad_encode, o);
  EXPECT_EQ(e.exit_code(), Exit::mismatch);
  for (const char* f : {"astronaut.jpg", "chelsea.png"}) {
    const ImageRecord& im = record(e, f);
    EXPECT_EQ(im.jpeg_decode.empty() ? 0u : im.jpeg_decode[0].diff.differing, 0u) << f;
    ASSERT_EQ(im.jpeg_encode.size(), 1u) << f;
    EXPECT_GT(im.jpeg_encode[0].diff.differing, 0u) << f;
    EXPECT_FALSE(im.jpeg_encode[0].ok()) << f;
    EXPECT_EQ(im.end_to_end.at(0).diff.differing, 0u) << f;
  }
}

}  // namespace
}  // namespace aug::test_verify
