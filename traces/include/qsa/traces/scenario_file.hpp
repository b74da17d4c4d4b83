#pragma once
// Scenario files (traces/FORMAT.md): JSON lines, the configuration first, then one line per step.
// Reproducers, recorded traces and `qsacheck replay` use them.

#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "qsa/traces/float_tolerance.hpp"
#include "qsa/traces/scenario.hpp"
#include "qsa/traces/step_digest.hpp"

namespace qsa::traces {

/// The format version a file is written with is its scenario's content version
/// (ScenarioConfig::content_version): version 2 has the same fields as version 1 and the content
/// of version 2 (traces/content.hpp); a version-1 file replays with version-1 content, unchanged.
inline constexpr int kScenarioFormatVersion = kContentVersion;
inline constexpr int kOldestScenarioFormatVersion = 1;

/// A scenario and, for a recorded trace, the digest of the reference's outputs after each step
/// (`qsacheck record-expected` writes them; replays compare them).
struct ScenarioFile {
  Scenario scenario;
  std::vector<StepDigest> digests;  // [steps] or empty
  /// The float comparison a reproducer was found under (header "float_tolerance", absent: exact),
  /// so a tolerance-mode finding is never replayed as an exact one by accident.
  FloatTolerance float_tolerance;
};

/// Reads a scenario file one line at a time, so that a replay holds one step, not the file
///: the configuration line first, then each step with its digest. Each line is limited to
/// max_input_bytes() (InputError {field "line", index the line, rule "too-large"}); every other
/// error is read_scenario()'s, with the same field, line and rule. Checks what one line and the
/// requests seen so far allow (a step's order, the digests on every step or none, blocks inside the
/// caches, only live requests finished); ScenarioState checks how the chunks continue.
class ScenarioReader {
 public:
  /// Reads the configuration line. `in` must outlive the reader.
  explicit ScenarioReader(std::istream& in);
  const ScenarioConfig& config() const { return config_; }
  const FloatTolerance& float_tolerance() const { return tolerance_; }
  /// The next step (and its digest, when the file carries them); false after the last one. A file
  /// without steps throws {field "steps", rule "empty"} here.
  bool next(StepRecord* step, std::optional<StepDigest>* digest);
  /// Steps read so far.
  int64_t steps() const { return steps_; }

 private:
  bool next_line(std::string* text);
  std::istream& in_;
  int64_t line_ = 0;
  int64_t steps_ = 0;
  bool digests_ = false;
  ScenarioConfig config_;
  FloatTolerance tolerance_;
  std::set<int64_t> live_;  // requests seen and not finished
};

/// Reads a scenario; throws InputError naming the field, the 1-based line (as index) and the rule.
/// Never allocates more than the text it reads plus what the configuration's limits allow.
ScenarioFile read_scenario(std::istream& in);
/// read_scenario() of a file ("-": standard input): a regular file is read as a stream (each line
/// within max_input_bytes()), anything else whole within that limit (read_input_text).
ScenarioFile read_scenario_file(const std::string& path);
/// The stream read_scenario_file() reads `path` through; throws InputError like read_input_text.
std::unique_ptr<std::istream> open_scenario_stream(const std::string& path);

/// Writes a scenario (and digests, when given) that read_scenario() reads back to the same scenario.
/// A tolerance other than exact is written in the header.
/// The configuration line of a scenario file (a tolerance other than exact in it), without its newline.
std::string scenario_header_line(const ScenarioConfig& config, FloatTolerance tolerance = {});
void write_scenario(std::ostream& out, const Scenario& scenario, const std::vector<StepDigest>& digests = {},
                    FloatTolerance tolerance = {});
void write_scenario_file(const std::string& path, const Scenario& scenario, const std::vector<StepDigest>& digests = {},
                         FloatTolerance tolerance = {});

/// Checks a configuration (ranges, SPEC 3's ring capacity, cache sizes); throws InputError.
void validate_config(const ScenarioConfig& config);

/// Bytes a scenario of this configuration allocates up front: the dense compressed and ring caches
/// and the RoPE table (saturates at INT64_MAX instead of overflowing).
int64_t dense_cache_bytes(const ScenarioConfig& config);

/// Bytes of one step's buffers at the configuration's token budget (max_num_batched_tokens rows):
/// the queries, the backend's and the expected q_out, the keys and the per-row metadata.
int64_t step_buffer_bytes(const ScenarioConfig& config);

/// Throws InputError {field, rule "too-large"} when dense_cache_bytes(config) plus
/// step_buffer_bytes(config) passes max_cache_bytes(), before anything is allocated (a
/// token budget of 2^20 rows at 64 heads x 512 was not priced and ran out of memory); the message
/// gives each part, the limit, `why` and how to change the limit.
void check_cache_budget(const ScenarioConfig& config, const std::string& field, int64_t index, const std::string& why);

nlohmann::json config_to_json(const ScenarioConfig& config);
ScenarioConfig config_from_json(const nlohmann::json& json, int64_t line);
nlohmann::json step_to_json(const StepRecord& step, int64_t index);
StepRecord step_from_json(const nlohmann::json& json, int64_t line);
/// A step's "digest" object: output name -> 16 hex digits (FORMAT.md). The reader rejects unknown
/// names, other spellings and an empty object.
nlohmann::json digest_to_json(const StepDigest& digest);
StepDigest digest_from_json(const nlohmann::json& json, int64_t line);

bool operator==(const ChunkRecord& a, const ChunkRecord& b);
bool operator==(const StepRecord& a, const StepRecord& b);
bool operator==(const ScenarioConfig& a, const ScenarioConfig& b);

}  // namespace qsa::traces
