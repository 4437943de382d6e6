// The device codec (kernels/codec/jpeg_codec.hpp) on an emulated device against libjpeg-turbo:
// reconstructing from entropy-decoded coefficients gives jpeg_decode's pixels, 0 values differing;
// transforming and quantising then entropy-coding gives jpeg_encode's file, byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include <jpeglib.h>

#include "kernels/codec/jpeg_arith.hpp"
#include "kernels/codec/jpeg_codec.hpp"
#include "lib/core/error.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/io/jpeg_coefficients.hpp"
#include "lib/io/files.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_jpeg_codec {
namespace {

namespace fs = std::filesystem;

const int kQualities[] = {50, 75, 90, 95, 100};

// An emulated device with one stream, and what the tests allocate on it.
class Emulated : public k::Scratch {
 public:
  Emulated() : api_(gpu::make_emulated_api(1, "emu")) {
    api_->set_device(0);
    stream_ = api_->stream_create();
  }
  ~Emulated() {
    api_->stream_sync(stream_);
    for (void* p : device_) api_->device_free(p);
    for (void* p : pinned_) api_->pinned_free(p);
    api_->stream_destroy(stream_);
  }
  void* scratch(std::size_t bytes) override { return device(bytes); }
  void* device(std::size_t bytes) { return device_.emplace_back(api_->device_alloc(std::max<std::size_t>(bytes, 1))); }
  void* upload(const void* host, std::size_t bytes) {
    void* pinned = pinned_.emplace_back(api_->pinned_alloc(std::max<std::size_t>(bytes, 1)));
    std::memcpy(pinned, host, bytes);
    void* d = device(bytes);
    api_->copy_to_device(d, pinned, bytes, stream_);
    return d;
  }
  void download(void* host, const void* d, std::size_t bytes) {
    void* pinned = pinned_.emplace_back(api_->pinned_alloc(std::max<std::size_t>(bytes, 1)));
    api_->copy_to_host(pinned, d, bytes, stream_);
    api_->stream_sync(stream_);
    std::memcpy(host, pinned, bytes);
  }
  k::Exec exec() { return k::Exec::emulated(api_->host_queue(stream_)); }

