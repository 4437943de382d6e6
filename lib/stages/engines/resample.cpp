#include "lib/stages/engines/resample.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "kernels/core/common.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

// Table arithmetic must not be contracted into FMAs (docs/arithmetic.md#conventions); the build passes
// -ffp-contract=off, and nothing here relies on it being otherwise.

namespace aug {

Choice<Interp> resample_interpolation_param() {
  return interpolation_param({Interp::Bilinear, Interp::Nearest, Interp::Bicubic, Interp::Area, Interp::Lanczos},
                             Interp::Bilinear,
                             "nearest, bilinear, bicubic (Keys a = -0.75), area (box average when shrinking) or "
                             "lanczos (Lanczos-4, 8 taps); a list draws one per image");
}

int resize_frac_bits(Interp interp, DType dtype) {
  switch (dtype) {
    case DType::U8: return interp == Interp::Bilinear || interp == Interp::Nearest ? 8 : 11;
    case DType::U16: return 14;
    case DType::F32: return 0;
  }
  return 0;
}

int blur_frac_bits(DType dtype) { return dtype == DType::U8 ? 8 : (dtype == DType::U16 ? 14 : 0); }

int AxisTable::min_index() const { return index.empty() ? 0 : *std::min_element(index.begin(), index.end()); }
int AxisTable::max_index() const { return index.empty() ? 0 : *std::max_element(index.begin(), index.end()); }

namespace {

using Taps = std::vector<std::pair<int, double>>;  // (source index, weight) of one output

// Quantises one output's weights to fixed point so that they sum to exactly 2^bits: each is
// rounded half to even, then the remainder goes to the largest weight.
void quantise(const Taps& taps, int bits, std::int32_t* out) {
  const double one = std::ldexp(1.0, bits);
  std::int64_t sum = 0;
  std::size_t largest = 0;
  for (std::size_t k = 0; k < taps.size(); ++k) {
    out[k] = static_cast<std::int32_t>(std::nearbyint(taps[k].second * one));
    sum += out[k];
    if (std::fabs(taps[k].second) > std::fabs(taps[largest].second)) largest = k;
  }
  out[largest] += static_cast<std::int32_t>(static_cast<std::int64_t>(one) - sum);
}

// How integer weights are made from a tap's real weights.
enum class Quantise {
  Sum,            // quantise(): the sum is exactly 2^bits
  BilinearExact,  // c1 = RNE(t * 2^bits), c0 = 2^bits - c1 (INTER_LINEAR_EXACT)
  EachTap,        // each RNE(w * 2^bits) on its own, the sum as it falls (cv::resize's generic tables)
};

// Packs per-output taps into a table of uniform width (missing taps: weight 0 on the last index).
AxisTable pack(const std::vector<Taps>& per_output, DType dtype, int bits, Quantise how) {
  AxisTable t;
  t.length = static_cast<int>(per_output.size());
  for (const auto& taps : per_output) t.taps = std::max<int>(t.taps, static_cast<int>(taps.size()));
  const std::size_t n = static_cast<std::size_t>(t.length) * t.taps;
  t.index.assign(n, 0);
  if (dtype == DType::F32) t.fweight.assign(n, 0.f);
  else t.iweight.assign(n, 0);
  for (int o = 0; o < t.length; ++o) {
    const Taps& taps = per_output[o];
    const std::size_t base = static_cast<std::size_t>(o) * t.taps;
    for (int k = 0; k < t.taps; ++k)
      t.index[base + k] = taps[std::min<std::size_t>(k, taps.size() - 1)].first;
    if (dtype == DType::F32) {
      for (std::size_t k = 0; k < taps.size(); ++k) t.fweight[base + k] = static_cast<float>(taps[k].second);
    } else if (how == Quantise::EachTap) {
      const double one = std::ldexp(1.0, bits);
      for (std::size_t k = 0; k < taps.size(); ++k)
        t.iweight[base + k] = static_cast<std::int32_t>(std::nearbyint(taps[k].second * one));
    } else if (how == Quantise::BilinearExact && taps.size() == 2) {
      // INTER_LINEAR_EXACT: c1 = RNE((f - i) * 2^bits), c0 = 2^bits - c1 (docs/stages/geometry.md#resize).
      const std::int32_t one = std::int32_t{1} << bits;
      const auto c1 = static_cast<std::int32_t>(std::nearbyint(taps[1].second * one));
      t.iweight[base + 1] = c1;
      t.iweight[base] = std::max(0, one - c1);
    } else {
      quantise(taps, bits, &t.iweight[base]);
    }
  }
  return t;
}

Taps bilinear_taps(int d, double scale, int src_len) {
  const double f = scale * (d + 0.5) - 0.5;
  const double fi = std::floor(f);
  const int i = static_cast<int>(fi);
  if (i < 0 || src_len == 1) return {{0, 1.0}};
  if (i >= src_len - 1) return {{src_len - 1, 1.0}};
  const double t = f - fi;
  return {{i, 1.0 - t}, {i + 1, t}};
}

Taps bicubic_taps(int d, double scale, int src_len) {
  const double f = scale * (d + 0.5) - 0.5;
  const double fi = std::floor(f);
  const int i = static_cast<int>(fi);
  const double x = f - fi;
  constexpr double A = -0.75;  // Keys' cubic as in OpenCV
  const double w0 = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  const double w1 = ((A + 2) * x - (A + 3)) * x * x + 1;
  const double w2 = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  const double w3 = 1 - w0 - w1 - w2;
  const double w[4] = {w0, w1, w2, w3};
  Taps taps;
  for (int k = 0; k < 4; ++k) taps.emplace_back(std::clamp(i - 1 + k, 0, src_len - 1), w[k]);
  return taps;
}

// OpenCV's interpolateLanczos4: sin(pi x/4) sin(pi x)/(pi x/4)^2 at the 8 distances x + 3 - k, each
// from one sine and cosine by the angle-sum identities, in double, rounded to binary32 and divided
// by their binary32 sum (a multiplication by its reciprocal, in binary32).
void lanczos4_weights(float x, float w[8]) {
  constexpr double s45 = 0.70710678118654752440084436210485;
  constexpr double cs[8][2] = {{1, 0}, {-s45, -s45}, {0, 1}, {s45, -s45}, {-1, 0}, {s45, s45}, {0, -1}, {-s45, s45}};
  constexpr double pi = 3.1415926535897932384626433832795;
  const double y0 = -(x + 3) * pi * 0.25, s0 = std::sin(y0), c0 = std::cos(y0);
  float sum = 0;
  for (int k = 0; k < 8; ++k) {
    const float yk = x + 3 - k;
    if (std::fabs(yk) >= 1e-6f) {
      const double y = -yk * pi * 0.25;
      w[k] = static_cast<float>((cs[k][0] * s0 + cs[k][1] * c0) / (y * y));
    } else {
      w[k] = 1e30f;
    }
    sum += w[k];
  }
  const float inv = 1.f / sum;
  for (int k = 0; k < 8; ++k) w[k] *= inv;
}

// cv::resize's generic tables for INTER_LANCZOS4: the position in binary32, its floor i and
// fraction, taps clamp(i - 3 + k, 0, src - 1) with binary32 weights.
Taps lanczos_taps(int d, double scale, int src_len) {
  float fx = static_cast<float>((d + 0.5) * scale - 0.5);
  const int i = static_cast<int>(std::floor(fx));
  fx -= static_cast<float>(i);
  float w[8];
  lanczos4_weights(fx, w);
  Taps taps;
  for (int k = 0; k < 8; ++k) taps.emplace_back(std::clamp(i - 3 + k, 0, src_len - 1), static_cast<double>(w[k]));
  return taps;
}

Taps nearest_taps(int d, double scale, int src_len, bool centred) {
  const double at = centred ? (d + 0.5) * scale : d * scale;
  return {{std::min(static_cast<int>(std::floor(at)), src_len - 1), 1.0}};
}

// Box overlap of output cell [d*scale, (d+1)*scale) with the source pixels (shrinking axis).
Taps area_shrink_taps(int d, double scale, int src_len) {
  const double f1 = d * scale;
  const double f2 = f1 + scale;
  const double cw = std::min(scale, src_len - f1);
  int s1 = static_cast<int>(std::ceil(f1));
  const int s2 = std::min(static_cast<int>(std::floor(f2)), src_len - 1);
  s1 = std::min(s1, s2);
  Taps taps;
  if (s1 - f1 > 1e-3) taps.emplace_back(s1 - 1, (s1 - f1) / cw);
  for (int s = s1; s < s2; ++s) taps.emplace_back(s, 1.0 / cw);
  if (f2 - s2 > 1e-3) taps.emplace_back(s2, std::min(std::min(f2 - s2, 1.0), cw) / cw);
  if (taps.empty()) taps.emplace_back(std::clamp(s1, 0, src_len - 1), 1.0);
  return taps;
}

// Enlarging axis of INTER_AREA: bilinear with OpenCV's "area mode" coefficients.
Taps area_enlarge_taps(int d, double scale, int src_len) {
  const double inv_scale = 1.0 / scale;
  const int sx = static_cast<int>(std::floor(d * scale));
  double fx = (d + 1) - (sx + 1) * inv_scale;
  fx = fx <= 0 ? 0.0 : fx - std::floor(fx);
  if (sx >= src_len - 1) return {{src_len - 1, 1.0}};
  return {{sx, 1.0 - fx}, {sx + 1, fx}};
}

}  // namespace

AxisTable resize_axis(int src_len, int dst_len, int offset, Interp interp, DType dtype, bool centred,
                      double inv_scale) {
  if (src_len <= 0 || dst_len <= 0) throw std::invalid_argument("resize_axis: empty axis");
  // As cv::resize: with an explicit size inv_scale = dst/src; scale = 1/inv_scale.
  if (inv_scale <= 0) inv_scale = static_cast<double>(dst_len) / src_len;
  const double scale = 1.0 / inv_scale;
  std::vector<Taps> per_output(dst_len);
  for (int d = 0; d < dst_len; ++d) {
    switch (interp) {
      case Interp::Nearest: per_output[d] = nearest_taps(d, scale, src_len, centred); break;
      case Interp::Bilinear: per_output[d] = bilinear_taps(d, scale, src_len); break;
      case Interp::Bicubic: per_output[d] = bicubic_taps(d, scale, src_len); break;
      case Interp::Lanczos: per_output[d] = lanczos_taps(d, scale, src_len); break;
      case Interp::Area:
        per_output[d] = scale >= 1.0 ? area_shrink_taps(d, scale, src_len) : area_enlarge_taps(d, scale, src_len);
        break;
    }
    for (auto& tap : per_output[d]) tap.first += offset;
  }
  // 8-bit Lanczos-4 rounds each weight on its own as cv::resize does (its sum may miss 2^11 by one).
  const Quantise how = interp == Interp::Bilinear                        ? Quantise::BilinearExact
                       : interp == Interp::Lanczos && dtype == DType::U8 ? Quantise::EachTap
                                                                          : Quantise::Sum;
  return pack(per_output, dtype, resize_frac_bits(interp, dtype), how);
}

std::vector<std::int32_t> blur_fixed_weights(const std::vector<double>& kernel, int bits) {
  const int n = static_cast<int>(kernel.size()), radius = n / 2;
  std::vector<std::int32_t> fixed(static_cast<std::size_t>(n));
  const double one = std::ldexp(1.0, bits);
  double err = 0;
  std::int64_t sum = 0;
  for (int i = 0; i < radius; ++i) {
    const double adj = kernel[i] * one + err;
    const double v = std::nearbyint(adj);
    err = adj - v;
    fixed[i] = fixed[n - 1 - i] = static_cast<std::int32_t>(v);
    sum += 2 * static_cast<std::int64_t>(v);
  }
  fixed[radius] = static_cast<std::int32_t>(static_cast<std::int64_t>(one) - sum);
  return fixed;
}

AxisTable blur_axis(int len, const std::vector<double>& kernel, Border border, DType dtype) {
  const int n = static_cast<int>(kernel.size());
  if (n % 2 == 0) throw std::invalid_argument("blur_axis: even kernel");
  const int radius = n / 2;
  const int bits = blur_frac_bits(dtype);

  // The kernel's weights once (docs/stages/filter.md#gaussian_blur); float as rounded.
  const std::vector<std::int32_t> fixed =
      dtype != DType::F32 ? blur_fixed_weights(kernel, bits) : std::vector<std::int32_t>(n);

  AxisTable t;
  t.taps = n;
  t.length = len;
  t.index.resize(static_cast<std::size_t>(len) * n);
  if (dtype == DType::F32) t.fweight.resize(t.index.size());
  else t.iweight.resize(t.index.size());
  for (int o = 0; o < len; ++o) {
    for (int i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(o) * n + i;
      const int src = border_index(o + i - radius, len, border);
      // A tap outside the image under a constant border contributes 0: weight 0 on a pixel inside.
      t.index[at] = src >= 0 ? src : std::clamp(o + i - radius, 0, len - 1);
      if (dtype == DType::F32) t.fweight[at] = src >= 0 ? static_cast<float>(kernel[i]) : 0.f;
      else t.iweight[at] = src >= 0 ? fixed[i] : 0;
    }
  }
  return t;
}

void run_separable(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const AxisTable& h, const AxisTable& v,
                   int frac_bits) {
  const int row0 = v.min_index();
  const int rows = v.max_index() - row0 + 1;
  auto axis = [&](const AxisTable& t) {
    k::AxisTaps a;
    a.taps = t.taps;
    a.index = ctx.table(t.index);
    if (!t.iweight.empty()) a.iweight = ctx.table(t.iweight);
    if (!t.fweight.empty()) a.fweight = ctx.table(t.fweight);
    return a;
  };
  const k::AxisTaps ha = axis(h), va = axis(v);
  with_views(in, out, [&](auto src, auto dst) { k::separable(src, dst, ha, va, frac_bits, row0, rows, ctx, ctx.exec()); });
}

namespace {

class ResampleOp final : public Op {
 public:
  ResampleOp(const Shape& in, const Window& window, int out_width, int out_height, Interp interp, bool centred = false)
      : Op(in, Shape{out_width, out_height, in.channels, in.dtype}), window_(window), interp_(interp), centred_(centred) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const bool integer = out_shape().dtype != DType::F32;
    // On the CPU backend two cases call cv::resize, which computes the same values there
    // (docs/stages/geometry.md#resize; tests/stages/test_resize.cpp holds them equal to the kernels).
    // Area halving both sides of an 8- or 16-bit image with 1, 3 or 4 channels: every output is
    // (a + b + c + d + 2) >> 2 of its 2x2 cell, INTER_AREA's fast path.
    if (ctx.cpu() && interp_ == Interp::Area && integer && out_shape().channels != 2 &&
        window_.width == 2 * out_shape().width && window_.height == 2 * out_shape().height) {
      cv::Mat dst = as_mat(out);
      cv::resize(as_mat(in)(cv::Rect(window_.x, window_.y, window_.width, window_.height)), dst, dst.size(), 0, 0,
                 cv::INTER_AREA);
      return;
    }
    // Nearest (not the centred one of label maps) is INTER_NEAREST's pixel copy for 8- and 16-bit
    // images. 8-bit bilinear, cv::resize INTER_LINEAR_EXACT to the bit (same tables, same sums), runs
    // the separable engine's own driver, which is faster than that call (docs/performance.md).
    const bool nearest = interp_ == Interp::Nearest && !centred_ && integer;
    if (ctx.cpu() && nearest) {
      cv::Mat dst = as_mat(out);
      cv::resize(as_mat(in)(cv::Rect(window_.x, window_.y, window_.width, window_.height)), dst, dst.size(), 0, 0,
                 cv::INTER_NEAREST);
      return;
    }
    run_separable(ctx, in, out, axis_h(), axis_v(), resize_frac_bits(interp_, out_shape().dtype));
  }

