// The reference's conversions (SPEC 6) as tables, for checking other implementations of them (the
// Python worker module's, python/tests/test_numerics.py):
//   numerics_table bf16   < binary32 patterns (uint32 LE)  > bf16_from_float patterns (uint16 LE)
//   numerics_table e4m3                                     > e4m3_from_bf16 of every bf16 pattern (65536 bytes)
//   numerics_table e4m3-values                              > float_from_e4m3 of every pattern (256 binary32 LE)

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "qsa/numerics.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: numerics_table bf16|e4m3|e4m3-values\n");
    return 2;
  }
  const char* mode = argv[1];
  if (std::strcmp(mode, "bf16") == 0) {
    uint32_t bits = 0;
    while (std::fread(&bits, sizeof bits, 1, stdin) == 1) {
      float x = 0;
      std::memcpy(&x, &bits, sizeof x);
      const qsa::Bf16 y = qsa::bf16_from_float(x);
      if (std::fwrite(&y, sizeof y, 1, stdout) != 1) return 1;
    }
  } else if (std::strcmp(mode, "e4m3") == 0) {
    for (uint32_t b = 0; b < 65536; ++b) {
      const qsa::Fp8 y = qsa::e4m3_from_bf16(static_cast<qsa::Bf16>(b));
      if (std::fwrite(&y, sizeof y, 1, stdout) != 1) return 1;
    }
  } else if (std::strcmp(mode, "e4m3-values") == 0) {
    for (uint32_t b = 0; b < 256; ++b) {
      const float y = qsa::float_from_e4m3(static_cast<qsa::Fp8>(b));
      if (std::fwrite(&y, sizeof y, 1, stdout) != 1) return 1;
    }
  } else {
    std::fprintf(stderr, "numerics_table: unknown mode %s\n", mode);
    return 2;
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