 private:
  std::unique_ptr<gpu::DeviceApi> api_;
  gpu::Stream stream_;
  std::vector<void*> device_, pinned_;
};

Image device_decode(const JpegCoefficients& c) {
  Emulated dev;
  const auto* coef = static_cast<const std::int16_t*>(
      dev.upload(c.coefficients.data(), c.coefficients.size() * sizeof(std::int16_t)));
  const auto* tables = static_cast<const k::JpegTables*>(dev.upload(&c.tables, sizeof c.tables));
  const Shape shape{c.layout.width, c.layout.height, c.layout.components == 1 ? 1 : 3, DType::U8};
  auto* out = static_cast<std::uint8_t*>(dev.device(shape.bytes()));
  k::jpeg_reconstruct(c.layout, coef, tables, {out, shape.width, shape.height, shape.channels, shape.row_bytes()}, dev,
                      dev.exec());
  Image im(shape);
  dev.download(im.data(), out, shape.bytes());
  return im;
}

std::vector<std::uint8_t> device_encode(const Image& im, int quality) {
  Emulated dev;
  JpegCoefficients c;
  c.layout = k::jpeg_encoder_layout(im.width(), im.height(), im.channels());
  c.tables = jpeg_quality_tables(quality, im.channels());
  const auto* pixels = static_cast<const std::uint8_t*>(dev.upload(im.data(), im.shape().bytes()));
  const auto* tables = static_cast<const k::JpegTables*>(dev.upload(&c.tables, sizeof c.tables));
  auto* coef = static_cast<std::int16_t*>(dev.device(c.layout.coefficients() * sizeof(std::int16_t)));
  k::jpeg_transform({pixels, im.width(), im.height(), im.channels(), im.shape().row_bytes()}, c.layout, tables, coef,
                    dev, dev.exec());
  c.coefficients.resize(c.layout.coefficients());
  dev.download(c.coefficients.data(), coef, c.coefficients.size() * sizeof(std::int16_t));
  return write_jpeg_coefficients(c, quality);
}

Image crop(const Image& im, int w, int h, int x0 = 0, int y0 = 0) {
  Image out(Shape{w, h, im.channels(), DType::U8});
  for (int y = 0; y < h; ++y)
    std::memcpy(out.row(y), im.row(y0 + y) + static_cast<std::size_t>(x0) * im.channels(), out.shape().row_bytes());
  return out;
}

// The device path's decoding of `file`, which must be one it takes.
void expect_same_decode(const std::vector<std::uint8_t>& file, const std::string& what) {
  std::string why;
  const auto c = read_jpeg_coefficients(file.data(), file.size(), &why);
  ASSERT_TRUE(c) << what << ": the device path refused it: " << why;
  const Image cpu = jpeg_decode(file.data(), file.size(), {});
  const Image dev = device_decode(*c);
  ASSERT_EQ(dev.shape(), cpu.shape()) << what;
  const testing::Diff d = testing::compare(dev, cpu);
  EXPECT_EQ(d.count, 0u) << what << ": " << d.str();
}

void expect_same_encode(const Image& im, int quality, const std::string& what) {
  const std::vector<std::uint8_t> cpu = jpeg_encode(im.ref(), quality);
  const std::vector<std::uint8_t> dev = device_encode(im, quality);
  ASSERT_EQ(dev.size(), cpu.size()) << what << " q" << quality;
  const auto at = std::mismatch(dev.begin(), dev.end(), cpu.begin());
  EXPECT_TRUE(at.first == dev.end()) << what << " q" << quality << ": first differing byte at "
                                     << (at.first - dev.begin()) << " of " << dev.size();
}

// Photographs: the samples, and the benchmark corpus when it is there.
std::vector<std::pair<std::string, Image>> photographs(bool gray) {
  std::vector<std::pair<std::string, Image>> out;
  for (const char* name : {"astronaut.jpg", "rocket.jpg", "chelsea.png", "coffee.png"})
    out.emplace_back(name, testing::sample_as(name, DType::U8, gray ? 1 : 3));
  return out;
}

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  const fs::path root = testing::source_dir() / "bench" / "corpus";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return files;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The device runs each block's passes as 8 threads per pass (rows, then columns, through a
// workspace); forward_block and inverse_block are the one-block arithmetic they must equal,
// here on blocks no real file has: every coefficient from -32768 to 32767 and quantisers up
// to 65535 (64-bit products), and samples at the ends of the range.
TEST(JpegCodec, BlocksSplitIntoRowAndColumnThreadsGiveTheOneBlockArithmetic) {
  const int w = 48, h = 32;  // 6 x 4 blocks, gray: the plane is the image
  JpegCoefficients c;
  c.layout = k::jpeg_encoder_layout(w, h, 1);
  std::uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int k = 0; k < 64; ++k) c.tables.q[0][k] = static_cast<std::uint16_t>(k % 3 == 0 ? 65535 - k : 1 + next() % 255);
  c.coefficients.resize(c.layout.coefficients());
  for (auto& v : c.coefficients) {
    const std::uint32_t r = next();
    v = static_cast<std::int16_t>(r % 4 == 0 ? (r & 16 ? 32767 : -32768) : static_cast<int>(r >> 16) - 32768);
  }
  const Image got = device_decode(c);
  std::uint8_t expected[64];
  std::size_t differ = 0;
  for (int b = 0; b < (w / 8) * (h / 8); ++b) {
    const int bx = b % (w / 8), by = b / (w / 8);
    k::jpeg::inverse_block(c.coefficients.data() + static_cast<std::size_t>(b) * 64, c.tables.q[0], expected, 8);
    for (int r = 0; r < 8; ++r)
      for (int i = 0; i < 8; ++i) differ += got.row(by * 8 + r)[bx * 8 + i] != expected[8 * r + i];
  }
  EXPECT_EQ(differ, 0u) << "decoded samples differ from inverse_block's";

  Image im({w, h, 1, DType::U8});
  for (std::size_t i = 0; i < im.shape().bytes(); ++i) {
    const std::uint32_t r = next();
    im.data()[i] = static_cast<std::uint8_t>(r % 3 == 0 ? (r & 8 ? 255 : 0) : r >> 24);
  }
  const k::JpegTables q = jpeg_quality_tables(97, 1);
  Emulated dev;
  const auto* pixels = static_cast<const std::uint8_t*>(dev.upload(im.data(), im.shape().bytes()));
  const auto* tables = static_cast<const k::JpegTables*>(dev.upload(&q, sizeof q));
  auto* coef = static_cast<std::int16_t*>(dev.device(c.layout.coefficients() * sizeof(std::int16_t)));
  k::jpeg_transform({pixels, w, h, 1, static_cast<std::size_t>(w)}, c.layout, tables, coef, dev, dev.exec());
  std::vector<std::int16_t> levels(c.layout.coefficients());
  dev.download(levels.data(), coef, levels.size() * sizeof(std::int16_t));
  std::int16_t want[64];
  differ = 0;
  for (int b = 0; b < (w / 8) * (h / 8); ++b) {
    const int bx = b % (w / 8), by = b / (w / 8);
    k::jpeg::forward_block(im.row(by * 8) + bx * 8, w, q.q[0], want);
    for (int k = 0; k < 64; ++k) differ += levels[static_cast<std::size_t>(b) * 64 + k] != want[k];
  }
  EXPECT_EQ(differ, 0u) << "coefficients differ from forward_block's";
}

