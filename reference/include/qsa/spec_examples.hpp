#pragma once
// The worked examples of SPEC 8, as data: the unit tests and `qsacheck check` both run them.
// The expected values are the SPEC's own; nothing here is computed by the code under test.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa {

struct MetadataExample {
  std::string name;
  MetadataInput input;
  // Only the outputs the SPEC states are compared; the rest is left to the invariants.
  std::optional<std::vector<int32_t>> token_to_req;
  std::optional<std::vector<int64_t>> logical_positions;
  std::optional<std::vector<int32_t>> visible_blocks;
  std::optional<std::vector<int64_t>> slot_mapping;
  std::optional<std::vector<int32_t>> k_work_metadata;  // flattened pairs
  std::optional<int64_t> num_decodes;
  std::optional<int64_t> decode_query_len;
};

/// The first four examples of SPEC 8.
std::vector<MetadataExample> spec_metadata_examples();

/// First difference between an output and the example's stated values, or nullopt.
std::optional<std::string> compare_with_example(const MetadataExample& example, const MetadataOutput& output);

/// SPEC 8's ring-survival example for chunk start s: C = 4, 3 drafts, R = 8 (the SPEC 3 rule),
/// a decode of 4 rows at positions s..s+3 through `build`; the rows it writes must miss the
/// committed members of the open group, {m mod 8 : m in [s - s mod 4, s)}. Returns the first
/// collision as text, or nullopt.
std::optional<std::string> check_ring_survival(
    int64_t chunk_start, const std::function<Status(const MetadataInput&, MetadataOutput*, Error*)>& build);

}  // namespace qsa
