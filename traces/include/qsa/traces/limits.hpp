#pragma once
// The resource limits every reader and the campaign check before they allocate (docs/limits.md
// says how they were chosen for a 2-core, 24 GiB machine). Each has a default and an environment
// variable that raises or lowers it; an error names the limit and the variable.

#include <cstdint>
#include <string>

namespace qsa::traces {

/// Bytes read from one input (a JSON file, a scenario file, a request CSV, standard input).
/// nlohmann's tree of an integer array takes up to ~12 bytes of memory per byte of text, so 64 MiB
/// of input peaks near 800 MiB.
inline constexpr int64_t kDefaultMaxInputBytes = int64_t{64} << 20;
inline constexpr const char* kMaxInputBytesVariable = "QSA_MAX_INPUT_BYTES";

/// Bytes of dense cache (compressed + ring + RoPE table) one scenario or one `eval step` may
/// allocate. A campaign holds up to four copies (backend, reference, oracle's expected state,
/// shrinker), so 2 GiB keeps a run near 8 GiB.
inline constexpr int64_t kDefaultMaxCacheBytes = int64_t{2} << 30;
inline constexpr const char* kMaxCacheBytesVariable = "QSA_MAX_CACHE_BYTES";

/// The limit in force: the variable when set (a positive integer of bytes, optionally with a K, M
/// or G suffix for KiB, MiB, GiB), else the default. A malformed value throws InputError naming the
/// variable.
int64_t max_input_bytes();
int64_t max_cache_bytes();

/// "64 MiB" / "1.5 GiB" / "1000 bytes": a byte count a person reads at a glance.
std::string bytes_text(int64_t bytes);

/// The sentence that ends a limit error: "the limit is 64 MiB; raise it with QSA_MAX_INPUT_BYTES=N".
std::string limit_hint(int64_t limit, const char* variable);

/// The whole of `path` ("" or "-": standard input), read in pieces so that no more than
/// max_input_bytes() is ever held: a longer input (/dev/zero, a 10 GB file) throws InputError
/// {field "input", rule "too-large"} as soon as it passes the limit. A directory, a missing or
/// unreadable file throw {field "input", rule "not-a-file" / "unreadable"} naming the path.
std::string read_input_text(const std::string& path);

}  // namespace qsa::traces
