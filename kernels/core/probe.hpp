// The kernel a GPU backend launches when it opens a device: a missing architecture, a driver
// older than the runtime or a failed module load shows here, before any output exists.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/launch.hpp"

namespace aug::k {

// out[i] = probe_value(i) for i in [0, count).
void probe(std::uint32_t* out, std::size_t count, const Exec& exec);

AUG_HD std::uint32_t probe_value(std::size_t i) { return static_cast<std::uint32_t>(i) * 2654435761u ^ 0x5EEDu; }

}  // namespace aug::k
