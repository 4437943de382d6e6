#include "kernels/geometry/elastic.hpp"

namespace aug::k {

namespace elastic_impl {
namespace {

struct Planes {  // noise x, noise y, then both after the x pass
  AUG_FIELDS(Planes, nx, ny, sx, sy)
  float *nx, *ny, *sx, *sy;
  static Planes make(int w, int h, void* scratch) {
    auto* f = static_cast<float*>(scratch);
    const std::size_t n = static_cast<std::size_t>(w) * h;
    return Planes{f, f + n, f + 2 * n, f + 3 * n};
  }
};

struct Noise {
  AUG_FIELDS(Noise, a, p, width)
  ElasticArgs a;
  Planes p;
  int width;
  AUG_HD void operator()(int x, int y) const {
    const std::size_t i = static_cast<std::size_t>(y) * width + x;
    elastic_noise(a.stream, i, p.nx[i], p.ny[i]);
  }
};

struct SmoothX {
  AUG_FIELDS(SmoothX, a, p, width)
  ElasticArgs a;
  Planes p;
  int width;
  AUG_HD void operator()(int x, int y) const {
    const std::size_t row = static_cast<std::size_t>(y) * width;
    const int r = a.kx_size / 2;
    float ax = 0.f, ay = 0.f;
    for (int k = 0; k < a.kx_size; ++k) {
      const int xi = x + k - r;
      if (xi < 0 || xi >= width) continue;  // zero padding
      ax = ax + a.kx[k] * p.nx[row + xi];
      ay = ay + a.kx[k] * p.ny[row + xi];
    }
    p.sx[row + x] = ax;
    p.sy[row + x] = ay;
  }
};

template <class T>
struct SmoothYAndSample {
  AUG_FIELDS(SmoothYAndSample, in, out, a, p)
  View<const T> in;
  View<T> out;
  ElasticArgs a;
  Planes p;
  AUG_HD void operator()(int x, int y) const {
    const int r = a.ky_size / 2, W = in.width;
    float ax = 0.f, ay = 0.f;
    for (int k = 0; k < a.ky_size; ++k) {
      const int yi = y + k - r;
      if (yi < 0 || yi >= in.height) continue;
      ax = ax + a.ky[k] * p.sx[static_cast<std::size_t>(yi) * W + x];
      ay = ay + a.ky[k] * p.sy[static_cast<std::size_t>(yi) * W + x];
    }
    elastic_sample(in, out.row(y) + x * out.channels, x, y, a.alpha_x * ax, a.alpha_y * ay, a);
  }
};

}  // namespace
}  // namespace elastic_impl

std::size_t elastic_scratch_bytes(int width, int height) {
  return 4 * static_cast<std::size_t>(width) * height * sizeof(float);
}

template <class T>
void elastic(View<const T> in, View<T> out, const ElasticArgs& args, Scratch& scratch, const Exec& exec) {
  if (exec.cpu) return cpu::elastic(in, out, args);
  const elastic_impl::Planes p = elastic_impl::Planes::make(in.width, in.height, scratch.scratch(elastic_scratch_bytes(in.width, in.height)));
  for_2d(elastic_impl::Noise{args, p, in.width}, in.width, in.height, exec, "elastic (noise)");
  for_2d(elastic_impl::SmoothX{args, p, in.width}, in.width, in.height, exec, "elastic (smoothing along x)");
  for_2d(elastic_impl::SmoothYAndSample<T>{in, out, args, p}, in.width, in.height, exec, "elastic (smoothing along y, sampling)");
}

template void elastic<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ElasticArgs&, Scratch&, const Exec&);
template void elastic<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ElasticArgs&, Scratch&,
                                     const Exec&);
template void elastic<float>(View<const float>, View<float>, const ElasticArgs&, Scratch&, const Exec&);

}  // namespace aug::k