  nlohmann::json params() const override {
    nlohmann::json j{{"width", out_shape().width}, {"height", out_shape().height}, {"interpolation", interp_words().name(interp_)}};
    if (window_.x != 0 || window_.y != 0 || window_.width != in_shape().width || window_.height != in_shape().height)
      j["crop"] = {window_.x, window_.y, window_.width, window_.height};
    return j;
  }

  std::optional<Motion> motion() const override {
    // Output pixel d samples the window at (d + 0.5) / s - 0.5 with s = out / window (cv::resize).
    const double sx = static_cast<double>(out_shape().width) / window_.width;
    const double sy = static_cast<double>(out_shape().height) / window_.height;
    return Motion{.matrix = {sx, 0, (0.5 - window_.x) * sx - 0.5, 0, sy, (0.5 - window_.y) * sy - 0.5, 0, 0, 1},
                  .out_width = out_shape().width,
                  .out_height = out_shape().height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<ResampleOp>(mask, window_, out_shape().width, out_shape().height, Interp::Nearest, true);
  }

 private:
  AxisTable axis_h() const {
    return resize_axis(window_.width, out_shape().width, window_.x, interp_, out_shape().dtype, centred_);
  }
  AxisTable axis_v() const {
    return resize_axis(window_.height, out_shape().height, window_.y, interp_, out_shape().dtype, centred_);
  }

  Window window_;
  Interp interp_;
  bool centred_;
};

}  // namespace

std::unique_ptr<Op> make_resample_op(const Shape& in, const Window& window, int out_width, int out_height,
                                     Interp interp, bool centred) {
  return std::make_unique<ResampleOp>(in, window, out_width, out_height, interp, centred);
}

}  // namespace aug
