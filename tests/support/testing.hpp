// Helpers shared by the tests: images, comparisons, temporary folders and the CLI binary.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "lib/core/image.hpp"

namespace nlohmann {
// The importers build nlohmann::ordered_json (keys in the order written); the tests compare parts
// of it with plain json values. Under C++20's reversed comparisons the two types' own operators
// are equally good for that (clang 14 refuses; GCC 12 takes ordered_json's, the non-reversed one):
// this exact match does what GCC did, the json value converted to ordered_json (an object's keys
// in json's sorted order) and compared with ordered_json's operator.
template <class Json>
  requires std::is_same_v<Json, json>  // takes nothing that merely converts to json
bool operator==(const ordered_json& a, const Json& b) {
  return a == ordered_json(b);
}
}  // namespace nlohmann

namespace aug::testing {

namespace fs = std::filesystem;

// The repository and the augment binary: the paths of the build, or $AUGMENT_TEST_SOURCE_DIR and
// $AUGMENT_TEST_BINARY when set (a packed copy run on another machine).
fs::path source_dir();
fs::path augment_binary();
fs::path samples_dir();

// Deterministic test content: smooth gradients plus noise over the whole range of the type
// (float images in [0, 1]).
Image random_image(const Shape& shape, std::uint32_t seed);
// Whether this build runs under the sanitizers (ASan + UBSan or TSan; .ci/sanitizers).
#ifdef AUGMENT_TESTS_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// The items a slow reference loop runs over (photographs, sizes, files): all of them in the normal
// build; under the sanitizers, which look for memory and thread defects and run 10 to 30 times
// slower, the first and then every `stride`-th one.
template <class T>
std::vector<T> sampled(const std::vector<T>& items, std::size_t stride = 4) {
  if (!kSanitized) return items;
  std::vector<T> out;
  for (std::size_t i = 0; i < items.size(); i += stride) out.push_back(items[i]);
  return out;
}
template <class T>
std::vector<T> sampled(std::initializer_list<T> items, std::size_t stride = 4) {
  return sampled(std::vector<T>(items), stride);
}

// A sample photograph, decoded (RGB/gray/RGBA 8-bit), optionally converted.
Image sample(const std::string& name);
Image sample_as(const std::string& name, DType dtype, int channels);

Image from_mat(const cv::Mat& m);  // copies; channel order unchanged
cv::Mat mat(const Image& im);      // header over the image's pixels

struct Diff {
  std::size_t count = 0;  // differing values
  double max = 0;         // largest absolute difference
  int x = -1, y = -1, c = -1;  // first differing value
  std::string str() const;
};
Diff compare(const Image& a, const Image& b, double tolerance = 0);

// A fresh folder under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& p) const { return path_ / p; }

 private:
  fs::path path_;
};

struct Result {
  int code = -1;
  std::string out, err;
};
// Runs the augment binary with `args` (and the environment variables `env`, NAME=VALUE, added)
// and collects its exit code, stdout and stderr.
Result run_cli(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

// A JPEG encoded by libjpeg at `quality` with component 0 sampled h x v (the chroma stay 1x1:
// 2x2 is 4:2:0, 2x1 4:2:2, 1x1 4:4:4, 1x2 4:4:0), progressive or not, or as CMYK (from RGB, K = B):
// the files a decoder meets besides jpeg_encode's. Aborts if libjpeg refuses the settings.
struct JpegVariant {
  int h = 2, v = 2;
  bool progressive = false;
  bool cmyk = false;
};
std::vector<std::uint8_t> jpeg_variant(const Image& im, int quality, const JpegVariant& v);

std::vector<std::uint8_t> read_bytes(const fs::path& p);

// OpenCV's imread, imwrite, imencode and imdecode, with their flags and parameters (the constants
// of <opencv2/imgcodecs.hpp>), through augment's codec plugin (lib/io/cv_codecs.hpp). The test
// programs do not link libopencv_imgcodecs: its hundred-odd libraries took 0.1 s to load at the
// start of each of the suite's 2,000 test processes. imread gives an empty image for a file that
// cannot be read or decoded; imwrite and imencode say whether the encoder took the image.
cv::Mat imread(const fs::path& p, int flags = 1 /* cv::IMREAD_COLOR */);
cv::Mat imdecode(const std::vector<std::uint8_t>& bytes, int flags);
bool imwrite(const fs::path& p, const cv::Mat& image, const std::vector<int>& params = {});
bool imencode(const std::string& extension, const cv::Mat& image, std::vector<std::uint8_t>& out,
              const std::vector<int>& params = {});

// A TIFF block with IFD0 holding only the orientation tag, and a JPEG file with it as its EXIF.
std::vector<std::uint8_t> exif_block(int orientation);
std::vector<std::uint8_t> jpeg_with_orientation(const std::vector<std::uint8_t>& jpeg, int orientation);
void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes);
// A file's contents as text (empty when it cannot be read), and a text file written with its folders.
std::string read_text(const fs::path& p);
void write_text(const fs::path& p, const std::string& text);
// Every regular file under `dir`, relative and sorted.
std::vector<std::string> list_files(const fs::path& dir);

// Kolmogorov-Smirnov distance of the sample `v` from the uniform distribution on [lo, hi] (the
// draw tests compare it with c / sqrt(n)).
inline double ks_uniform(std::vector<double> v, double lo, double hi) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double f = (v[i] - lo) / (hi - lo);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  return d;
}

}  // namespace aug::testing
