#include "kernels/core/probe.hpp"

namespace aug::k {

namespace probe_impl {
namespace {

struct ProbeValues {
  std::uint32_t* out;
  AUG_FIELDS(ProbeValues, out)
  AUG_HD void operator()(std::size_t i) const { out[i] = probe_value(i); }
};

}  // namespace
}  // namespace probe_impl

void probe(std::uint32_t* out, std::size_t count, const Exec& exec) { for_1d(probe_impl::ProbeValues{out}, count, exec, "probe"); }

}  // namespace aug::k
