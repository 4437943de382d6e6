#include "lib/io/cv_codecs.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include <spdlog/spdlog.h>

namespace aug::cvcodecs {

namespace {

constexpr const char* kName = "libaugment_cvcodecs.so";

struct Plugin {
  void (*prepare)() = nullptr;
  bool (*decode)(const unsigned char*, std::size_t, int, cv::Mat*) = nullptr;
  bool (*encode)(const char*, const cv::Mat*, const int*, std::size_t, std::vector<unsigned char>*) = nullptr;
  std::string error;  // why it could not be loaded
};

// Where the plugin may be: $AUGMENT_CVCODECS alone when set; otherwise next to the running
// program, where the install puts it relative to the program (AUGMENT_CVCODECS_RELATIVE, from
// lib/CMakeLists.txt), in the build tree it was built in, then the loader's own search
// (LD_LIBRARY_PATH: a packed copy).
std::vector<std::string> candidates() {
  if (const char* env = std::getenv("AUGMENT_CVCODECS"); env && *env) return {env};
  std::vector<std::string> out;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((self.parent_path() / kName).string());
#ifdef AUGMENT_CVCODECS_RELATIVE
    out.push_back((self.parent_path() / AUGMENT_CVCODECS_RELATIVE / kName).lexically_normal().string());
#endif
  }
#ifdef AUGMENT_CVCODECS_PATH
  out.push_back(AUGMENT_CVCODECS_PATH);
#endif
  out.push_back(kName);
  return out;
}

Plugin open_plugin() {
  Plugin p;
  std::string tried;
  for (const std::string& path : candidates()) {
    if (path.find('/') != std::string::npos && !std::filesystem::exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      tried += (tried.empty() ? "" : ", ") + path + " (" + dlerror() + ")";
      continue;
    }
    p.prepare = reinterpret_cast<decltype(p.prepare)>(dlsym(handle, "augment_cvcodecs_prepare"));
    p.decode = reinterpret_cast<decltype(p.decode)>(dlsym(handle, "augment_cvcodecs_imdecode"));
    p.encode = reinterpret_cast<decltype(p.encode)>(dlsym(handle, "augment_cvcodecs_encode"));
    if (p.prepare && p.decode && p.encode) {
      spdlog::debug("OpenCV codecs: {}", path);
      p.prepare();
      return p;
    }
    tried += (tried.empty() ? "" : ", ") + path + " (not augment's codec plugin)";
    p = Plugin{};
  }
  p.error = std::string("PNG output and BMP, TIFF and WebP files need OpenCV's codecs from ") + kName +
            ", which could not be loaded; tried " + tried;
  return p;
}

const Plugin& plugin() {
  static std::once_flag once;
  static Plugin p;
  std::call_once(once, [] { p = open_plugin(); });
  if (!p.error.empty()) throw std::runtime_error(p.error);
  return p;
}

}  // namespace

void load() { (void)plugin(); }

cv::Mat decode(const std::uint8_t* data, std::size_t size, int flags) {
  cv::Mat m;
  if (!plugin().decode(data, size, flags, &m)) m.release();
  return m;
}

bool encode(const std::string& extension, const cv::Mat& image, const std::vector<int>& params,
            std::vector<std::uint8_t>& out) {
  return plugin().encode(extension.c_str(), &image, params.data(), params.size(), &out);
}

}  // namespace aug::cvcodecs
