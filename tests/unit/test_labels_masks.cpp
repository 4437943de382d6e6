// Segmentation mask files (--masks): palette PNGs keep indices and palette, gray label maps keep
// their exact values, colour PNGs and broken files are refused naming the file, and the folder
// rule that pairs an image with its mask.
#include <gtest/gtest.h>

#include <png.h>
#include <unistd.h>

#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/io/codec.hpp"
#include "lib/datasets/masks.hpp"

namespace aug::test_labels_masks {
namespace {

namespace fs = std::filesystem;
using labels::Mask;
using labels::MaskFolder;
using labels::Palette;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "aug-masks-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good());
}

void touch(const fs::path& p) { write_bytes(p, {}); }

// A PNG written by libpng with the rows given as stored (packed for depths below 8, big-endian
// for 16): how files from other tools look, independent of encode_mask_png.
struct RawPng {
  int width = 0, height = 0, depth = 8, color = PNG_COLOR_TYPE_GRAY;
  std::vector<std::vector<std::uint8_t>> rows;
  std::vector<png_color> palette;
  std::vector<std::uint8_t> trns;
  bool interlaced = false;
};

void append(png_structp p, png_bytep data, png_size_t n) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(p));
  out->insert(out->end(), data, data + n);
}
void no_flush(png_structp) {}

std::vector<std::uint8_t> write_raw_png(const RawPng& raw) {
  std::vector<std::uint8_t> out;
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(p);
  if (setjmp(png_jmpbuf(p))) {
    png_destroy_write_struct(&p, &info);
    ADD_FAILURE() << "libpng failed writing the test file";
    return {};
  }
  png_set_write_fn(p, &out, append, no_flush);
  png_set_IHDR(p, info, raw.width, raw.height, raw.depth, raw.color,
               raw.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (!raw.palette.empty()) png_set_PLTE(p, info, raw.palette.data(), static_cast<int>(raw.palette.size()));
  if (!raw.trns.empty()) png_set_tRNS(p, info, raw.trns.data(), static_cast<int>(raw.trns.size()), nullptr);
  png_write_info(p, info);
  std::vector<png_bytep> rows;
  for (const auto& r : raw.rows) rows.push_back(const_cast<png_bytep>(r.data()));
  png_write_image(p, rows.data());
  png_write_end(p, nullptr);
  png_destroy_write_struct(&p, &info);
  return out;
}

Image gray(int w, int h, DType t) { return Image(Shape{w, h, 1, t}); }

// ---- palette PNGs ---------------------------------------------------------------------------

TEST(PalettePng, RoundTripKeepsIndicesAndPalette) {
  TempDir tmp;
  Mask m;
  m.image = gray(7, 5, DType::U8);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) m.image.row(y)[x] = static_cast<std::uint8_t>((x * 3 + y) % 4);
  m.palette = Palette{{{0, 0, 0}, {128, 0, 0}, {0, 128, 0}, {224, 224, 192}}, {0, 255, 128}};
  const fs::path file = tmp.path() / "m.png";
  write_bytes(file, labels::encode_mask_png(m));

  const Mask back = labels::read_mask(file);
  ASSERT_EQ(back.image.shape(), (Shape{7, 5, 1, DType::U8}));
  ASSERT_TRUE(back.palette.has_value());
  EXPECT_EQ(back.palette->colors, m.palette->colors);
  EXPECT_EQ(back.palette->alpha, m.palette->alpha);
  EXPECT_EQ(0, std::memcmp(back.image.data(), m.image.data(), m.image.shape().bytes()));
}

