#include "kernels/core/probe.hpp"

namespace aug::k {

namespace {

struct ProbeValues {
  std::uint32_t* out;
  AUG_FIELDS(ProbeValues, out)
  AUG_HD void operator()(std::size_t i) const { out[i] = probe_value(i); }
};

}  // namespace

void probe(std::uint32_t* out, std::size_t count, const Exec& exec) { for_1d(ProbeValues{out}, count, exec, "probe"); }

}  // namespace aug::k
