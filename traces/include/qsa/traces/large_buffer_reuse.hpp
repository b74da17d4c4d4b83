#pragma once
// While one lives, freed memory stays in the process and serves the next allocation: glibc's malloc
// maps every block above 32 MiB afresh, and each 4 KiB page of a fresh mapping faults on first touch.
// The extreme batches (traces/extreme_batches.hpp) allocate and free about 1.3 GiB per batch (inputs,
// poisoned and built outputs of 2^24 rows); reusing it cut their cost on the 2-core build machine
// from ~26 s of CPU (half of it in the kernel's page faults) to ~5 s (docs/campaign-time.md). With
// a C library other than glibc it does nothing.

namespace qsa::traces {

class LargeBufferReuse {
 public:
  LargeBufferReuse();   // malloc keeps large blocks in its heap and trims nothing
  ~LargeBufferReuse();  // back to glibc's settings once warmed up (32 MiB mmap threshold), heap trimmed
  LargeBufferReuse(const LargeBufferReuse&) = delete;
  LargeBufferReuse& operator=(const LargeBufferReuse&) = delete;
};

}  // namespace qsa::traces