TEST(PalettePng, WithoutTrnsHasNoAlpha) {
  TempDir tmp;
  Mask m;
  m.image = gray(3, 2, DType::U8);
  const std::uint8_t v[6] = {0, 1, 2, 2, 1, 0};
  std::memcpy(m.image.data(), v, 6);
  m.palette = Palette{{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, {}};
  const fs::path file = tmp.path() / "m.png";
  write_bytes(file, labels::encode_mask_png(m));
  const Mask back = labels::read_mask(file);
  ASSERT_TRUE(back.palette.has_value());
  EXPECT_EQ(back.palette->colors, m.palette->colors);
  EXPECT_TRUE(back.palette->alpha.empty());
  EXPECT_EQ(0, std::memcmp(back.image.data(), v, 6));
}

TEST(PalettePng, BitDepthTwoDecodesToOneIndexPerByte) {
  TempDir tmp;
  // 5 pixels wide: 2 bits each, packed MSB first, padded in the row's last byte.
  const std::vector<std::uint8_t> idx0 = {0, 1, 2, 3, 1};
  const std::vector<std::uint8_t> idx1 = {3, 3, 0, 2, 2};
  auto pack = [](const std::vector<std::uint8_t>& idx) {
    std::vector<std::uint8_t> row(2, 0);
    for (std::size_t i = 0; i < idx.size(); ++i) row[i / 4] |= static_cast<std::uint8_t>(idx[i] << (6 - 2 * (i % 4)));
    return row;
  };
  RawPng raw;
  raw.width = 5;
  raw.height = 2;
  raw.depth = 2;
  raw.color = PNG_COLOR_TYPE_PALETTE;
  raw.rows = {pack(idx0), pack(idx1)};
  raw.palette = {{10, 20, 30}, {40, 50, 60}, {70, 80, 90}, {100, 110, 120}};
  raw.trns = {0};
  const fs::path file = tmp.path() / "two_bit.png";
  write_bytes(file, write_raw_png(raw));

  const Mask m = labels::read_mask(file);
  ASSERT_EQ(m.image.shape(), (Shape{5, 2, 1, DType::U8}));
  EXPECT_EQ(std::vector<std::uint8_t>(m.image.row(0), m.image.row(0) + 5), idx0);
  EXPECT_EQ(std::vector<std::uint8_t>(m.image.row(1), m.image.row(1) + 5), idx1);
  ASSERT_TRUE(m.palette.has_value());
  ASSERT_EQ(m.palette->colors.size(), 4u);
  EXPECT_EQ(m.palette->colors[3], (std::array<std::uint8_t, 3>{100, 110, 120}));
  EXPECT_EQ(m.palette->alpha, std::vector<std::uint8_t>{0});
}

TEST(PalettePng, InterlacedPaletteDecodes) {
  TempDir tmp;
  RawPng raw;
  raw.width = 9;
  raw.height = 6;
  raw.color = PNG_COLOR_TYPE_PALETTE;
  raw.interlaced = true;
  raw.palette.resize(20);
  for (int y = 0; y < 6; ++y) {
    raw.rows.emplace_back();
    for (int x = 0; x < 9; ++x) raw.rows.back().push_back(static_cast<std::uint8_t>((x + 2 * y) % 20));
  }
  const fs::path file = tmp.path() / "interlaced.png";
  write_bytes(file, write_raw_png(raw));
  const Mask m = labels::read_mask(file);
  ASSERT_EQ(m.image.shape(), (Shape{9, 6, 1, DType::U8}));
  for (int y = 0; y < 6; ++y)
    EXPECT_EQ(std::vector<std::uint8_t>(m.image.row(y), m.image.row(y) + 9), raw.rows[y]) << "row " << y;
}

TEST(PalettePng, EncodeRefusesIndexBeyondPalette) {
  Mask m;
  m.image = gray(2, 1, DType::U8);
  m.image.row(0)[0] = 0;
  m.image.row(0)[1] = 3;
  m.palette = Palette{{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}, {}};
  EXPECT_THROW(labels::encode_mask_png(m), InputError);
  m.image.row(0)[1] = 2;
  EXPECT_NO_THROW(labels::encode_mask_png(m));
  m.palette->alpha = {1, 2, 3, 4};  // more alpha than colours
  EXPECT_THROW(labels::encode_mask_png(m), InputError);
}

// ---- gray label maps ------------------------------------------------------------------------

TEST(MaskFolder, Gray8RoundTripsExactly) {
  TempDir tmp;
  Mask m;
  m.image = gray(256, 3, DType::U8);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 256; ++x) m.image.row(y)[x] = static_cast<std::uint8_t>(x ^ (y * 37));
  const fs::path file = tmp.path() / "g8.png";
  write_bytes(file, labels::encode_mask_png(m));
  const Mask back = labels::read_mask(file);
  EXPECT_FALSE(back.palette.has_value());
  ASSERT_EQ(back.image.shape(), m.image.shape());
  EXPECT_EQ(0, std::memcmp(back.image.data(), m.image.data(), m.image.shape().bytes()));
}

