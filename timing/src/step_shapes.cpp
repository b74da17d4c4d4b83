#include "qsa/timing/step_shapes.hpp"

#include <algorithm>
#include <cstring>

#include "qsa/traces/rng.hpp"

namespace qsa::timing {

std::vector<StepShape> step_shapes() {
  std::vector<StepShape> shapes;
  for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
    for (int64_t nr : {64, 256, 1024}) shapes.push_back({"decode", 4 * nr, nr, dtype});
    shapes.push_back({"mixed", 8192, 1024, dtype});
    for (int64_t nr : {2, 4, 16}) shapes.push_back({"prefill", 4096 * nr, nr, dtype});
  }
  return shapes;
}

namespace {

constexpr int64_t kMaxPrefillRows = 8190;  // positions t + axis stay below the table's 8192
constexpr int64_t kMaxTokens = int64_t{1} << 18;
constexpr int64_t kMaxRequests = int64_t{1} << 14;
constexpr int64_t kL2Bytes = int64_t{60} << 20;  // H100/H200: 50-60 MB; a round streams four times it

Status bad_shape(int64_t index, const std::string& rule, const std::string& message, Error* error) {
  *error = Error{"shapes", index, rule, message};
  return Status::kInvalidInput;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

bool parse_count(const std::string& text, int64_t* value) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  *value = std::stoll(text);
  return *value > 0;
}

// The rule a valid FAMILY:N:NR breaks, or "" when it breaks none.
std::string shape_rule(const StepShape& s, std::string* message) {
  const int64_t n = s.tokens, nr = s.requests;
  if (n > kMaxTokens || nr > kMaxRequests) {
    *message = "at most 262144 tokens and 16384 requests";
    return "too-large";
  }
  if (s.name == "decode" && n != 4 * nr) {
    *message = "a decode shape has N = 4 x NR (rows of 1 + 3 drafts)";
    return "decode-rows";
  }
  if (s.name == "prefill" && (n % nr != 0 || n / nr > kMaxPrefillRows)) {
    *message = "a prefill shape has N a multiple of NR, at most 8190 rows per request";
    return "prefill-rows";
  }
  if (s.name == "mixed") {
    const int64_t rest = n - 4 * (nr - 4);
    if (nr < 5 || rest < 4 || rest % 4 != 0 || rest / 4 > kMaxPrefillRows) {
      *message =
          "a mixed shape has NR >= 5 and N - 4 (NR - 4) a positive multiple of 4 (four prefills), "
          "at most 8190 rows each";
      return "mixed-rows";
    }
  }
  return "";
}

}  // namespace

Status parse_step_shapes(const std::string& text, std::vector<StepShape>* shapes, Error* error) {
  shapes->clear();
  if (text == "standard") {
    *shapes = step_shapes();
    return Status::kOk;
  }
  if (text == "quick") {
    *shapes = {{"decode", 4096, 1024, StoreDtype::kBf16}, {"prefill", 16384, 4, StoreDtype::kBf16}};
    return Status::kOk;
  }
  const std::vector<std::string> entries = split(text, ',');
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    const std::vector<std::string> parts = split(entries[i], ':');
    StepShape shape;
    if (parts.size() < 3 || parts.size() > 4)
      return bad_shape(
          index, "unknown-shape",
          "\"" + entries[i] + "\" is not standard, quick or FAMILY:N:NR[:DTYPE] (e.g. decode:4096:1024:fp8)", error);
    shape.name = parts[0];
    if (shape.name != "decode" && shape.name != "mixed" && shape.name != "prefill")
      return bad_shape(index, "unknown-family", "family \"" + parts[0] + "\" is not decode, mixed or prefill", error);
    if (!parse_count(parts[1], &shape.tokens) || !parse_count(parts[2], &shape.requests))
      return bad_shape(index, "not-a-count", "N and NR are positive integers in \"" + entries[i] + "\"", error);
    if (parts.size() == 4 && parts[3] != "bf16" && parts[3] != "fp8")
      return bad_shape(index, "unknown-dtype", "dtype \"" + parts[3] + "\" is not bf16 or fp8", error);
    shape.dtype = parts.size() == 4 && parts[3] == "fp8" ? StoreDtype::kFp8E4m3 : StoreDtype::kBf16;
    std::string message;
    if (const std::string rule = shape_rule(shape, &message); !rule.empty())
      return bad_shape(index, rule, "\"" + entries[i] + "\": " + message, error);
    shapes->push_back(shape);
  }
  return Status::kOk;
}

