#include "tests/support/testing.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <jpeglib.h>
#include <opencv2/imgproc.hpp>

#include "lib/io/codec.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/io/cv_codecs.hpp"

namespace aug::testing {

namespace {
// A path compiled in, unless the environment names another: test binaries copied to another
// machine (bench/gpu-acceptance.sh pack) run against the copied sources and binary.
fs::path from_env_or(const char* variable, const char* built_in) {
  const char* v = std::getenv(variable);
  return v && *v ? fs::path(v) : fs::path(built_in);
}
}  // namespace

fs::path source_dir() { return from_env_or("AUGMENT_TEST_SOURCE_DIR", AUGMENT_SOURCE_DIR); }
fs::path augment_binary() { return from_env_or("AUGMENT_TEST_BINARY", AUGMENT_BINARY); }
fs::path samples_dir() { return source_dir() / "samples"; }

Image random_image(const Shape& s, std::uint32_t seed) {
  Image im(s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.25, 0.25);
  const double fx = 1.0 / std::max(1, s.width - 1), fy = 1.0 / std::max(1, s.height - 1);
  with_sample_type(s.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int y = 0; y < s.height; ++y) {
      T* row = reinterpret_cast<T*>(im.row(y));
      for (int x = 0; x < s.width; ++x)
        for (int c = 0; c < s.channels; ++c) {
          const double base = 0.5 + 0.45 * std::sin(6.0 * x * fx + 2.0 * c) * std::cos(5.0 * y * fy - c);
          const double v = std::clamp(base + noise(rng), 0.0, 1.0);
          if constexpr (std::is_same_v<T, float>) row[x * s.channels + c] = static_cast<float>(v);
          else row[x * s.channels + c] = static_cast<T>(std::lround(v * k::SampleTraits<T>::max));
        }
    }
  });
  return im;
}

Image sample(const std::string& name) {
  const auto bytes = read_bytes(samples_dir() / name);
  return decode_image(bytes.data(), bytes.size(), {});
}

Image sample_as(const std::string& name, DType dtype, int channels) {
  Image im = sample(name);
  if (im.channels() != channels) {
    cv::Mat m = mat(im), out;
    const int code = channels == 1 ? (im.channels() == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY)
                     : channels == 3 ? (im.channels() == 1 ? cv::COLOR_GRAY2RGB : cv::COLOR_RGBA2RGB)
                                     : (im.channels() == 1 ? cv::COLOR_GRAY2RGBA : cv::COLOR_RGB2RGBA);
    cv::cvtColor(m, out, code);
    im = from_mat(out);
  }
  if (dtype == DType::U16) return to_u16(im);
  if (dtype == DType::F32) return to_f32(im);
  return im;
}

Image from_mat(const cv::Mat& m) {
  const DType t = m.depth() == CV_8U ? DType::U8 : (m.depth() == CV_16U ? DType::U16 : DType::F32);
  Image out(Shape{m.cols, m.rows, m.channels(), t});
  cv::Mat dst = as_mat(out.ref());
  m.copyTo(dst);
  return out;
}

cv::Mat mat(const Image& im) { return as_mat(im.ref()); }

std::string Diff::str() const {
  std::ostringstream o;
  o << count << " differing values, max " << max;
  if (count) o << ", first at (" << x << ", " << y << ") channel " << c;
  return o.str();
}

Diff compare(const Image& a, const Image& b, double tolerance) {
  if (a.shape() != b.shape()) throw std::invalid_argument("compare: " + to_string(a.shape()) + " vs " + to_string(b.shape()));
  Diff d;
  with_sample_type(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int y = 0; y < a.height(); ++y) {
      const T* p = reinterpret_cast<const T*>(a.row(y));
      const T* q = reinterpret_cast<const T*>(b.row(y));
      for (int i = 0; i < a.width() * a.channels(); ++i) {
        const double diff = std::fabs(static_cast<double>(p[i]) - static_cast<double>(q[i]));
        const bool nan_mismatch = std::isnan(static_cast<double>(p[i])) != std::isnan(static_cast<double>(q[i]));
        if (diff > tolerance || nan_mismatch) {
          if (d.count++ == 0) {
            d.x = i / a.channels();
            d.y = y;
            d.c = i % a.channels();
          }
        }
        if (diff > d.max) d.max = diff;
      }
    }
  });
  return d;
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "augment-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Result run_cli(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    for (const std::string& e : env) {
      const std::size_t eq = e.find('=');
      ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
    std::vector<char*> argv;
    std::string binary = augment_binary().string();
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    std::_Exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  Result r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    ::poll(fds, 2, -1);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