TEST(MaskFolder, Gray16RoundTripsExactly) {
  TempDir tmp;
  Mask m;
  m.image = gray(4, 2, DType::U16);
  const std::uint16_t v[8] = {0x1234, 65535, 0, 1, 0x00FF, 0xFF00, 0xABCD, 256};
  std::memcpy(m.image.data(), v, sizeof v);
  const std::vector<std::uint8_t> bytes = labels::encode_mask_png(m);
  const fs::path file = tmp.path() / "g16.png";
  write_bytes(file, bytes);
  const Mask back = labels::read_mask(file);
  EXPECT_FALSE(back.palette.has_value());
  ASSERT_EQ(back.image.shape(), (Shape{4, 2, 1, DType::U16}));
  const auto* got = reinterpret_cast<const std::uint16_t*>(back.image.data());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], v[i]) << "value " << i;
}

TEST(MaskFolder, Gray16FileIsBigEndianOnDisk) {
  // A 16-bit PNG from another tool: stored big-endian, read as the numbers it holds.
  TempDir tmp;
  RawPng raw;
  raw.width = 2;
  raw.height = 1;
  raw.depth = 16;
  raw.rows = {{0x12, 0x34, 0xFF, 0xFE}};
  const fs::path file = tmp.path() / "be.png";
  write_bytes(file, write_raw_png(raw));
  const Mask m = labels::read_mask(file);
  ASSERT_EQ(m.image.shape(), (Shape{2, 1, 1, DType::U16}));
  const auto* got = reinterpret_cast<const std::uint16_t*>(m.image.data());
  EXPECT_EQ(got[0], 0x1234);
  EXPECT_EQ(got[1], 0xFFFE);
}

TEST(MaskFolder, LowBitGrayKeepsRawValues) {
  TempDir tmp;
  RawPng raw;
  raw.width = 8;
  raw.height = 1;
  raw.depth = 1;
  raw.rows = {{0b10110001}};
  const fs::path file = tmp.path() / "bits.png";
  write_bytes(file, write_raw_png(raw));
  const Mask m = labels::read_mask(file);
  ASSERT_EQ(m.image.shape(), (Shape{8, 1, 1, DType::U8}));
  EXPECT_EQ(std::vector<std::uint8_t>(m.image.row(0), m.image.row(0) + 8),
            (std::vector<std::uint8_t>{1, 0, 1, 1, 0, 0, 0, 1}));
}

TEST(MaskFolder, SingleChannelTiffReadThroughDecoder) {
  TempDir tmp;
  Image im = gray(3, 2, DType::U16);
  const std::uint16_t v[6] = {0x1234, 65535, 0, 7, 300, 0x8001};
  std::memcpy(im.data(), v, sizeof v);
  const fs::path file = tmp.path() / "m.tif";
  write_bytes(file, encode_image(im, Format::Tiff, EncodeOptions{}).bytes);
  const Mask m = labels::read_mask(file);
  EXPECT_FALSE(m.palette.has_value());
  ASSERT_EQ(m.image.shape(), (Shape{3, 2, 1, DType::U16}));
  EXPECT_EQ(0, std::memcmp(m.image.data(), v, sizeof v));

  Image rgb(Shape{3, 2, 3, DType::U8});
  std::memset(rgb.data(), 9, rgb.shape().bytes());
  const fs::path colour = tmp.path() / "c.tif";
  write_bytes(colour, encode_image(rgb, Format::Tiff, EncodeOptions{}).bytes);
  try {
    labels::read_mask(colour);
    FAIL() << "an RGB TIFF mask was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(colour.string()), std::string::npos) << e.what();
  }
}

// ---- refused files --------------------------------------------------------------------------

TEST(MaskFolder, RgbPngRefusedNamingTheFile) {
  TempDir tmp;
  RawPng raw;
  raw.width = 2;
  raw.height = 1;
  raw.color = PNG_COLOR_TYPE_RGB;
  raw.rows = {{1, 2, 3, 4, 5, 6}};
  const fs::path file = tmp.path() / "colour_mask.png";
  write_bytes(file, write_raw_png(raw));
  try {
    labels::read_mask(file);
    FAIL() << "an RGB mask was accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("single-channel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("palette PNG"), std::string::npos) << msg;
  }
}

