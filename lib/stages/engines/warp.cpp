#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/warp.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "lib/io/cv_bridge.hpp"

// The table arithmetic below is plain IEEE double/float without FMA contraction (the build passes
// -ffp-contract=off): the same bits as OpenCV's SSE2-baseline build.

namespace aug {

namespace {

// OpenCV's saturate_cast<int>(double), i.e. cvRound on x86-64: round half to even; a value that
// does not round into the int range (or NaN) gives INT_MIN, as cvtsd2si does.
std::int32_t cv_round(double v) {
  const double r = std::nearbyint(v);
  if (!(r >= -2147483648.0 && r <= 2147483647.0)) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(r);
}

std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// interpolateCubic of OpenCV: Keys' cubic with A = -0.75, every operation in binary32.
void cubic_coeffs(float x, float* c) {
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

struct BicubicTables {
  std::vector<std::int16_t> fixed;
  std::vector<float> flt;
};

// initInterTab2D(INTER_CUBIC): the 2-D weights are products of the 1-D float weights; the fixed
// ones are RNE(v * 2^15) saturated to int16, and when a row of 16 does not sum to 2^15 the
// difference is taken from the largest (or given to the smallest) of the taps [2..3] x [2..3],
// searched in OpenCV's order.
BicubicTables make_bicubic_tables() {
  constexpr int N = k::kWarpTabSize, K = 4;
  float tab1[N * K];
  const float scale = 1.f / N;
  for (int i = 0; i < N; ++i) cubic_coeffs(static_cast<float>(i) * scale, tab1 + i * K);
  BicubicTables t;
  t.fixed.resize(static_cast<std::size_t>(N) * N * K * K);
  t.flt.resize(t.fixed.size());
  for (int i = 0; i < N; ++i)      // fy
    for (int j = 0; j < N; ++j) {  // fx
      float* ft = t.flt.data() + (i * N + j) * K * K;
      std::int16_t* it = t.fixed.data() + (i * N + j) * K * K;
      int isum = 0;
      for (int k1 = 0; k1 < K; ++k1) {
        const float vy = tab1[i * K + k1];
        for (int k2 = 0; k2 < K; ++k2) {
          const float v = vy * tab1[j * K + k2];
          ft[k1 * K + k2] = v;
          long r = std::lrintf(v * static_cast<float>(1 << k::kWarpCoefBits));
          r = r < -32768 ? -32768 : (r > 32767 ? 32767 : r);
          it[k1 * K + k2] = static_cast<std::int16_t>(r);
          isum += static_cast<int>(r);
        }
      }
      if (isum != (1 << k::kWarpCoefBits)) {
        const int diff = isum - (1 << k::kWarpCoefBits);
        const int h = K / 2;
        int Mk1 = h, Mk2 = h, mk1 = h, mk2 = h;
        for (int k1 = h; k1 < h + 2; ++k1)
          for (int k2 = h; k2 < h + 2; ++k2) {
            if (it[k1 * K + k2] < it[mk1 * K + mk2]) mk1 = k1, mk2 = k2;
            else if (it[k1 * K + k2] > it[Mk1 * K + Mk2]) Mk1 = k1, Mk2 = k2;
          }
        if (diff < 0) it[Mk1 * K + Mk2] = static_cast<std::int16_t>(it[Mk1 * K + Mk2] - diff);
        else it[mk1 * K + mk2] = static_cast<std::int16_t>(it[mk1 * K + mk2] - diff);
      }
    }
  return t;
}

const BicubicTables& bicubic_tables() {
  static const BicubicTables t = make_bicubic_tables();
  return t;
}

std::int32_t interp_code(Interp i) {
  switch (i) {
    case Interp::Nearest: return k::kWarpNearest;
    case Interp::Bilinear: return k::kWarpBilinear;
    case Interp::Bicubic: return k::kWarpBicubic;
    case Interp::Area:
    case Interp::Lanczos: break;
  }
  throw std::invalid_argument("warp: interpolation " + interp_words().name(i) +
                              " is not a warp's (nearest, bilinear or bicubic)");
}

}  // namespace

bool is_affine(const Warp& w) { return w.matrix[6] == 0.0 && w.matrix[7] == 0.0 && w.matrix[8] == 1.0; }

std::array<double, 9> invert_warp_matrix(const std::array<double, 9>& m) {
  std::array<double, 9> r{};
  if (m[6] == 0.0 && m[7] == 0.0 && m[8] == 1.0) {
    // cv::warpAffine without WARP_INVERSE_MAP.
    double D = m[0] * m[4] - m[1] * m[3];
    D = D != 0.0 ? 1.0 / D : 0.0;
    const double a11 = m[4] * D, a22 = m[0] * D, a12 = m[1] * -D, a21 = m[3] * -D;
    r[0] = a11;
    r[1] = a12;
    r[3] = a21;
    r[4] = a22;
    r[2] = -r[0] * m[2] - r[1] * m[5];
    r[5] = -r[3] * m[2] - r[4] * m[5];
    r[6] = 0.0;
    r[7] = 0.0;
    r[8] = 1.0;
    return r;
  }
  // cv::invert(DECOMP_LU) of a 3x3 double matrix: cofactors over the determinant.
  auto M = [&](int i, int j) { return m[i * 3 + j]; };
  double d = M(0, 0) * (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) - M(0, 1) * (M(1, 0) * M(2, 2) - M(1, 2) * M(2, 0)) +
             M(0, 2) * (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0));
  if (d == 0.0) return r;  // all zeros
  d = 1.0 / d;
  r[0] = (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) * d;
  r[1] = (M(0, 2) * M(2, 1) - M(0, 1) * M(2, 2)) * d;
  r[2] = (M(0, 1) * M(1, 2) - M(0, 2) * M(1, 1)) * d;
  r[3] = (M(1, 2) * M(2, 0) - M(1, 0) * M(2, 2)) * d;
  r[4] = (M(0, 0) * M(2, 2) - M(0, 2) * M(2, 0)) * d;
  r[5] = (M(0, 2) * M(1, 0) - M(0, 0) * M(1, 2)) * d;
  r[6] = (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0)) * d;
  r[7] = (M(0, 1) * M(2, 0) - M(0, 0) * M(2, 1)) * d;
  r[8] = (M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0)) * d;
  return r;
}

