#include "qsa/traces/scenario_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"

namespace qsa::traces {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& field, int64_t line, const std::string& rule, const std::string& message) {
  throw InputError(Error{field, line, rule, message});
}

void check_range(const std::string& field, int64_t value, int64_t lo, int64_t hi, int64_t line) {
  if (value < lo || value > hi)
    fail(field, line, "out-of-range",
         std::to_string(value) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

std::vector<int32_t> int32_array(JsonObjectReader& r, const char* field, const std::string& context, int64_t line) {
  std::vector<int32_t> out;
  for (int64_t v : r.integer_array(field, true)) {  // required: FORMAT.md gives no default (finding 5)
    check_range(context + field, v, -1, kMaxInt32, line);
    out.push_back(static_cast<int32_t>(v));
  }
  return out;
}

// What a step's record may name given the configuration and the requests seen so far: blocks
// inside the caches, and only live requests finished or preempted. (Whether each chunk continues
// its request is ScenarioState's check, made while stepping.)
void check_step_against_config(const StepRecord& step, const ScenarioConfig& config, std::set<int64_t>* live) {
  for (size_t i = 0; i < step.chunks.size(); ++i) {
    const ChunkRecord& c = step.chunks[i];
    const std::string context = "chunks[" + std::to_string(i) + "].";
    for (size_t b = 0; b < c.blocks.size(); ++b)
      if (c.blocks[b] >= config.num_compressed_blocks && c.blocks[b] < kFarBlockFloor)
        fail(context + "blocks", -1, "past-the-cache",
             "block " + std::to_string(c.blocks[b]) + " (entry " + std::to_string(b) + ") is beyond the " +
                 std::to_string(config.num_compressed_blocks) + " blocks of the compressed cache");
    if (c.ring_block >= config.num_ring_blocks && c.ring_block < kFarBlockFloor)
      fail(context + "ring_block", -1, "past-the-cache",
           "ring block " + std::to_string(c.ring_block) + " is beyond the " + std::to_string(config.num_ring_blocks) +
               " blocks of the ring cache");
    live->insert(c.request);
  }
  for (size_t i = 0; i < step.preempted.size(); ++i)
    if (live->count(step.preempted[i]) == 0)
      fail("preempted", -1, "unknown-request",
           "entry " + std::to_string(i) + ": request " + std::to_string(step.preempted[i]) + " is not live");
  for (size_t i = 0; i < step.finished.size(); ++i)
    if (live->erase(step.finished[i]) == 0)
      fail("finished", -1, "unknown-request",
           "entry " + std::to_string(i) + ": request " + std::to_string(step.finished[i]) +
               " is not live (never seen, or already finished)");
}

}  // namespace

void validate_config(const ScenarioConfig& c) {
  const int64_t line = 1;
  check_range("config.compress_ratio", c.compress_ratio, 2, kMaxCompressRatio, line);
  check_range("config.block_size", c.block_size, c.compress_ratio, int64_t{1} << 20, line);
  if (c.block_size % c.compress_ratio != 0)
    fail("config.block_size", line, "not-multiple", "B must be a multiple of C");
  check_range("config.num_speculative_tokens", c.num_speculative_tokens, 0, 64, line);
  int64_t ring = 0;
  Error error;
  if (ring_capacity(c.compress_ratio, c.num_speculative_tokens, c.block_size, c.ring_rule, &ring, &error) !=
      Status::kOk)
    fail("config.block_size", line, error.rule, error.message);
  if (ring != c.ring_capacity)
    fail("config.ring_capacity", line, "spec-3",
         "R = " + std::to_string(c.ring_capacity) + " but SPEC 3 (" + to_string(c.ring_rule) + ") gives " +
             std::to_string(ring));
  check_range("config.head_dim", c.head_dim, 32, 512, line);
  if ((c.head_dim & (c.head_dim - 1)) != 0) fail("config.head_dim", line, "out-of-range", "D must be a power of two");
  check_range("config.rotary_dim", c.rotary_dim, 2, c.head_dim, line);
  if (c.rotary_dim % 2 != 0) fail("config.rotary_dim", line, "out-of-range", "rd must be even");
  if (c.mrope_split) {
    if (!c.mrope) fail("config.mrope_sections", line, "without-mrope", "mrope_sections needs mrope true");
    const auto& split = *c.mrope_split;
    for (int64_t section : split) check_range("config.mrope_sections", section, 0, c.rotary_dim / 2, line);
    if (split[0] + split[1] + split[2] != c.rotary_dim / 2)
      fail("config.mrope_sections", line, "wrong-sum", "the sections must sum to rotary_dim / 2");
  }
  check_range("config.num_heads", c.num_heads, 1, 1024, line);
  if (!(c.eps > 0.0f) || !std::isfinite(c.eps)) fail("config.eps", line, "out-of-range", "eps must be finite and > 0");
  if (!(c.rope_theta > 1.0) || c.rope_theta > 1e12)
    fail("config.rope_theta", line, "out-of-range", "rope_theta must be in (1, 1e12]");
  check_range("config.max_position", c.max_position, 1, int64_t{1} << 20, line);
  for (const auto& [field, pad] : {std::pair<const char*, int64_t>{"config.compressed_row_pad", c.compressed_row_pad},
                                   {"config.compressed_block_pad", c.compressed_block_pad},
                                   {"config.ring_row_pad", c.ring_row_pad},
                                   {"config.ring_block_pad", c.ring_block_pad},
                                   {"config.block_table_extra_rows", c.block_table_extra_rows},
                                   {"config.slot_mapping_extra", c.slot_mapping_extra}})
    check_range(field, pad, 0, 4096, line);
  check_range("config.num_compressed_blocks", c.num_compressed_blocks, 1, kMaxInt32, line);
  check_range("config.num_ring_blocks", c.num_ring_blocks, 1, kMaxInt32, line);
  check_range("config.max_num_batched_tokens", c.max_num_batched_tokens, 1, int64_t{1} << 20, line);
  check_range("config.max_num_seqs", c.max_num_seqs, 1, int64_t{1} << 16, line);
  check_cache_budget(c, "config.num_compressed_blocks", line, "");
}

namespace {

// a * b * ..., saturating at INT64_MAX (every factor is >= 0).
int64_t saturating_product(std::initializer_list<int64_t> factors) {
  __int128 product = 1;
  for (int64_t f : factors) {
    product *= std::max<int64_t>(f, 0);
    if (product > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(product);
}

struct CacheParts {
  int64_t compressed, ring, rope;
};

CacheParts cache_parts(const ScenarioConfig& c) {
  return {saturating_product({c.num_compressed_blocks,
                              c.storage_block_size() * (c.head_dim + c.compressed_row_pad) + c.compressed_block_pad,
                              element_bytes(c.store_dtype)}),
          saturating_product(
              {c.num_ring_blocks,
               c.ring_capacity * (ring_row_width(c.head_dim, c.mrope) + c.ring_row_pad) + c.ring_block_pad, 2}),
          saturating_product({c.max_position, c.rotary_dim, 2})};
}

}  // namespace

int64_t dense_cache_bytes(const ScenarioConfig& c) {
  const CacheParts p = cache_parts(c);
  const __int128 sum = static_cast<__int128>(p.compressed) + p.ring + p.rope;
  return sum > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(sum);
}

int64_t step_buffer_bytes(const ScenarioConfig& c) {
  // Per row: the queries and two q_out (the backend's and the expected), HQ x D bf16 each, the key
  // (D bf16) and its expected copy, and 64 bytes of positions, slots and metadata.
  const int64_t per_row = saturating_product({3, c.num_heads, c.head_dim, 2}) + 4 * c.head_dim + 64;
  return saturating_product({c.max_num_batched_tokens, per_row});
}

void check_cache_budget(const ScenarioConfig& c, const std::string& field, int64_t index, const std::string& why) {
  const int64_t limit = max_cache_bytes();
  const int64_t steps = step_buffer_bytes(c);
  const __int128 sum = static_cast<__int128>(dense_cache_bytes(c)) + steps;
  const int64_t total = sum > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                                   : static_cast<int64_t>(sum);
  if (total <= limit) return;
  const CacheParts p = cache_parts(c);
  fail(field, index, "too-large",
       (why.empty() ? std::string() : why + ": ") + "the dense caches and a step's buffers would need " +
           bytes_text(total) + " (compressed cache " + bytes_text(p.compressed) + " in " +
           std::to_string(c.num_compressed_blocks) + " blocks, ring cache " + bytes_text(p.ring) + ", RoPE table " +
           bytes_text(p.rope) + " for " + std::to_string(c.max_position) + " positions, step buffers " +
           bytes_text(steps) + " for up to " + std::to_string(c.max_num_batched_tokens) + " rows of " +
           std::to_string(c.num_heads) + " heads x " + std::to_string(c.head_dim) + "); " +
           limit_hint(limit, kMaxCacheBytesVariable));
}

json config_to_json(const ScenarioConfig& c) {
  json j = {{"seed", c.seed},
          {"workload", c.workload},
          {"compress_ratio", c.compress_ratio},
          {"block_size", c.block_size},
          {"num_speculative_tokens", c.num_speculative_tokens},
          {"ring_rule", to_string(c.ring_rule)},
          {"ring_capacity", c.ring_capacity},
          {"head_dim", c.head_dim},
          {"rotary_dim", c.rotary_dim},
          {"num_heads", c.num_heads},
          {"mrope", c.mrope},
          {"store_dtype", to_string(c.store_dtype)},
          {"eps", c.eps},
          {"rope_theta", c.rope_theta},
          {"max_position", c.max_position},
          {"num_compressed_blocks", c.num_compressed_blocks},
          {"num_ring_blocks", c.num_ring_blocks},
          {"max_num_batched_tokens", c.max_num_batched_tokens},
          {"max_num_seqs", c.max_num_seqs}};
  if (c.mrope_split) j["mrope_sections"] = *c.mrope_split;  // absent: the proportional split
  // Absent: the defaults (plain weights, dense caches, row-major tables), as older files have it.
  if (c.special_weights) j["special_weights"] = true;
  if (c.block_table_layout != BlockTableLayout::kRows) j["block_table_layout"] = to_string(c.block_table_layout);
  for (const auto& [field, value] :
       {std::pair<const char*, int64_t>{"block_table_extra_rows", c.block_table_extra_rows},
        {"slot_mapping_extra", c.slot_mapping_extra},
        {"compressed_row_pad", c.compressed_row_pad},
        {"compressed_block_pad", c.compressed_block_pad},
        {"ring_row_pad", c.ring_row_pad},
        {"ring_block_pad", c.ring_block_pad}})
    if (value != 0) j[field] = value;
  return j;
}

ScenarioConfig config_from_json(const json& j, int64_t line) {
  JsonObjectReader r(j, "config.");
  ScenarioConfig c;
  // The seed is a uint64 and is written as one: read the whole range, reject negatives (finding 8).
  const json& seed = r.raw("seed");
  if (seed.is_number_unsigned())
    c.seed = seed.get<uint64_t>();
  else if (seed.is_number_integer())
    fail("config.seed", line, "out-of-range", "the seed is an unsigned 64-bit integer");
  else
    fail("config.seed", line, "wrong-type", std::string("expected an integer, got ") + seed.type_name());
  c.workload = r.string("workload");
  c.compress_ratio = r.integer("compress_ratio");
  c.block_size = r.integer("block_size");
  c.num_speculative_tokens = r.integer("num_speculative_tokens");
  const std::string rule = r.string("ring_rule");
  if (rule != "seed" && rule != "widen")
    fail("config.ring_rule", line, "unknown-rule", "ring_rule must be seed or widen");
  c.ring_rule = rule == "seed" ? RingRule::kSeed : RingRule::kWiden;
  c.ring_capacity = r.integer("ring_capacity");
  c.head_dim = r.integer("head_dim");
  c.rotary_dim = r.integer("rotary_dim");
  c.num_heads = r.integer("num_heads");
  c.mrope = r.boolean("mrope");
  if (r.has("mrope_sections")) {
    const std::vector<int64_t> split = r.integer_array("mrope_sections");
    if (split.size() != 3) fail("config.mrope_sections", line, "wrong-shape", "expected [t, h, w]");
    c.mrope_split = std::array<int64_t, 3>{split[0], split[1], split[2]};
  }
  const std::string dtype = r.string("store_dtype");
  if (dtype != "bf16" && dtype != "fp8_e4m3")
    fail("config.store_dtype", line, "unknown-dtype", "store_dtype must be bf16 or fp8_e4m3");
  c.store_dtype = dtype == "bf16" ? StoreDtype::kBf16 : StoreDtype::kFp8E4m3;
  c.eps = static_cast<float>(r.number("eps"));
  c.rope_theta = r.number("rope_theta");
  c.max_position = r.integer("max_position");
  c.num_compressed_blocks = r.integer("num_compressed_blocks");
  c.num_ring_blocks = r.integer("num_ring_blocks");
  c.max_num_batched_tokens = r.integer("max_num_batched_tokens");
  c.max_num_seqs = r.integer("max_num_seqs");
  if (r.has("special_weights")) c.special_weights = r.boolean("special_weights");
  if (r.has("block_table_layout")) {
    const std::string layout = r.string("block_table_layout");
    bool known = false;
    for (BlockTableLayout l : {BlockTableLayout::kRows, BlockTableLayout::kColumnMajor, BlockTableLayout::kColumnSlice})
      if (layout == to_string(l)) {
        c.block_table_layout = l;
        known = true;
      }
    if (!known)
      fail("config.block_table_layout", line, "unknown-layout",
           "block_table_layout must be rows, column-major or column-slice");
  }
  c.block_table_extra_rows = r.optional_integer("block_table_extra_rows").value_or(0);
  c.slot_mapping_extra = r.optional_integer("slot_mapping_extra").value_or(0);
  c.compressed_row_pad = r.optional_integer("compressed_row_pad").value_or(0);
  c.compressed_block_pad = r.optional_integer("compressed_block_pad").value_or(0);
  c.ring_row_pad = r.optional_integer("ring_row_pad").value_or(0);
  c.ring_block_pad = r.optional_integer("ring_block_pad").value_or(0);
  r.reject_unknown_fields();
  validate_config(c);
  return c;
}

json step_to_json(const StepRecord& step, int64_t index) {
  json chunks = json::array();
  for (const ChunkRecord& c : step.chunks) {
    json chunk = {{"request", c.request},      {"prompt_len", c.prompt_len}, {"start", c.start},
                  {"length", c.length},        {"accepted", c.accepted},     {"blocks", c.blocks},
                  {"ring_block", c.ring_block}};
    if (c.family >= 0) chunk["family"] = c.family;
    if (c.family_len > 0) chunk["family_len"] = c.family_len;
    if (!c.negative_common_slots.empty()) chunk["negative_common_slots"] = c.negative_common_slots;
    if (c.prefilled) chunk["prefilled"] = true;
    chunks.push_back(std::move(chunk));
  }
  json j = {{"step", index}, {"chunks", std::move(chunks)}, {"reorder_batch_threshold", step.reorder_batch_threshold}};
  if (step.padded_requests > 0) j["padded_requests"] = step.padded_requests;
  if (step.padding_tokens > 0) j["padding_tokens"] = step.padding_tokens;
  if (!step.finished.empty()) j["finished"] = step.finished;
  if (!step.preempted.empty()) j["preempted"] = step.preempted;
  return j;
}

StepRecord step_from_json(const json& j, int64_t line) {
  JsonObjectReader r(j);
  StepRecord step;
  r.integer("step");  // informational: the step's index, checked by the reader
  step.reorder_batch_threshold = r.integer("reorder_batch_threshold");
  check_range("reorder_batch_threshold", step.reorder_batch_threshold, 1, kMaxTokens, line);
  step.padded_requests = r.optional_integer("padded_requests").value_or(0);
  check_range("padded_requests", step.padded_requests, 0, 1 << 16, line);
  step.padding_tokens = r.optional_integer("padding_tokens").value_or(0);
  check_range("padding_tokens", step.padding_tokens, 0, 1 << 20, line);
  step.finished = r.integer_array("finished", false);
  step.preempted = r.integer_array("preempted", false);
  const json& chunks = r.raw("chunks");
  if (!chunks.is_array()) fail("chunks", line, "wrong-type", "chunks must be an array");
  int64_t rows = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const std::string context = "chunks[" + std::to_string(i) + "].";
    JsonObjectReader cr(chunks[i], context);
    ChunkRecord c;
    c.request = cr.integer("request");
    check_range(context + "request", c.request, 0, int64_t{1} << 24, line);
    c.family = cr.optional_integer("family").value_or(-1);
    check_range(context + "family", c.family, -1, int64_t{1} << 24, line);
    c.prompt_len = cr.integer("prompt_len");
    check_range(context + "prompt_len", c.prompt_len, 0, int64_t{1} << 20, line);
    c.family_len = cr.optional_integer("family_len").value_or(0);
    check_range(context + "family_len", c.family_len, 0, int64_t{1} << 20, line);
    c.start = cr.integer("start");
    check_range(context + "start", c.start, 0, int64_t{1} << 20, line);
    c.length = cr.integer("length");
    check_range(context + "length", c.length, 0, int64_t{1} << 20, line);  // 0: a zero-length request in the batch
    c.accepted = cr.integer("accepted");
    check_range(context + "accepted", c.accepted, 0, c.length, line);
    c.blocks = int32_array(cr, "blocks", context, line);
    const int64_t ring_block = cr.integer("ring_block");
    check_range(context + "ring_block", ring_block, -1, kMaxInt32, line);  // before narrowing (finding 6)
    c.ring_block = static_cast<int32_t>(ring_block);
    c.negative_common_slots = cr.integer_array("negative_common_slots", false);
    for (int64_t o : c.negative_common_slots)
      check_range(context + "negative_common_slots", o, 0, std::max<int64_t>(0, c.length - 1), line);
    c.prefilled = cr.has("prefilled") && cr.boolean("prefilled");
    if (c.prefilled && c.start == 0)
      fail(context + "prefilled", line, "nothing-prefilled", "a prefilled chunk starts past 0");
    cr.reject_unknown_fields();
    rows += c.length;
    step.chunks.push_back(std::move(c));
  }
  if (rows + step.padding_tokens > (int64_t{1} << 20))
    fail("chunks", line, "too-large", "a step may hold at most 2^20 rows");
  r.reject_unknown_fields();
  return step;
}

bool ScenarioReader::next_line(std::string* text) {
  // A bounded getline: a line past the input limit is refused before it is held. A file is measured
  // first (a seekable stream: the line is then read once into a string of its size); a pipe grows
  // the string, stopping at the limit.
  const int64_t limit = max_input_bytes();
  std::streambuf* buffer = in_.rdbuf();
  const auto too_large = [&] {
    fail("line", line_, "too-large",
         "line " + std::to_string(line_) + " is longer than one line of a scenario file may be; " +
             limit_hint(limit, kMaxInputBytesVariable));
  };
  for (;;) {
    text->clear();
    const std::streampos start = buffer->pubseekoff(0, std::ios_base::cur, std::ios_base::in);
    int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) return false;
    ++line_;
    if (start != std::streampos(-1)) {
      int64_t length = 0;
      for (; c != std::char_traits<char>::eof() && c != '\n'; c = buffer->sbumpc())
        if (++length > limit) too_large();
      buffer->pubseekpos(start, std::ios_base::in);
      text->resize(static_cast<size_t>(length));
      if (buffer->sgetn(text->data(), length) != length) fail("line", line_, "unreadable", "the file changed while read");
      if (c == '\n') buffer->sbumpc();
    } else {
      for (; c != std::char_traits<char>::eof() && c != '\n'; c = buffer->sbumpc()) {
        if (static_cast<int64_t>(text->size()) >= limit) too_large();
        text->push_back(static_cast<char>(c));
      }
    }
    if (text->find_first_not_of(" \t\r") != std::string::npos) return true;
  }
}

namespace {

json parse_line(const std::string& text, int64_t line) {
  try {
    return parse_json(text);
  } catch (const InputError& e) {  // malformed or too deep (the line is the locator) or a duplicate key (named)
    Error error = e.error();
    if (error.rule == "malformed-json" || error.rule == "too-deep") error.field = "line";
    error.index = line;
    throw InputError(error);
  }
}

}  // namespace

ScenarioReader::ScenarioReader(std::istream& in) : in_(in) {
  std::string text;
  if (!next_line(&text)) fail("format", line_, "empty", "no configuration line");
  const json j = parse_line(text, line_);
  try {
    JsonObjectReader r(j);
    if (r.string("format") != "qsacheck-scenario")
      fail("format", line_, "not-a-scenario", "the first line must have \"format\": \"qsacheck-scenario\"");
    const int64_t version = r.integer("version");
    if (version < kOldestScenarioFormatVersion || version > kScenarioFormatVersion)
      fail("version", line_, "unsupported-version",
           "format version " + std::to_string(version) + " (this build reads " +
               std::to_string(kOldestScenarioFormatVersion) + " to " + std::to_string(kScenarioFormatVersion) + ")");
    config_ = config_from_json(r.raw("config"), line_);
    config_.content_version = static_cast<int>(version);  // the content of its version
    if (r.has("float_tolerance")) {
      const auto tolerance = parse_float_tolerance(r.string("float_tolerance"));
      if (!tolerance) fail("float_tolerance", line_, "invalid-tolerance", kFloatToleranceRule);
      tolerance_ = *tolerance;
    }
    r.reject_unknown_fields();
  } catch (const InputError& e) {
    Error error = e.error();
    error.index = line_;  // the line is the most useful locator in a file
    throw InputError(error);
  }
}

bool ScenarioReader::next(StepRecord* record, std::optional<StepDigest>* digest) {
  std::string text;
  if (!next_line(&text)) {
    if (steps_ == 0) fail("steps", line_, "empty", "the file has a configuration line but no steps");
    return false;
  }
  json step = parse_line(text, line_);
  try {
    digest->reset();
    if (step.is_object() && step.contains("digest")) {
      *digest = digest_from_json(step["digest"], line_);
      step.erase("digest");
    }
    *record = step_from_json(step, line_);
    check_step_against_config(*record, config_, &live_);
    if (step.value("step", int64_t{-1}) != steps_)
      fail("step", line_, "out-of-order", "expected step " + std::to_string(steps_));
    if (steps_ == 0) digests_ = digest->has_value();
    if (digest->has_value() != digests_) fail("digest", line_, "partial", "every step or none carries a digest");
  } catch (const InputError& e) {
    Error error = e.error();
    error.index = line_;  // the line is the most useful locator in a file
    throw InputError(error);
  }
  ++steps_;
  return true;
}

ScenarioFile read_scenario(std::istream& in) {
  ScenarioReader reader(in);
  ScenarioFile file;
  file.scenario.config = reader.config();
  file.float_tolerance = reader.float_tolerance();
  StepRecord step;
  std::optional<StepDigest> digest;
  while (reader.next(&step, &digest)) {
    if (digest) file.digests.push_back(std::move(*digest));
    file.scenario.steps.push_back(std::move(step));
  }
  return file;
}

std::unique_ptr<std::istream> open_scenario_stream(const std::string& path) {
  struct stat info {};
  if (path != "-" && !path.empty() && stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) throw InputError(Error{"input", -1, "unreadable", "cannot open " + path + ": " + std::strerror(errno)});
    return file;
  }
  return std::make_unique<std::istringstream>(read_input_text(path));  // its errors: missing, a folder, too large
}