TEST(MaskFolder, TruncatedFileRefusedNamingTheFile) {
  TempDir tmp;
  Mask m;
  m.image = gray(64, 64, DType::U8);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) m.image.row(y)[x] = static_cast<std::uint8_t>((x * 7 + y * 13) & 0xFF);
  std::vector<std::uint8_t> bytes = labels::encode_mask_png(m);
  bytes.resize(bytes.size() / 2);
  const fs::path file = tmp.path() / "cut.png";
  write_bytes(file, bytes);
  try {
    labels::read_mask(file);
    FAIL() << "a truncated mask was accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  }
}

TEST(MaskFolder, MissingOrEmptyFileRefused) {
  TempDir tmp;
  EXPECT_THROW(labels::read_mask(tmp.path() / "none.png"), InputError);
  touch(tmp.path() / "empty.png");
  EXPECT_THROW(labels::read_mask(tmp.path() / "empty.png"), InputError);
}

TEST(MaskFolder, EncodeRefusesMultiChannel) {
  Mask m;
  m.image = Image(Shape{2, 2, 3, DType::U8});
  EXPECT_THROW(labels::encode_mask_png(m), InputError);
  m.image = Image(Shape{2, 2, 1, DType::F32});
  EXPECT_THROW(labels::encode_mask_png(m), InputError);
  m.image = gray(2, 2, DType::U16);
  m.palette = Palette{{{0, 0, 0}}, {}};
  EXPECT_THROW(labels::encode_mask_png(m), InputError);  // palette PNGs are 8-bit
}

// ---- the folder -----------------------------------------------------------------------------

TEST(MaskFolder, FindsNestedMasksWithSuffix) {
  TempDir tmp;
  const fs::path masks = tmp.path() / "masks";
  touch(masks / "city" / "a" / "img_001_mask.png");
  touch(masks / "top_mask.png");
  const MaskFolder folder(masks, "_mask.png");

  const auto nested = folder.find("city/a/img_001.jpg");
  ASSERT_TRUE(nested.has_value());
  EXPECT_EQ(*nested, masks / "city" / "a" / "img_001_mask.png");
  const auto top = folder.find("top.jpeg");
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(*top, masks / "top_mask.png");
  // Only the last extension is replaced.
  EXPECT_EQ(folder.path_for("x/a.b.tif"), masks / "x" / "a.b_mask.png");
}

TEST(MaskFolder, MissingMaskIsNullopt) {
  TempDir tmp;
  const fs::path masks = tmp.path() / "masks";
  touch(masks / "a" / "img.png");  // default suffix: same name, .png
  const MaskFolder folder(masks);
  EXPECT_TRUE(folder.find("a/img.jpg").has_value());
  EXPECT_FALSE(folder.find("a/other.jpg").has_value());
  EXPECT_FALSE(folder.find("b/img.jpg").has_value());
  fs::create_directories(masks / "dir.png");  // a folder is no mask
  EXPECT_FALSE(folder.find("dir.jpg").has_value());
}

TEST(MaskFolder, OutputPathRule) {
  EXPECT_EQ(MaskFolder::output_path("/out/masks", "a/b/img_aug3.jpg", "_mask.png"),
            fs::path("/out/masks/a/b/img_aug3_mask.png"));
  EXPECT_EQ(MaskFolder::output_path("out", "img.webp", ".png"), fs::path("out/img.png"));
  EXPECT_EQ(MaskFolder::output_path("out", "x/y.z.jpg", "_gtFine_labelIds.png"),
            fs::path("out/x/y.z_gtFine_labelIds.png"));
}

TEST(MaskFolder, NotAFolderIsUsageError) {
  TempDir tmp;
  EXPECT_THROW(MaskFolder(tmp.path() / "nope"), UsageError);
  touch(tmp.path() / "file");
  EXPECT_THROW(MaskFolder(tmp.path() / "file"), UsageError);
  EXPECT_THROW(MaskFolder(tmp.path(), ""), UsageError);
  EXPECT_NO_THROW(MaskFolder(tmp.path()));
}

}  // namespace
}  // namespace aug::test_labels_masks
