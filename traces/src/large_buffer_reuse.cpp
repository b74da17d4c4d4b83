#include "qsa/traces/large_buffer_reuse.hpp"

#include <climits>
#include <cstdlib>  // defines __GLIBC__ where it is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace qsa::traces {

#if defined(__GLIBC__)
LargeBufferReuse::LargeBufferReuse() {
  mallopt(M_MMAP_MAX, 0);                // no block is mapped on its own: all come from the heap
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // and a freed one stays there for the next batch
}

LargeBufferReuse::~LargeBufferReuse() {
  // Setting any of these ends glibc's dynamic threshold; these are the values it grows to.
  mallopt(M_MMAP_MAX, 65536);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  malloc_trim(0);  // the heap's free memory back to the system
}
#else
LargeBufferReuse::LargeBufferReuse() = default;
LargeBufferReuse::~LargeBufferReuse() = default;
#endif

}  // namespace qsa::traces