TEST(JpegCodec, EncoderLayoutIsLibjpegs) {
  const k::JpegLayout l = k::jpeg_encoder_layout(17, 33, 3);
  ASSERT_EQ(l.components, 3);
  EXPECT_EQ(l.comp[0].blocks_w, 3);
  EXPECT_EQ(l.comp[0].blocks_h, 5);
  EXPECT_EQ(l.comp[1].blocks_w, 2);  // ceil(17 / 16)
  EXPECT_EQ(l.comp[1].blocks_h, 3);  // ceil(33 / 16)
  EXPECT_EQ(l.comp[1].width, 9);
  EXPECT_EQ(l.comp[2].offset, l.comp[1].offset + 2 * 3 * 64);
  EXPECT_EQ(k::jpeg_encoder_layout(5, 5, 1).components, 1);
}

TEST(JpegCodec, QualityTablesAreLibjpegs) {
  const k::JpegTables t = jpeg_quality_tables(95, 3);
  const std::uint16_t luma_row0[] = {2, 1, 1, 2, 2, 4, 5, 6};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(t.q[0][i], luma_row0[i]) << i;
  EXPECT_EQ(t.q[1][0], 2);
  EXPECT_EQ(t.q[1][63], 10);
  EXPECT_EQ(std::memcmp(t.q[1], t.q[2], sizeof t.q[1]), 0);
  EXPECT_EQ(jpeg_quality_tables(1, 1).q[0][63], 255);  // force_baseline caps at 255
}

TEST(JpegCodec, DecodesSamplesAsLibjpeg) {
  for (const char* name : {"astronaut.jpg", "rocket.jpg"}) {
    const std::vector<std::uint8_t> file = read_file(testing::samples_dir() / name);
    expect_same_decode(file, name);
  }
}

TEST(JpegCodec, DecodesEverySamplingAndSizeAsLibjpeg) {
  const auto colour = photographs(false);
  const auto gray = photographs(true);
  const int sizes[][2] = {{1, 1}, {2, 2}, {3, 5}, {7, 9}, {17, 33}, {33, 17}, {100, 75}, {250, 131}, {0, 0}};
  const testing::JpegVariant variants[] = {{2, 2}, {2, 1}, {1, 1}, {1, 2}, {2, 2, true}, {2, 1, true}, {1, 1, true}};
  for (std::size_t p = 0; p < colour.size(); ++p)
    for (const auto& s : sizes) {
      const Image& full = colour[p].second;
      const int w = s[0] ? s[0] : full.width(), h = s[0] ? s[1] : full.height();
      const Image im = crop(full, w, h, (full.width() - w) / 3, (full.height() - h) / 2);
      const Image g = crop(gray[p].second, w, h, (full.width() - w) / 3, (full.height() - h) / 2);
      for (int q : kQualities) {
        if (s[0] == 0 && q != 75) continue;  // the whole photographs at one quality: the sizes cover the rest
        const std::string what = colour[p].first + " " + std::to_string(w) + "x" + std::to_string(h) + " q" + std::to_string(q);
        for (const testing::JpegVariant& v : variants)
          expect_same_decode(testing::jpeg_variant(im, q, v), what + " h" + std::to_string(v.h) + "v" + std::to_string(v.v) +
                                                           (v.progressive ? " progressive" : ""));
        expect_same_decode(testing::jpeg_variant(g, q, {1, 1}), what + " gray");
        expect_same_decode(testing::jpeg_variant(g, q, {1, 1, true}), what + " gray progressive");
      }
    }
}

TEST(JpegCodec, EncodesEverySizeAsLibjpeg) {
  const auto colour = photographs(false);
  const auto gray = photographs(true);
  const int sizes[][2] = {{1, 1}, {2, 2}, {3, 5}, {7, 9}, {16, 16}, {17, 33}, {33, 17}, {100, 75}, {250, 131}, {0, 0}};
  for (std::size_t p = 0; p < colour.size(); ++p)
    for (const auto& s : sizes) {
      const Image& full = colour[p].second;
      const int w = s[0] ? s[0] : full.width(), h = s[0] ? s[1] : full.height();
      const int x0 = (full.width() - w) / 2, y0 = (full.height() - h) / 3;
      const std::string what = colour[p].first + " " + std::to_string(w) + "x" + std::to_string(h);
      for (int q : {1, 10, 50, 75, 90, 95, 100}) {
        expect_same_encode(crop(full, w, h, x0, y0), q, what);
        expect_same_encode(crop(gray[p].second, w, h, x0, y0), q, what + " gray");
      }
    }
}