StepCase make_step_case(const StepShape& shape, uint64_t seed) {
  traces::Rng rng(seed);
  StepCase c;
  StepInput& in = c.input;
  StepConfig& cfg = in.config;
  cfg.compress_ratio = 4;
  cfg.storage_block_size = 16;  // B = 64
  cfg.ring_capacity = 8;        // 3 drafts
  cfg.head_dim = 128;
  cfg.rotary_dim = 64;
  cfg.num_heads = 4;
  cfg.eps = 1e-6f;
  cfg.mrope_sections = std::array<int64_t, 3>{11, 11, 10};
  cfg.ring_positions = true;
  cfg.store_dtype = shape.dtype;
  cfg.max_position = 8192;
  cfg.cos_sin = std::make_shared<const std::vector<Bf16>>(make_cos_sin_table(1e7, 64, cfg.max_position));
  for (int d = 0; d < 128; ++d) {
    cfg.w_k.push_back(bf16_from_float(static_cast<float>(rng.range(-64, 64)) / 256.0f));
    cfg.w_q.push_back(bf16_from_float(static_cast<float>(rng.range(-64, 64)) / 256.0f));
  }

  // Chunks: the decodes first (4 rows each), then prefill chunks that fill N.
  Batch& b = in.batch;
  b.reorder_batch_threshold = 4;
  b.query_start_loc = {0};
  const int64_t decodes = shape.name == "prefill" ? 0 : (shape.name == "mixed" ? shape.requests - 4 : shape.requests);
  const int64_t prefills = shape.requests - decodes;
  const int64_t prefill_rows = prefills > 0 ? (shape.tokens - 4 * decodes) / prefills : 0;
  for (int64_t j = 0; j < shape.requests; ++j) {
    const bool decode = j < decodes;
    const int64_t q = decode ? 4 : prefill_rows;
    const int64_t start = decode ? rng.range(64, 4000) : 0;  // a decode has wrapped the ring many times
    b.query_start_loc.push_back(b.query_start_loc.back() + q);
    b.seq_lens.push_back(start + q);
  }
  b.num_actual_tokens = b.query_start_loc.back();
  const int64_t n = b.num_actual_tokens;
  const int64_t blocks_per_request = (*std::max_element(b.seq_lens.begin(), b.seq_lens.end()) + 63) / 64;
  std::vector<std::vector<int32_t>> table(static_cast<size_t>(shape.requests));
  std::vector<std::vector<int32_t>> ring(static_cast<size_t>(shape.requests));
  for (int64_t j = 0; j < shape.requests; ++j) {
    for (int64_t k = 0; k < blocks_per_request; ++k)
      table[j].push_back(static_cast<int32_t>(j * blocks_per_request + k));
    ring[j].push_back(static_cast<int32_t>(j));
  }
  in.block_table = BlockTable::from_rows(table);
  in.ring_block_table = BlockTable::from_rows(ring);
  for (int64_t t = 0; t < n; ++t) b.common_slot_mapping.push_back(t);

  auto random_bf16 = [&] { return bf16_from_float(static_cast<float>((2.0 * rng.unit() - 1.0) * 3.0)); };
  in.keys.resize(static_cast<size_t>(n * 128));
  in.queries.resize(static_cast<size_t>(n * 4 * 128));
  for (Bf16& v : in.keys) v = random_bf16();
  for (Bf16& v : in.queries) v = random_bf16();
  in.position_axes = 3;
  in.positions.resize(static_cast<size_t>(3 * n));
  for (int64_t j = 0; j < shape.requests; ++j)
    for (int64_t t = b.query_start_loc[j]; t < b.query_start_loc[j + 1]; ++t)
      for (int axis = 0; axis < 3; ++axis)
        in.positions[axis * n + t] = b.chunk_start(j) + (t - b.query_start_loc[j]) + axis;

  // Caches: one ring block per request, every compressed block; the open groups' ring rows hold
  // committed keys with in-range position tails.
  c.caches.ring.layout = CacheLayout::dense(shape.requests, 8, ring_row_width(128, true), 2);
  c.caches.ring.bytes.resize(static_cast<size_t>(c.caches.ring.layout.size_bytes()));
  for (size_t i = 0; i < c.caches.ring.bytes.size(); i += 2) {
    const Bf16 v = random_bf16();
    c.caches.ring.bytes[i] = static_cast<uint8_t>(v & 0xFF);
    c.caches.ring.bytes[i + 1] = static_cast<uint8_t>(v >> 8);
  }
  for (int64_t slot = 0; slot < shape.requests * 8; ++slot) {
    const int64_t tail[3] = {rng.range(0, 4000), rng.range(0, 4000), rng.range(0, 4000)};
    std::memcpy(c.caches.ring.bytes.data() + c.caches.ring.layout.byte_offset(slot, 128), tail, sizeof tail);
  }
  c.caches.compressed.layout =
      CacheLayout::dense(shape.requests * blocks_per_request, 16, 128, element_bytes(shape.dtype));
  c.caches.compressed.bytes.assign(static_cast<size_t>(c.caches.compressed.layout.size_bytes()), 0);
  return c;
}

int64_t sets_streaming_past_l2(int64_t bytes) {
  return std::clamp<int64_t>((4 * kL2Bytes + bytes - 1) / std::max<int64_t>(bytes, 1), 2, 256);
}

std::string shape_suffix(const StepShape& s) {
  return "shape:" + s.name + "/tokens:" + std::to_string(s.tokens) + "/requests:" + std::to_string(s.requests) +
         "/dtype:" + to_string(s.dtype);
}

int64_t step_bytes(const StepInput& in) {
  const StepConfig& c = in.config;
  const int64_t n = in.num_tokens();
  const int64_t d = c.head_dim;
  const int64_t eb = element_bytes(c.store_dtype);
  const int64_t ring_row = ring_row_width(d, c.ring_positions) * 2;
  int64_t bytes = n * c.num_heads * d * (2 + eb) + n * d * 2;  // q in and out, k in
  const Batch& b = in.batch;
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t q = b.query_len(j);
    if (q == 0) continue;
    const int64_t s = b.chunk_start(j);
    const int64_t groups = b.seq_lens[j] / c.compress_ratio - s / c.compress_ratio;
    bytes += std::min(q, c.ring_capacity) * ring_row;            // ring writes
    bytes += groups * d * eb;                                    // compressed writes
    if (groups > 0) bytes += (s % c.compress_ratio) * ring_row;  // ring reads of the first group's earlier members
  }
  return bytes;
}

}  // namespace qsa::timing