int warp_perspective_block_width(int out_width, int out_height) {
  // WarpPerspectiveInvoker: BLOCK_SZ = 32, bh0 = min(BLOCK_SZ/2, rows), bw0 = min(BLOCK_SZ^2/bh0, cols).
  const int bh0 = std::min(16, out_height);
  return std::max(1, std::min(1024 / std::max(bh0, 1), out_width));
}

std::vector<std::int32_t> warp_affine_coords(const std::array<double, 9>& M, int out_width, int out_height,
                                             Interp interp) {
  constexpr int ab_scale = 1 << k::kWarpAbBits;
  const std::int32_t round_delta =
      interp == Interp::Nearest ? ab_scale / 2 : ab_scale / k::kWarpTabSize / 2;
  std::vector<std::int32_t> t(2 * static_cast<std::size_t>(out_width) + 2 * static_cast<std::size_t>(out_height));
  std::int32_t* adelta = t.data();
  std::int32_t* bdelta = adelta + out_width;
  std::int32_t* X0 = bdelta + out_width;
  std::int32_t* Y0 = X0 + out_height;
  for (int x = 0; x < out_width; ++x) {
    adelta[x] = cv_round(M[0] * x * ab_scale);
    bdelta[x] = cv_round(M[3] * x * ab_scale);
  }
  for (int y = 0; y < out_height; ++y) {
    X0[y] = wrap_add(cv_round((M[1] * y + M[2]) * ab_scale), round_delta);
    Y0[y] = wrap_add(cv_round((M[4] * y + M[5]) * ab_scale), round_delta);
  }
  return t;
}

const std::vector<std::int16_t>& warp_bicubic_table_fixed() { return bicubic_tables().fixed; }
const std::vector<float>& warp_bicubic_table_float() { return bicubic_tables().flt; }

namespace {

void opencv_warp(const ImageRef& in, const ImageRef& out, const Warp& w) {
  const int interp = cv_warp_interpolation(w.interp);
  const int border = cv_border(w.border);
  const cv::Scalar fill(w.fill[0], w.fill[1], w.fill[2], w.fill[3]);
  cv::Mat dst = as_mat(out);
  std::array<double, 9> m = w.matrix;
  if (is_affine(w))
    cv::warpAffine(as_mat(in), dst, cv::Mat(2, 3, CV_64F, m.data()), dst.size(), interp, border, fill);
  else
    cv::warpPerspective(as_mat(in), dst, cv::Mat(3, 3, CV_64F, m.data()), dst.size(), interp, border, fill);
}

void opencv_remap(const ImageRef& in, const ImageRef& out, const RemapField& f) {
  cv::Mat dst = as_mat(out);
  remap_with_opencv(as_mat(in), dst, f);
}

}  // namespace

void remap_with_opencv(const cv::Mat& src, cv::Mat& dst, const RemapField& f) {
  cv::Mat mx, my;
  if (f.separable) {
    mx.create(f.out_height, f.out_width, CV_32F);
    my.create(f.out_height, f.out_width, CV_32F);
    for (int y = 0; y < f.out_height; ++y) {
      std::copy(f.map_x.begin(), f.map_x.end(), mx.ptr<float>(y));
      std::fill_n(my.ptr<float>(y), f.out_width, f.map_y[static_cast<std::size_t>(y)]);
    }
  } else {
    mx = cv::Mat(f.out_height, f.out_width, CV_32F, const_cast<float*>(f.map_x.data()));
    my = cv::Mat(f.out_height, f.out_width, CV_32F, const_cast<float*>(f.map_y.data()));
  }
  cv::remap(src, dst, mx, my, cv_warp_interpolation(f.interp), cv_border(f.border),
            cv::Scalar(f.fill[0], f.fill[1], f.fill[2], f.fill[3]));
}