ScenarioFile read_scenario_file(const std::string& path) {
  const std::unique_ptr<std::istream> in = open_scenario_stream(path);
  return read_scenario(*in);
}

json digest_to_json(const StepDigest& digest) {
  json j = json::object();
  for (const auto& [name, hash] : digest.outputs) j[name] = digest_hex(hash);
  return j;
}

StepDigest digest_from_json(const json& j, int64_t line) {
  if (!j.is_object()) fail("digest", line, "wrong-type", "digest must be an object of output name -> 16 hex digits");
  if (j.empty()) fail("digest", line, "empty", "a digest names at least one output");
  StepDigest digest;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!is_digest_output(it.key())) fail("digest." + it.key(), line, "unknown-field", "not an output a digest covers");
    const std::optional<uint64_t> hash =
        it.value().is_string() ? parse_digest_hex(it.value().get<std::string>()) : std::nullopt;
    if (!hash) fail("digest." + it.key(), line, "wrong-type", "expected 16 lower-case hex digits");
    digest.set(it.key(), *hash);
  }
  return digest;
}

std::string scenario_header_line(const ScenarioConfig& config, FloatTolerance tolerance) {
  json header = {{"format", "qsacheck-scenario"}, {"version", config.content_version}, {"config", config_to_json(config)}};
  if (!tolerance.exact()) header["float_tolerance"] = tolerance.to_string();
  return header.dump();
}

