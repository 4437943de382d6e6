// Decoding and encoding real files, and every way a file can be bad.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include <zlib.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/io/probe.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_io {
namespace {

using testing::compare;
using testing::mat;
using testing::random_image;

std::vector<std::uint8_t> cv_encode(const Image& rgb, const std::string& ext, std::vector<int> params = {}) {
  cv::Mat bgr;
  if (rgb.channels() == 3) cv::cvtColor(mat(rgb), bgr, cv::COLOR_RGB2BGR);
  else if (rgb.channels() == 4) cv::cvtColor(mat(rgb), bgr, cv::COLOR_RGBA2BGRA);
  else bgr = mat(rgb);
  std::vector<std::uint8_t> out;
  EXPECT_TRUE(testing::imencode(ext, bgr, out, params));
  return out;
}

std::string decode_error(const std::vector<std::uint8_t>& bytes, DecodeOptions o = {}) {
  try {
    decode_image(bytes.data(), bytes.size(), o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(decoded)";
}

using testing::exif_block;
using testing::jpeg_with_orientation;

std::vector<std::uint8_t> png_with_orientation(const std::vector<std::uint8_t>& png, int orientation) {
  const auto data = exif_block(orientation);
  std::vector<std::uint8_t> chunk{0, 0, 0, static_cast<std::uint8_t>(data.size()), 'e', 'X', 'I', 'f'};
  chunk.insert(chunk.end(), data.begin(), data.end());
  const uLong crc = crc32(0, chunk.data() + 4, static_cast<uInt>(chunk.size() - 4));
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(static_cast<std::uint8_t>(crc >> s));
  std::vector<std::uint8_t> out(png.begin(), png.begin() + 33);  // signature + IHDR
  out.insert(out.end(), chunk.begin(), chunk.end());
  out.insert(out.end(), png.begin() + 33, png.end());
  return out;
}

TEST(Probe, ReadsSizeAndFormatOfEveryFormat) {
  const Image im = random_image({37, 21, 3, DType::U8}, 1);
  const std::pair<std::string, Format> cases[] = {{".jpg", Format::Jpeg}, {".png", Format::Png}, {".bmp", Format::Bmp},
                                                  {".tiff", Format::Tiff}, {".webp", Format::Webp}};
  for (const auto& [ext, format] : cases) {
    const auto bytes = cv_encode(im, ext);
    const ImageInfo info = probe(bytes.data(), bytes.size());
    EXPECT_EQ(info.format, format) << ext;
    EXPECT_EQ(info.width, 37) << ext;
    EXPECT_EQ(info.height, 21) << ext;
    EXPECT_EQ(info.orientation, 1) << ext;
  }
  const auto lossless = cv_encode(im, ".webp", {cv::IMWRITE_WEBP_QUALITY, 101});
  EXPECT_EQ(probe(lossless.data(), lossless.size()).width, 37);
}

// Found by tests/fuzz/fuzz_decode: a classic TIFF entry of type LONG8 (16) was read as 8 bytes
// from its 4-byte value field, past the entry and past the end of the data.
TEST(Probe, ClassicTiffEntriesAreReadWithinTheirTwelveBytes) {
  // IFD0 with one entry, orientation (274) typed LONG8 = 6, ending the data (no next-IFD offset).
  std::vector<std::uint8_t> tiff = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 16, 0, 1, 0, 0, 0, 6, 0, 0, 0};
  const std::size_t size = tiff.size();
  tiff.resize(size + 8, 0);  // what an 8-byte read would take: not part of the data
  EXPECT_EQ(exif_orientation(tiff.data(), size), 1);  // LONG8 is no classic TIFF type: ignored
  // The same as the width of a TIFF file: no usable width, so the header is refused.
  std::vector<std::uint8_t> file = {'I', 'I', 42, 0, 8, 0, 0, 0, 2, 0,
                                    0x01, 0x01, 3, 0, 1, 0, 0, 0, 5, 0, 0, 0,      // height (257) SHORT 5
                                    0x00, 0x01, 16, 0, 1, 0, 0, 0, 9, 0, 0, 0};    // width (256) LONG8 9
  const std::size_t file_size = file.size();
  file.resize(file_size + 8, 0);
  EXPECT_THROW(probe(file.data(), file_size), InputError);
  // BigTIFF's 20-byte entries do hold LONG8 values.
  const std::vector<std::uint8_t> big = {'I', 'I', 43, 0, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0,  // IFD0 at 16
                                         2, 0, 0, 0, 0, 0, 0, 0,                                 // two entries
                                         0x00, 0x01, 16, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0,
                                         0x01, 0x01, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
  const ImageInfo info = probe(big.data(), big.size());
  EXPECT_EQ(info.width, 9);
  EXPECT_EQ(info.height, 5);
}

// Found by tests/fuzz/fuzz_decode: a TIFF whose IFD repeats ImageWidth (5, then 1) was probed as
// 1 pixel wide and decoded 5 wide by libtiff, which takes the first; --max-pixels checked the wrong
// size. The probe now reads the first, and the decoded size must be the probed one.
TEST(Probe, RepeatedTiffTagsCountOnceAsLibtiffReadsThem) {
  const auto bytes = testing::read_bytes(testing::source_dir() / "tests/fuzz/corpus/fuzz_decode/crash-tiff-repeated-width");
  const ImageInfo info = probe(bytes.data(), bytes.size());
  EXPECT_EQ(info.width, 5);
  EXPECT_EQ(info.height, 4);
  const Image image = decode_image(bytes.data(), bytes.size(), {});
  EXPECT_EQ(image.width(), 5);
  EXPECT_EQ(image.height(), 4);
}

// The VP8X chunk's 24-bit canvas size is read as three bytes: a chunk that ends the file exactly
// was read one byte past its end (AddressSanitizer reports it without the fix).
TEST(Probe, WebpCanvasSizeIsReadWithinItsChunk) {
  std::vector<std::uint8_t> webp = {'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W', 'E', 'B', 'P',
                                    'V', 'P', '8', 'X', 10, 0, 0, 0, 0, 0, 0, 0,
                                    0x1F, 0x01, 0x00,   // width - 1 = 287
                                    0x0B, 0x02, 0x00};  // height - 1 = 523
  ASSERT_EQ(webp.size(), 30u);
  const auto exact = std::make_unique<std::uint8_t[]>(webp.size());  // nothing readable after it
  std::copy(webp.begin(), webp.end(), exact.get());
  const ImageInfo info = probe(exact.get(), webp.size());
  EXPECT_EQ(info.format, Format::Webp);
  EXPECT_EQ(info.width, 288);
  EXPECT_EQ(info.height, 524);
}

// Found by fuzzing: a WebP header OpenCV's WebP decoder rejects, with "DICM" at byte 128, made
// cv::imdecode hand a few hundred bytes to its DICOM reader, which allocated gigabytes.
TEST(Decode, ADicomSignatureNeverReachesOpenCVsDicomReader) {
  for (const char* name : {"regression-webp-signature-dicom-oom", "regression-webp-vp8l-dicom-oom"}) {
    const auto bytes = testing::read_bytes(testing::source_dir() / "tests/fuzz/corpus/fuzz_decode" / name);
    try {
      decode_image(bytes.data(), bytes.size(), {});
      FAIL() << name << ": expected an InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("DICOM signature"), std::string::npos) << e.what();
    }
  }
}

TEST(Decode, JpegEqualsOpenCVsDecoder) {
  for (const char* name : {"astronaut.jpg", "rocket.jpg"}) {
    const auto bytes = testing::read_bytes(testing::samples_dir() / name);
    const Image ours = decode_image(bytes.data(), bytes.size(), {});
    cv::Mat theirs = testing::imdecode(bytes, cv::IMREAD_COLOR);
    cv::cvtColor(theirs, theirs, cv::COLOR_BGR2RGB);
    EXPECT_EQ(compare(ours, testing::from_mat(theirs)).count, 0u) << name;
  }
}

TEST(Decode, KeepsSampleTypeAndChannels) {
  struct Case {
    Shape shape;
    std::string ext;
  };
  for (const Case& c : {Case{{9, 7, 1, DType::U8}, ".png"}, Case{{9, 7, 4, DType::U8}, ".png"},
                        Case{{9, 7, 3, DType::U16}, ".png"}, Case{{9, 7, 1, DType::U16}, ".png"},
                        Case{{9, 7, 3, DType::F32}, ".tiff"}, Case{{9, 7, 4, DType::U16}, ".tiff"},
                        Case{{9, 7, 3, DType::U8}, ".bmp"}, Case{{9, 7, 3, DType::U8}, ".webp"}}) {
    const Image im = random_image(c.shape, 3);
    auto params = c.ext == ".webp"   ? std::vector<int>{cv::IMWRITE_WEBP_QUALITY, 101}
                  : c.ext == ".tiff" ? std::vector<int>{cv::IMWRITE_TIFF_COMPRESSION, 5}  // float default: LogLuv
                                     : std::vector<int>{};
    const auto bytes = cv_encode(im, c.ext, params);
    const Image back = decode_image(bytes.data(), bytes.size(), {});
    ASSERT_EQ(back.shape(), im.shape()) << to_string(c.shape) << c.ext;
    EXPECT_EQ(compare(back, im).count, 0u) << to_string(c.shape) << c.ext;  // all lossless here
  }
}

void put_chunk(std::vector<std::uint8_t>& png, const char* type, const std::vector<std::uint8_t>& data) {
  const auto n = static_cast<std::uint32_t>(data.size());
  std::vector<std::uint8_t> chunk{static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                                  static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
  chunk.insert(chunk.end(), type, type + 4);
  chunk.insert(chunk.end(), data.begin(), data.end());
  const uLong crc = crc32(0, chunk.data() + 4, static_cast<uInt>(chunk.size() - 4));
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(static_cast<std::uint8_t>(crc >> s));
  png.insert(png.end(), chunk.begin(), chunk.end());
}

TEST(Decode, PalettePngIsExpandedToRgbAndTransparencyToAlpha) {
  // 3x1, colour type 3 (palette): red, green, blue; then the same with a tRNS making green transparent.
  for (const bool transparent : {false, true}) {
    std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    put_chunk(png, "IHDR", {0, 0, 0, 3, 0, 0, 0, 1, 8, 3, 0, 0, 0});
    put_chunk(png, "PLTE", {255, 0, 0, 0, 255, 0, 0, 0, 255});
    if (transparent) put_chunk(png, "tRNS", {255, 0, 255});
    const std::uint8_t raw[] = {0, 0, 1, 2};  // filter byte, then the indices
    uLongf size = 64;
    std::vector<std::uint8_t> z(size);
    ASSERT_EQ(compress(z.data(), &size, raw, sizeof raw), Z_OK);
    z.resize(size);
    put_chunk(png, "IDAT", z);
    put_chunk(png, "IEND", {});
    const Image im = decode_image(png.data(), png.size(), {});
    ASSERT_EQ(im.shape(), (Shape{3, 1, transparent ? 4 : 3, DType::U8}));
    const int C = im.channels();
    EXPECT_EQ(im.data()[0], 255);
    EXPECT_EQ(im.data()[C + 1], 255);
    EXPECT_EQ(im.data()[2 * C + 2], 255);
    if (transparent) {
      EXPECT_EQ(im.data()[3], 255);
      EXPECT_EQ(im.data()[C + 3], 0);
    }
  }
  EXPECT_EQ(testing::sample("coffee_rgba.png").channels(), 4);
  EXPECT_EQ(testing::sample("camera.png").channels(), 1);
}

TEST(Decode, AppliesExifOrientation) {
  const Image im = random_image({30, 20, 3, DType::U8}, 4);
  const auto jpeg = jpeg_encode(im.ref(), 95);
  const Image upright = decode_image(jpeg.data(), jpeg.size(), {});
  const std::pair<int, int> cases[] = {{2, 1}, {3, -1}, {4, 0}};
  for (const auto& [orientation, flip] : cases) {
    const auto tagged = jpeg_with_orientation(jpeg, orientation);
    ImageInfo info;
    const Image turned = decode_image(tagged.data(), tagged.size(), {}, &info);
    EXPECT_EQ(info.orientation, orientation);
    cv::Mat expected;
    cv::flip(mat(upright), expected, flip);
    EXPECT_EQ(compare(turned, testing::from_mat(expected)).count, 0u) << orientation;
  }
  const auto rotated = jpeg_with_orientation(jpeg, 6);
  const Image cw = decode_image(rotated.data(), rotated.size(), {});
  cv::Mat expected;
  cv::rotate(mat(upright), expected, cv::ROTATE_90_CLOCKWISE);
  EXPECT_EQ(cw.width(), 20);
  EXPECT_EQ(compare(cw, testing::from_mat(expected)).count, 0u);

  const auto png = png_with_orientation(cv_encode(im, ".png"), 8);
  const Image ccw = decode_image(png.data(), png.size(), {});
  cv::rotate(mat(im), expected, cv::ROTATE_90_COUNTERCLOCKWISE);
  EXPECT_EQ(compare(ccw, testing::from_mat(expected)).count, 0u);
}

TEST(Decode, PixelsGoWhereTheAllocatorSaysUnlessTheyMustMove) {
  // An allocator that keeps what it handed out, its memory poisoned as a reused buffer would be.
  std::vector<Image> given;
  DecodeOptions options;
  options.allocate = [&](const Shape& shape) {
    Image im(shape);
    std::memset(im.data(), 0xA5, shape.bytes());
    given.push_back(im);
    return im;
  };
  const Image im = random_image({30, 20, 3, DType::U8}, 5);
  const auto jpeg = jpeg_encode(im.ref(), 95);
  const auto png = cv_encode(random_image({30, 20, 4, DType::U16}, 6), ".png");
  const auto tiff = cv_encode(im, ".tiff");
  struct Case {
    const char* what;
    std::vector<std::uint8_t> bytes;
    bool allocated;  // the decoder's buffer is the result
  };
  for (const Case& c : {Case{"jpeg", jpeg, true}, Case{"png", png, true}, Case{"jpeg, EXIF-rotated", jpeg_with_orientation(jpeg, 6), false},
                        Case{"tiff (OpenCV)", tiff, false}}) {
    given.clear();
    const Image plain = decode_image(c.bytes.data(), c.bytes.size(), {});
    const Image placed = decode_image(c.bytes.data(), c.bytes.size(), options);
    EXPECT_EQ(compare(placed, plain).count, 0u) << c.what;
    if (c.allocated) {
      ASSERT_EQ(given.size(), 1u) << c.what;
      EXPECT_EQ(placed.data(), given.front().data()) << c.what;
    } else {
      for (const Image& g : given) EXPECT_NE(placed.data(), g.data()) << c.what;
    }
  }
  // A region decode fills what it does not rebuild with 0, in the allocator's buffer too.
  options.region = [](const Shape&) { return std::optional<PixelRect>(PixelRect{0, 0, 8, 8}); };
  given.clear();
  const auto big = jpeg_encode(random_image({64, 64, 3, DType::U8}, 7).ref(), 90);
  const Image region = decode_image(big.data(), big.size(), options);
  ASSERT_EQ(given.size(), 1u);
  EXPECT_EQ(region.data()[region.pitch() * 63 + 63 * 3], 0);
}

TEST(BadInput, EmptyNotAnImageTruncatedCorruptOversized) {
  EXPECT_EQ(decode_error({}), "empty file");
  EXPECT_EQ(decode_error({'h', 'e', 'l', 'l', 'o', '\n'}), "not an image (no JPEG, PNG, BMP, TIFF or WebP signature)");

  const auto jpeg = testing::read_bytes(testing::samples_dir() / "rocket.jpg");
  const std::vector<std::uint8_t> half(jpeg.begin(), jpeg.begin() + static_cast<long>(jpeg.size() / 2));
  EXPECT_EQ(decode_error(half), "truncated JPEG (premature end of the file; --allow-truncated accepts it)");
  DecodeOptions allow;
  allow.allow_truncated = true;
  EXPECT_EQ(decode_error(half, allow), "(decoded)");
  const std::vector<std::uint8_t> header_only(jpeg.begin(), jpeg.begin() + 30);
  EXPECT_NE(decode_error(header_only).find("truncated JPEG header"), std::string::npos);

  auto bad_huffman = jpeg;  // a DHT table that defines no codes: libjpeg rejects it
  for (std::size_t i = 2; i + 4 < bad_huffman.size(); ++i)
    if (bad_huffman[i] == 0xFF && bad_huffman[i + 1] == 0xC4) {
      for (std::size_t j = i + 5; j < i + 5 + 16; ++j) bad_huffman[j] = 0;
      break;
    }
  EXPECT_EQ(decode_error(bad_huffman).rfind("corrupt JPEG", 0), 0u) << decode_error(bad_huffman);

  const auto png = testing::read_bytes(testing::samples_dir() / "chelsea.png");
  const std::vector<std::uint8_t> png_half(png.begin(), png.begin() + static_cast<long>(png.size() / 2));
  EXPECT_EQ(decode_error(png_half), "truncated PNG (a chunk runs past the end of the file)");
  auto png_bad_crc = png;
  png_bad_crc[png.size() / 2] ^= 0x55;  // inside IDAT
  EXPECT_EQ(decode_error(png_bad_crc).rfind("corrupt PNG (", 0), 0u) << decode_error(png_bad_crc);

  auto huge = png;  // IHDR claims 20000 x 20000
  for (int i = 16; i < 24; ++i) huge[i] = 0;
  huge[18] = huge[22] = 0x4E;
  huge[19] = huge[23] = 0x20;
  EXPECT_EQ(decode_error(huge), "20000x20000 is 400.0 megapixels, over --max-pixels (100.0)");

  const auto bmp = cv_encode(random_image({40, 30, 3, DType::U8}, 2), ".bmp");
  EXPECT_EQ(decode_error(std::vector<std::uint8_t>(bmp.begin(), bmp.end() - 100)), "truncated BMP (pixel data ends early)");
  const auto tiff = cv_encode(random_image({40, 30, 3, DType::U8}, 2), ".tiff");
  EXPECT_EQ(decode_error(std::vector<std::uint8_t>(tiff.begin(), tiff.begin() + 100)), "truncated or corrupt TIFF header");
}

TEST(Encode, ConvertsWhatTheFormatCannotHoldAndSaysSo) {
  const Image rgba16 = random_image({10, 8, 4, DType::U16}, 5);
  const Encoded jpg = encode_image(rgba16, Format::Jpeg, {90});
  EXPECT_EQ(jpg.conversion, "16-bit to 8-bit, alpha dropped");
  const Image back = decode_image(jpg.bytes.data(), jpg.bytes.size(), {});
  EXPECT_EQ(back.shape(), (Shape{10, 8, 3, DType::U8}));

  const Encoded png = encode_image(rgba16, Format::Png, {});
  EXPECT_EQ(png.conversion, "");
  EXPECT_EQ(compare(decode_image(png.bytes.data(), png.bytes.size(), {}), rgba16).count, 0u);

  const Image f32 = random_image({10, 8, 3, DType::F32}, 6);
  const Encoded tif = encode_image(f32, Format::Tiff, {});
  EXPECT_EQ(compare(decode_image(tif.bytes.data(), tif.bytes.size(), {}), f32).count, 0u);
  EXPECT_EQ(encode_image(f32, Format::Png, {}).conversion, "float to 16-bit");
}

TEST(Encode, JpegMatchesOpenCVsEncoderSettings) {
  const Image im = testing::sample("chelsea.png");
  for (int q : {50, 90, 95}) {
    const auto ours = jpeg_encode(im.ref(), q);
    const auto theirs = cv_encode(im, ".jpg", {cv::IMWRITE_JPEG_QUALITY, q});
    const Image a = decode_image(ours.data(), ours.size(), {});
    const Image b = decode_image(theirs.data(), theirs.size(), {});
    EXPECT_EQ(compare(a, b).count, 0u) << q;  // same libjpeg settings: same pixels
  }
}

TEST(Conversions, RoundTripAndRounding) {
  const Image u8 = random_image({5, 5, 3, DType::U8}, 9);
  EXPECT_EQ(compare(to_u8(to_u16(u8)), u8).count, 0u);
  EXPECT_EQ(compare(to_u8(to_f32(u8)), u8).count, 0u);
  Image one({1, 1, 1, DType::U16});
  reinterpret_cast<std::uint16_t*>(one.data())[0] = 128;  // 128 / 257 = 0.498: rounds to 0
  EXPECT_EQ(to_u8(one).data()[0], 0);
  reinterpret_cast<std::uint16_t*>(one.data())[0] = 129;
  EXPECT_EQ(to_u8(one).data()[0], 1);
}

// Shrink-on-load: libjpeg-turbo's scaled decoding, as OpenCV's IMREAD_REDUCED_* modes give it.
TEST(Decode, ShrinkDecodesInTheDctDomainAtTheAskedScale) {
  cv::Mat big;
  cv::resize(testing::imread((testing::samples_dir() / "astronaut.jpg").string()), big, {1001, 763}, 0, 0, cv::INTER_CUBIC);
  std::vector<std::uint8_t> jpeg;
  ASSERT_TRUE(testing::imencode(".jpg", big, jpeg, {cv::IMWRITE_JPEG_QUALITY, 90}));
  const std::pair<int, int> modes[] = {{2, cv::IMREAD_REDUCED_COLOR_2}, {4, cv::IMREAD_REDUCED_COLOR_4},
                                       {8, cv::IMREAD_REDUCED_COLOR_8}};
  for (const auto& [n_, mode] : modes) {
    const int n = n_;  // C++20 lets a lambda capture a structured binding; clang 14 does not yet
    DecodeOptions o;
    Shape asked;
    o.shrink = [&](const Shape& full) {
      asked = full;
      return n;
    };
    ImageInfo info;
    const Image im = decode_image(jpeg.data(), jpeg.size(), o, &info);
    EXPECT_EQ(asked, (Shape{1001, 763, 3, DType::U8}));
    EXPECT_EQ(info.shrink, n);
    EXPECT_EQ(im.shape(), (Shape{(1001 + n - 1) / n, (763 + n - 1) / n, 3, DType::U8})) << n;
    cv::Mat reduced = testing::imdecode(jpeg, mode), rgb;
    cv::cvtColor(reduced, rgb, cv::COLOR_BGR2RGB);
    EXPECT_EQ(compare(im, testing::from_mat(rgb)).count, 0u) << n;
  }
  // 1: the full decode; other scales are refused.
  DecodeOptions one;
  one.shrink = [](const Shape&) { return 1; };
  EXPECT_EQ(compare(decode_image(jpeg.data(), jpeg.size(), one), decode_image(jpeg.data(), jpeg.size(), {})).count, 0u);
  DecodeOptions three;
  three.shrink = [](const Shape&) { return 3; };
  EXPECT_THROW(decode_image(jpeg.data(), jpeg.size(), three), std::invalid_argument);
}

TEST(Decode, ShrinkSeesTheOrientedSizeAndLeavesOtherFormatsWhole) {
  const Image im = random_image({64, 32, 3, DType::U8}, 9);
  const auto rotated = jpeg_with_orientation(jpeg_encode(im.ref(), 95), 6);
  DecodeOptions o;
  Shape asked;
  o.shrink = [&](const Shape& full) {
    asked = full;
    return 4;
  };
  const Image cw = decode_image(rotated.data(), rotated.size(), o);
  EXPECT_EQ(asked, (Shape{32, 64, 3, DType::U8}));  // as the stages will see it: turned
  EXPECT_EQ(cw.shape(), (Shape{8, 16, 3, DType::U8}));

  const Image gray = random_image({40, 24, 1, DType::U8}, 3);
  const auto g = jpeg_encode(gray.ref(), 90);
  EXPECT_EQ(decode_image(g.data(), g.size(), o).shape(), (Shape{10, 6, 1, DType::U8}));
  EXPECT_EQ(asked.channels, 1);

  bool called = false;
  o.shrink = [&](const Shape&) {
    called = true;
    return 2;
  };
  const auto png = encode_image(im, Format::Png, {}).bytes;
  EXPECT_EQ(decode_image(png.data(), png.size(), o).shape(), im.shape());
  EXPECT_FALSE(called);
}

// Region decode: inside the window every value is the whole decode's, for each chroma sampling,
// gray, progressive files whole and cut short, every scale and windows at every offset; far
// outside it, 0.
TEST(Decode, ARegionHasTheWholeDecodesValues) {
  cv::Mat photo;
  cv::resize(testing::imread((testing::samples_dir() / "astronaut.jpg").string()), photo, {333, 271});
  cv::cvtColor(photo, photo, cv::COLOR_BGR2RGB);
  const Image rgb = testing::from_mat(photo);
  const Image gray = testing::sample("camera.png");
  // A progressive file cut short is rebuilt from the scans it has, with libjpeg's block smoothing
  // (each block's low frequencies estimated from its neighbours' DC values): the window must reach
  // those neighbours too.
  const auto cut = [](std::vector<std::uint8_t> bytes) {
    // Halfway between the second and third start-of-scan markers: inside the second scan's data.
    std::vector<std::size_t> scans;
    for (std::size_t i = 0; i + 1 < bytes.size(); ++i)
      if (bytes[i] == 0xFF && bytes[i + 1] == 0xDA) scans.push_back(i);
    if (scans.size() < 3) throw std::runtime_error("expected at least 3 scans");
    bytes.resize((scans[1] + scans[2]) / 2);
    return bytes;
  };
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
      {"4:4:4", testing::jpeg_variant(rgb, 90, {1, 1})},
      {"4:2:2", testing::jpeg_variant(rgb, 90, {2, 1})},
      {"4:2:0", testing::jpeg_variant(rgb, 90, {2, 2})},
      {"4:4:0", testing::jpeg_variant(rgb, 90, {1, 2})},
      {"progressive 4:2:0", testing::jpeg_variant(rgb, 90, {2, 2, true})},
      {"progressive 4:2:0 cut short", cut(testing::jpeg_variant(rgb, 90, {2, 2, true}))},
      {"progressive 4:4:4 cut short", cut(testing::jpeg_variant(rgb, 90, {1, 1, true}))},
      {"gray", jpeg_encode(gray.ref(), 90)}};
  std::uint32_t state = 7;
  auto next = [&](int n) {
    state = state * 1664525u + 1013904223u;
    return static_cast<int>((state >> 8) % static_cast<std::uint32_t>(n));
  };
  int zero_checked = 0;
  for (const auto& [what, bytes] : files)
    for (int n : {1, 2, 4, 8}) {
      DecodeOptions scaled;
      scaled.allow_truncated = true;
      scaled.shrink = [n](const Shape&) { return n; };
      const Image whole = decode_image(bytes.data(), bytes.size(), scaled);
      for (int t = 0; t < 25; ++t) {
        const int x0 = next(whole.width()), y0 = next(whole.height());
        const PixelRect r{x0, y0, x0 + 1 + next(whole.width() - x0), y0 + 1 + next(whole.height() - y0)};
        DecodeOptions o = scaled;
        o.region = [&](const Shape&) { return std::optional<PixelRect>(r); };
        const Image part = decode_image(bytes.data(), bytes.size(), o);
        ASSERT_EQ(part.shape(), whole.shape());
        std::size_t differ = 0, nonzero_far = 0;
        for (int y = 0; y < whole.height(); ++y)
          for (int x = 0; x < whole.width() * whole.channels(); ++x) {
            const int px = x / whole.channels();
            const bool inside = px >= r.x0 && px < r.x1 && y >= r.y0 && y < r.y1;
            // Rows more than 8 away from the window are never rebuilt.
            const bool far = y < r.y0 - 8 || y >= r.y1 + 8;
            if (inside) differ += part.row(y)[x] != whole.row(y)[x];
            if (far) nonzero_far += part.row(y)[x] != 0, ++zero_checked;
          }
        EXPECT_EQ(differ, 0u) << what << " 1/" << n << " window " << r.x0 << "," << r.y0 << " - " << r.x1 << "," << r.y1;
        EXPECT_EQ(nonzero_far, 0u) << what << " 1/" << n;
      }
    }
  EXPECT_GT(zero_checked, 0);
}

// A window at the top of a file cut short or damaged further down: reported as for the whole decode.
TEST(Decode, ARegionStillChecksTheWholeFile) {
  auto jpeg = testing::read_bytes(testing::samples_dir() / "rocket.jpg");
  DecodeOptions top;
  top.region = [](const Shape&) { return std::optional<PixelRect>(PixelRect{10, 0, 60, 20}); };
  // The decoder's refusal, "(accepted)" when it takes the file.
  const auto refusal = [](const std::vector<std::uint8_t>& file, const DecodeOptions& o) -> std::string {
    try {
      decode_image(file.data(), file.size(), o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const std::vector<std::uint8_t> cut(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() * 2 / 3));
  std::vector<std::uint8_t> damaged = jpeg;
  damaged[damaged.size() * 3 / 4] = 0xFF;  // a restart marker in a file that has none
  damaged[damaged.size() * 3 / 4 + 1] = 0xD3;
  for (const DecodeOptions& o : {DecodeOptions{}, top}) {
    const std::string truncated = refusal(cut, o);
    EXPECT_NE(truncated.find("truncated JPEG"), std::string::npos) << truncated;
    DecodeOptions allow = o;
    allow.allow_truncated = true;
    EXPECT_NO_THROW(decode_image(cut.data(), cut.size(), allow));
    const std::string corrupt = refusal(damaged, o);
    EXPECT_NE(corrupt.find("corrupt JPEG"), std::string::npos) << corrupt;
  }
}

}  // namespace
}  // namespace aug::test_io