void run_remap(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const RemapField& f) {
  if (f.out_width <= 0 || f.out_height <= 0)
    throw std::invalid_argument("remap: the output size must be positive (got " + std::to_string(f.out_width) + "x" +
                                std::to_string(f.out_height) + ")");
  const Shape want{f.out_width, f.out_height, in.shape.channels, in.shape.dtype};
  if (out.shape != want)
    throw std::invalid_argument("remap: output is " + to_string(out.shape) + ", expected " + to_string(want));
  if (in.shape.width <= 0 || in.shape.height <= 0) throw std::invalid_argument("remap: empty input image");
  const std::size_t nx = f.separable ? static_cast<std::size_t>(f.out_width)
                                     : static_cast<std::size_t>(f.out_width) * static_cast<std::size_t>(f.out_height);
  const std::size_t ny = f.separable ? static_cast<std::size_t>(f.out_height) : nx;
  if (f.map_x.size() != nx || f.map_y.size() != ny)
    throw std::invalid_argument("remap: the maps do not match the output size");
  for (double v : f.fill)
    if (!std::isfinite(v)) throw std::invalid_argument("remap: the fill value is not finite");
  // As run_warp: OpenCV where it computes exactly the kernel's arithmetic.
  if (ctx.cpu() && (in.shape.dtype == DType::U8 || f.interp != Interp::Bicubic)) return opencv_remap(in, out, f);

  k::WarpArgs a;
  a.interp = interp_code(f.interp);
  a.border = static_cast<std::int32_t>(f.border);
  for (int c = 0; c < 4; ++c) a.fill[c] = f.fill[c];
  a.maps = f.separable ? k::kWarpSeparableMaps : k::kWarpFullMaps;
  a.map_x = ctx.table(f.map_x);
  a.map_y = ctx.table(f.map_y);
  if (f.interp == Interp::Bicubic) {
    if (in.shape.dtype == DType::U8) a.itab = ctx.table(warp_bicubic_table_fixed());
    else a.ftab = ctx.table(warp_bicubic_table_float());
  }
  with_sample_type(in.shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    k::warp<T>(in.view<const T>(), out.view<T>(), a, ctx.exec());
  });
}

void run_warp(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const Warp& w) {
  if (w.out_width <= 0 || w.out_height <= 0)
    throw std::invalid_argument("warp: the output size must be positive (got " + std::to_string(w.out_width) + "x" +
                                std::to_string(w.out_height) + ")");
  const Shape want{w.out_width, w.out_height, in.shape.channels, in.shape.dtype};
  if (out.shape != want)
    throw std::invalid_argument("warp: output is " + to_string(out.shape) + ", expected " + to_string(want));
  if (in.shape.width <= 0 || in.shape.height <= 0) throw std::invalid_argument("warp: empty input image");
  for (double v : w.matrix)
    if (!std::isfinite(v)) throw std::invalid_argument("warp: the matrix has a non-finite entry");
  for (double v : w.fill)
    if (!std::isfinite(v)) throw std::invalid_argument("warp: the fill value is not finite");

  // The CPU backend calls OpenCV where it computes exactly this arithmetic: every 8-bit warp, and
  // nearest and bilinear for 16-bit and float (WarpEngine.* and the catalog's parity tests hold the
  // two equal). 16-bit and float bicubic differ from OpenCV at the border on purpose (warp.hpp).
  if (ctx.cpu() && (in.shape.dtype == DType::U8 || w.interp != Interp::Bicubic)) return opencv_warp(in, out, w);

  const std::array<double, 9> inv = invert_warp_matrix(w.matrix);
  k::WarpArgs a;
  for (int i = 0; i < 9; ++i) a.m[i] = inv[i];
  a.interp = interp_code(w.interp);
  a.border = static_cast<std::int32_t>(w.border);  // the same modes, in the same order (vocabulary.cpp)
  for (int c = 0; c < 4; ++c) a.fill[c] = w.fill[c];

  // Kept alive until the kernel has been queued (the context copies or borrows it).
  std::vector<std::int32_t> coords;
  if (is_affine(w)) {
    coords = warp_affine_coords(inv, w.out_width, w.out_height, w.interp);
    a.coords = ctx.table(coords);
  } else {
    a.perspective = 1;
    a.block_width = warp_perspective_block_width(w.out_width, w.out_height);
  }
  if (w.interp == Interp::Bicubic) {
    if (in.shape.dtype == DType::U8) a.itab = ctx.table(warp_bicubic_table_fixed());
    else a.ftab = ctx.table(warp_bicubic_table_float());
  }
  with_sample_type(in.shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    k::warp<T>(in.view<const T>(), out.view<T>(), a, ctx.exec());
  });
}

}  // namespace aug
