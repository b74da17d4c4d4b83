#pragma once
// Per-step digests of a backend's outputs. A recorded trace (traces/recorded/) carries, for every
// step, the digest the reference produced when it was recorded; a replay on any backend recomputes
// the digest of that backend's outputs and compares. Each output is hashed on its own, so a
// mismatch names the step and the first output that differs (traces/FORMAT.md defines the hash).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qsa/step_types.hpp"
#include "qsa/types.hpp"

namespace qsa::traces {

/// The outputs a digest covers, in the order a mismatch is reported.
inline constexpr std::array<const char*, 7> kDigestOutputs = {
    "metadata.compressed", "metadata.ring", "metadata.passthrough", "q_out",
    "cache.compressed",    "cache.ring",    "step_status"};

/// True when `name` is one of kDigestOutputs.
bool is_digest_output(const std::string& name);

/// One step's digest: output name -> 64-bit hash. Entries follow kDigestOutputs' order; a step of a
/// backend without the step update has the three metadata entries only.
struct StepDigest {
  std::vector<std::pair<std::string, uint64_t>> outputs;

  /// The hash of `name`, or nullopt when the digest does not cover it.
  std::optional<uint64_t> find(const std::string& name) const;
  /// Sets (or replaces) one entry, keeping kDigestOutputs' order.
  void set(const std::string& name, uint64_t hash);

  bool operator==(const StepDigest& other) const { return outputs == other.outputs; }
  bool operator!=(const StepDigest& other) const { return !(*this == other); }
};

/// A hash as written in files: 16 lower-case hex digits. parse_digest_hex() is its inverse
/// (nullopt for anything else, upper case included, so one value has one spelling).
std::string digest_hex(uint64_t hash);
std::optional<uint64_t> parse_digest_hex(const std::string& text);

/// The byte hash of FORMAT.md: h = kDigestSeed ^ size; for each 8-byte little-endian word w of
/// the data (the last one zero-padded) h = mix(h ^ w) with mix the splitmix64 finaliser
/// (traces::Rng::mix); then h = mix(h ^ size).
inline constexpr uint64_t kDigestSeed = 0x7173616368656B31ull;  // "qsachek1"
uint64_t digest_bytes(const void* data, size_t size);

/// Incremental form: values are appended as little-endian bytes, then hashed with digest_bytes().
class DigestWriter {
 public:
  void bytes(const void* data, size_t size);
  void i32(int32_t v);
  void i64(int64_t v);
  template <typename T>
  void values(const std::vector<T>& v) {
    i64(static_cast<int64_t>(v.size()));
    for (T x : v) {
      if constexpr (sizeof(T) == 4)
        i32(static_cast<int32_t>(x));
      else
        i64(static_cast<int64_t>(x));
    }
  }
  uint64_t finish() const { return digest_bytes(buffer_.data(), buffer_.size()); }

 private:
  std::vector<uint8_t> buffer_;
};

/// Metadata outputs, in this order: token_to_req, logical_positions, visible_blocks,
/// slot_mapping, k_work_metadata (each its length, then its elements), then the seven split fields
/// (num_decodes, num_decode_tokens, num_prefills, num_prefill_tokens, max_query_len,
/// decode_query_len, max_seq_len).
uint64_t digest_metadata(const MetadataOutput& metadata);

/// The cache rows a step named: for each non-negative slot inside the cache, in row order, the
/// slot (int64) and the row's `width` elements (bytes as stored). Rows the step did not name are
/// not hashed (SPEC 7.5's write check covers them), which keeps the digest O(rows of the step).
uint64_t digest_cache_rows(const CacheBuffer& cache, const std::vector<int64_t>& slots);

/// q_out bytes.
uint64_t digest_q_out(const std::vector<uint8_t>& q_out);

/// The step status as its name (to_string(StepStatus)).
uint64_t digest_step_status(StepStatus status);

/// The first output where `actual` differs from `expected`, in kDigestOutputs' order, as
/// "cache.ring: expected 0123456789abcdef, actual ..."; outputs `actual` lacks are skipped (a
/// backend without the step update is compared on its metadata). nullopt when all agree.
std::optional<std::string> compare_digests(const StepDigest& expected, const StepDigest& actual);

}  // namespace qsa::traces
