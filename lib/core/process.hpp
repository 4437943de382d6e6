// Process-wide settings that every program running stages shares (augment itself and the
// benchmarks that time its stages "as in a run").
#pragma once

namespace aug {

// Image buffers and per-image planes are freed and allocated at the same sizes image after image:
// keep them in the C library's heap rather than mapping and unmapping (and page-faulting) each one.
void keep_large_buffers_in_heap();

}  // namespace aug
