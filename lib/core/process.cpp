#include "lib/core/process.hpp"

#include <malloc.h>

namespace aug {

void keep_large_buffers_in_heap() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

}  // namespace aug
