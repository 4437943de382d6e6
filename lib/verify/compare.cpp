#include "lib/verify/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "lib/io/codec.hpp"

namespace aug {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::None: return "none";
    case Pattern::Isolated: return "isolated";
    case Pattern::Clustered: return "clustered";
    case Pattern::Global: return "global";
  }
  return "?";
}

std::vector<std::string> histogram_labels(DType t) {
  if (t != DType::F32) return {"1", "2", "3", "4-7", "8-15", "16-31", "32-63", ">=64"};
  return {"<=1e-7", "<=1e-6", "<=1e-5", "<=1e-4", "<=1e-3", "<=1e-2", "<=1e-1", ">1e-1"};
}

namespace {

std::size_t bin(double d, DType t) {
  if (t != DType::F32) {
    const auto v = static_cast<std::uint64_t>(d);
    if (v <= 3) return v - 1;
    std::size_t b = 3;
    for (std::uint64_t lim = 8; v >= lim && b < 7; lim *= 2) ++b;
    return b;
  }
  std::size_t b = 0;
  for (double lim = 1e-7; d > lim && b < 7; lim *= 10) ++b;
  return b;
}

double range_of(DType t) { return t == DType::U8 ? 255.0 : (t == DType::U16 ? 65535.0 : 1.0); }

// Differing pixels (any channel) that neighbour other differing pixels much more often than
// random scattering at the same density would make them do are clustered; otherwise isolated.
Pattern classify(const std::vector<std::uint8_t>& mask, int w, int h, std::uint64_t differing_pixels) {
  if (differing_pixels == 0) return Pattern::None;
  const double density = static_cast<double>(differing_pixels) / (static_cast<double>(w) * h);
  if (density >= 0.5) return Pattern::Global;
  double share = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (!mask[static_cast<std::size_t>(y) * w + x]) continue;
      int neighbours = 0, marked = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int xx = x + dx, yy = y + dy;
          if ((dx || dy) && xx >= 0 && xx < w && yy >= 0 && yy < h) {
            ++neighbours;
            marked += mask[static_cast<std::size_t>(yy) * w + xx];
          }
        }
      if (neighbours) share += static_cast<double>(marked) / neighbours;
    }
  share /= static_cast<double>(differing_pixels);
  return share <= std::max(2 * density, 0.1) ? Pattern::Isolated : Pattern::Clustered;
}

}  // namespace

nlohmann::json Difference::to_json() const {
  nlohmann::json j{{"values", values},
                   {"differing", differing},
                   {"differing_percent", differing_percent()},
                   {"over_tolerance", over},
                   {"max_abs", max_abs},
                   {"mean_abs", mean_abs},
                   {"psnr_db", std::isinf(psnr) ? nlohmann::json("inf") : nlohmann::json(psnr)},
                   {"histogram", histogram},
                   {"pattern", pattern_name(pattern)}};
  if (differing) j["worst"] = {{"x", worst.x}, {"y", worst.y}, {"channel", worst.c}, {"a", worst.a}, {"b", worst.b}};
  return j;
}

Difference compare_images(const Image& a, const Image& b, double tolerance) {
  if (a.shape() != b.shape())
    throw std::invalid_argument("compare_images: " + to_string(a.shape()) + " vs " + to_string(b.shape()));
  Difference d;
  d.histogram.assign(8, 0);
  const Shape& s = a.shape();
  const int C = s.channels;
  std::vector<std::uint8_t> mask;  // differing pixels, made at the first difference
  std::uint64_t pixels = 0;
  double sum = 0, sum_sq = 0;
  with_sample_type(s.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int y = 0; y < s.height; ++y) {
      if (std::memcmp(a.row(y), b.row(y), s.row_bytes()) == 0) continue;  // the usual case
      if (mask.empty()) mask.assign(static_cast<std::size_t>(s.width) * s.height, 0);
      const T* p = reinterpret_cast<const T*>(a.row(y));
      const T* q = reinterpret_cast<const T*>(b.row(y));
      for (int x = 0; x < s.width; ++x) {
        bool any = false;
        for (int c = 0; c < C; ++c) {
          const double va = static_cast<double>(p[x * C + c]), vb = static_cast<double>(q[x * C + c]);
          double diff = std::fabs(va - vb);
          if (std::isnan(diff)) diff = std::isnan(va) && std::isnan(vb) ? 0 : std::numeric_limits<double>::infinity();
          if (diff == 0) continue;
          any = true;
          ++d.differing;
          if (diff > tolerance) ++d.over;
          sum += diff;
          sum_sq += diff * diff;
          ++d.histogram[bin(diff, s.dtype)];
          if (diff > d.max_abs) {
            d.max_abs = diff;
            d.worst = {x, y, c, va, vb};
          }
        }
        if (any) {
          mask[static_cast<std::size_t>(y) * s.width + x] = 1;
          ++pixels;
        }
      }
    }
  });
  d.values = s.values();
  d.mean_abs = d.values ? sum / static_cast<double>(d.values) : 0;
  const double mse = d.values ? sum_sq / static_cast<double>(d.values) : 0;
  const double range = range_of(s.dtype);
  d.psnr = mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(range * range / mse);
  d.pattern = classify(mask, s.width, s.height, pixels);
  return d;
}

Difference compare_bytes(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  Difference d;
  d.histogram.assign(8, 0);
  const std::size_t common = std::min(a.size(), b.size()), longer = std::max(a.size(), b.size());
  d.values = longer;
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < longer; ++i) {
    const int va = i < a.size() ? a[i] : -1, vb = i < b.size() ? b[i] : -1;
    if (va == vb) continue;
    const double diff = i < common ? std::abs(va - vb) : 255.0;
    ++d.differing;
    ++d.histogram[bin(diff, DType::U8)];
    sum += diff;
    sum_sq += diff * diff;
    if (diff > d.max_abs) {
      d.max_abs = diff;
      d.worst = {static_cast<int>(std::min<std::size_t>(i, INT32_MAX)), 0, 0, static_cast<double>(va), static_cast<double>(vb)};
    }
  }
  d.over = d.differing;
  d.mean_abs = longer ? sum / static_cast<double>(longer) : 0;
  const double mse = longer ? sum_sq / static_cast<double>(longer) : 0;
  d.psnr = mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(255.0 * 255.0 / mse);
  d.pattern = d.differing ? Pattern::Global : Pattern::None;
  return d;
}

Image convert_dtype(const Image& im, DType t) {
  if (im.dtype() == t) return im;
  if (t == DType::U8) return to_u8(im);
  if (t == DType::U16) return to_u16(im);
  return to_f32(im);
}

}  // namespace aug
