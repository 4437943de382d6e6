#include "kernels/noise/iso_noise.hpp"

#include <cstdint>

namespace aug::k {

namespace iso_noise_impl {
namespace {

constexpr std::size_t kPairs = 65536;

AUG_HD void count_pair(unsigned* p) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, 1u);
#else
  *p += 1u;
#endif
}

struct ZeroPairs {
  AUG_FIELDS(ZeroPairs, counts)
  unsigned* counts;
  AUG_HD void operator()(std::size_t i) const { counts[i] = 0u; }
};

struct CountPairs {
  AUG_FIELDS(CountPairs, in, counts)
  View<const std::uint8_t> in;
  unsigned* counts;

  AUG_HD void operator()(int x, int y) const {
    const std::uint8_t* s = in.row(y) + x * in.channels;
    const std::uint8_t rg = s[0] < s[1] ? s[1] : s[0], mx = rg < s[2] ? s[2] : rg;
    const std::uint8_t ng = s[0] > s[1] ? s[1] : s[0], mn = ng > s[2] ? s[2] : ng;
    count_pair(counts + mx * 256 + mn);
  }
};

struct Thresholds {
  AUG_FIELDS(Thresholds, counts, unit, total, lambda_scale, thresholds, sigma)
  const unsigned* counts;
  const float* unit;
  double total, lambda_scale;
  std::uint32_t* thresholds;
  double* sigma;

  AUG_HD void operator()(std::size_t) const { iso_thresholds(counts, unit, total, lambda_scale, thresholds, sigma); }
};

struct IsoPixel {
  AUG_FIELDS(IsoPixel, in, out, a, thresholds)
  View<const std::uint8_t> in;
  View<std::uint8_t> out;
  IsoArgs a;
  const std::uint32_t* thresholds;

  AUG_HD void operator()(int x, int y) const {
    const std::uint8_t* s = in.row(y) + x * in.channels;
    std::uint8_t* d = out.row(y) + x * out.channels;
    const Philox4x32 r = a.stream.block(static_cast<std::uint32_t>(static_cast<std::size_t>(y) * in.width + x), 1);
    iso_pixel(s, d, r.v[0], r.v[1], thresholds, a);
    if (out.channels == 4) d[3] = s[3];
  }
};

}  // namespace
}  // namespace iso_noise_impl

std::size_t iso_noise_scratch_bytes() {
  return iso_noise_impl::kPairs * sizeof(unsigned) + kIsoCounts * sizeof(std::uint32_t) + sizeof(double);
}

void iso_noise(View<const std::uint8_t> in, View<std::uint8_t> out, const IsoArgs& args, Scratch& scratch,
               const Exec& exec) {
  if (exec.cpu) return cpu::iso_noise(in, out, args, scratch);
  auto* counts = static_cast<unsigned*>(scratch.scratch(iso_noise_scratch_bytes()));
  auto* thresholds = reinterpret_cast<std::uint32_t*>(counts + iso_noise_impl::kPairs);
  auto* sigma = reinterpret_cast<double*>(thresholds + kIsoCounts);
  for_1d(iso_noise_impl::ZeroPairs{counts}, iso_noise_impl::kPairs, exec, "iso_noise (clear)");
  for_2d(iso_noise_impl::CountPairs{in, counts}, in.width, in.height, exec, "iso_noise (histogram)");
  const double total = static_cast<double>(in.width) * in.height;
  for_1d(iso_noise_impl::Thresholds{counts, args.unit, total, args.lambda_scale, thresholds, sigma}, 1, exec, "iso_noise (sigma)");
  for_2d(iso_noise_impl::IsoPixel{in, out, args, thresholds}, out.width, out.height, exec, "iso_noise");
}

}  // namespace aug::k