namespace {

[[noreturn]] void jpeg_fail(j_common_ptr c) {  // the test's own encoder refusing its settings: a test bug
  char msg[JMSG_LENGTH_MAX];
  (*c->err->format_message)(c, msg);
  std::fprintf(stderr, "libjpeg: %s\n", msg);
  std::abort();
}

}  // namespace

std::vector<std::uint8_t> jpeg_variant(const Image& im, int quality, const JpegVariant& v) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  err.error_exit = jpeg_fail;
  jpeg_create_compress(&c);
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &buf, &size);
  c.image_width = static_cast<JDIMENSION>(im.width());
  c.image_height = static_cast<JDIMENSION>(im.height());
  c.input_components = v.cmyk ? 4 : im.channels();
  c.in_color_space = v.cmyk ? JCS_CMYK : (im.channels() == 1 ? JCS_GRAYSCALE : JCS_RGB);
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  if (!v.cmyk) {
    c.comp_info[0].h_samp_factor = v.h;
    c.comp_info[0].v_samp_factor = v.v;
  }
  if (v.progressive) jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  std::vector<std::uint8_t> row(static_cast<std::size_t>(im.width()) * c.input_components);
  while (c.next_scanline < c.image_height) {
    const std::uint8_t* src = im.row(static_cast<int>(c.next_scanline));
    if (v.cmyk)
      for (int x = 0; x < im.width(); ++x)
        for (int k = 0; k < 4; ++k) row[4 * x + k] = src[3 * x + std::min(k, 2)];
    else std::memcpy(row.data(), src, row.size());
    JSAMPROW r = row.data();
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::vector<std::uint8_t> out(buf, buf + size);
  std::free(buf);
  return out;
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

cv::Mat imread(const fs::path& p, int flags) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return {};
  const std::vector<std::uint8_t> bytes(std::istreambuf_iterator<char>(f), {});
  return imdecode(bytes, flags);
}

cv::Mat imdecode(const std::vector<std::uint8_t>& bytes, int flags) {
  return cvcodecs::decode(bytes.data(), bytes.size(), flags);
}

bool imwrite(const fs::path& p, const cv::Mat& image, const std::vector<int>& params) {
  std::vector<std::uint8_t> bytes;
  if (!imencode(p.extension().string(), image, bytes, params)) return false;
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(f);
}

bool imencode(const std::string& extension, const cv::Mat& image, std::vector<std::uint8_t>& out,
              const std::vector<int>& params) {
  return cvcodecs::encode(extension, image, params, out);
}

std::vector<std::uint8_t> exif_block(int orientation) {
  return {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
          static_cast<std::uint8_t>(orientation), 0, 0, 0, 0, 0, 0, 0};
}

std::vector<std::uint8_t> jpeg_with_orientation(const std::vector<std::uint8_t>& jpeg, int orientation) {
  const auto tiff = exif_block(orientation);
  const std::size_t len = 2 + 6 + tiff.size();
  std::vector<std::uint8_t> out(12 + tiff.size() + jpeg.size() - 2);
  const std::uint8_t app1[12] = {0xFF, 0xD8, 0xFF, 0xE1, static_cast<std::uint8_t>(len >> 8),
                                 static_cast<std::uint8_t>(len & 255), 'E', 'x', 'i', 'f', 0, 0};
  std::copy(app1, app1 + 12, out.begin());
  std::copy(tiff.begin(), tiff.end(), out.begin() + 12);
  std::copy(jpeg.begin() + 2, jpeg.end(), out.begin() + 12 + static_cast<std::ptrdiff_t>(tiff.size()));  // after SOI
  return out;
}

void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::vector<std::string> list_files(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace aug::testing