// The benchmark corpus (bench/corpus, not in the repository): every file decoded, every image
// encoded at one of the qualities in turn (all of them with AUGMENT_JPEG_ALL_QUALITIES=1).
TEST(JpegCodec, Corpus) {
  const std::vector<fs::path> files = testing::sampled(corpus_files());
  if (files.empty()) GTEST_SKIP() << "no JPEG under bench/corpus (the benchmark corpus is not in the repository)";
  const char* all = std::getenv("AUGMENT_JPEG_ALL_QUALITIES");
  const bool every = all && *all && std::string(all) != "0";
  std::size_t decoded = 0, encoded = 0, fallback = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::vector<std::uint8_t> file = read_file(files[i]);
    if (!read_jpeg_coefficients(file.data(), file.size())) {
      ++fallback;
      continue;
    }
    expect_same_decode(file, files[i].string());
    ++decoded;
    const Image im = jpeg_decode(file.data(), file.size(), {});
    for (std::size_t k = 0; k < std::size(kQualities); ++k)
      if (every || k == i % std::size(kQualities)) {
        expect_same_encode(im, kQualities[k], files[i].string());
        ++encoded;
      }
  }
  std::printf("corpus: %zu files, %zu decoded on the device path (%zu left to the CPU decoder), %zu encodings\n",
              files.size(), decoded, fallback, encoded);
  EXPECT_GT(decoded, 0u);
}

TEST(JpegCodec, WhatTheDeviceCannotReproduceIsRefused) {
  const Image im = crop(testing::sample("astronaut.jpg"), 40, 24);
  std::string why;
  const auto cmyk = testing::jpeg_variant(im, 90, {1, 1, false, true});
  EXPECT_FALSE(read_jpeg_coefficients(cmyk.data(), cmyk.size(), &why));
  EXPECT_NE(why.find("CMYK"), std::string::npos) << why;
  const auto s411 = testing::jpeg_variant(im, 90, {4, 1});
  EXPECT_FALSE(read_jpeg_coefficients(s411.data(), s411.size(), &why));
  EXPECT_NE(why.find("sampling"), std::string::npos) << why;
  std::vector<std::uint8_t> cut = jpeg_encode(im.ref(), 90);
  cut.resize(cut.size() * 2 / 3);
  EXPECT_FALSE(read_jpeg_coefficients(cut.data(), cut.size(), &why));
  const std::vector<std::uint8_t> junk(100, 0x42);
  EXPECT_FALSE(read_jpeg_coefficients(junk.data(), junk.size(), &why));
  EXPECT_NE(why.find("libjpeg"), std::string::npos) << why;
}

// What `augment run --device-jpeg` hands the device: JPEGs that decode_image decodes without
// more to do; the reason for the others; nothing to say about other formats.
TEST(JpegCodec, TheRunnerTakesOnlyWhatDecodeImageDecodesAsIs) {
  const Image im = crop(testing::sample("astronaut.jpg"), 40, 24);
  const std::vector<std::uint8_t> file = jpeg_encode(im.ref(), 90);
  std::string why = "?";
  EXPECT_TRUE(read_jpeg_for_device(file.data(), file.size(), {}, &why)) << why;
  EXPECT_EQ(why, "");
  const auto upright = testing::jpeg_with_orientation(file, 1);
  EXPECT_TRUE(read_jpeg_for_device(upright.data(), upright.size(), {}, &why)) << why;
  const auto rotated = testing::jpeg_with_orientation(file, 6);
  EXPECT_FALSE(read_jpeg_for_device(rotated.data(), rotated.size(), {}, &why));
  EXPECT_NE(why.find("orientation"), std::string::npos) << why;
  DecodeOptions small;
  small.max_pixels = 40 * 24 - 1;
  EXPECT_FALSE(read_jpeg_for_device(file.data(), file.size(), small, &why));
  EXPECT_NE(why.find("max-pixels"), std::string::npos) << why;
  const std::vector<std::uint8_t> png = read_file(testing::samples_dir() / "camera.png");
  EXPECT_FALSE(read_jpeg_for_device(png.data(), png.size(), {}, &why));
  EXPECT_EQ(why, "");
}

}  // namespace
}  // namespace aug::test_jpeg_codec