void write_scenario(std::ostream& out, const Scenario& scenario, const std::vector<StepDigest>& digests,
                    FloatTolerance tolerance) {
  out << scenario_header_line(scenario.config, tolerance) << "\n";
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    json step = step_to_json(scenario.steps[i], static_cast<int64_t>(i));
    if (i < digests.size()) step["digest"] = digest_to_json(digests[i]);
    out << step.dump() << "\n";
  }
}

void write_scenario_file(const std::string& path, const Scenario& scenario, const std::vector<StepDigest>& digests,
                         FloatTolerance tolerance) {
  std::ofstream out(path);
  if (!out) fail("output", -1, "unwritable", "cannot write " + path);
  write_scenario(out, scenario, digests, tolerance);
}

bool operator==(const ChunkRecord& a, const ChunkRecord& b) {
  return a.request == b.request && a.family == b.family && a.prompt_len == b.prompt_len &&
         a.family_len == b.family_len && a.start == b.start &&
         a.length == b.length && a.accepted == b.accepted && a.blocks == b.blocks && a.ring_block == b.ring_block &&
         a.negative_common_slots == b.negative_common_slots && a.prefilled == b.prefilled;
}

bool operator==(const StepRecord& a, const StepRecord& b) {
  return a.chunks == b.chunks && a.padded_requests == b.padded_requests && a.padding_tokens == b.padding_tokens &&
         a.reorder_batch_threshold == b.reorder_batch_threshold && a.finished == b.finished &&
         a.preempted == b.preempted;
}

bool operator==(const ScenarioConfig& a, const ScenarioConfig& b) { return config_to_json(a) == config_to_json(b); }

}  // namespace qsa::traces
