#include "qsa/traces/scenario_state.hpp"

#include <algorithm>
#include <string>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/stale_padding.hpp"

namespace qsa::traces {
namespace {

// `rows` stored as the configuration says: its extra rows of zeros appended, then row-major,
// column-major, or as columns [0, W) of a table 3 columns wider (zeros outside the view, so a
// kernel that misses the stride reads block 0, an ordinary block, and writes where it should not).
BlockTable laid_out(std::vector<std::vector<int32_t>> rows, const ScenarioConfig& config) {
  const size_t width = rows.empty() ? 0 : rows.front().size();
  rows.resize(rows.size() + static_cast<size_t>(config.block_table_extra_rows), std::vector<int32_t>(width, 0));
  switch (config.block_table_layout) {
    case BlockTableLayout::kRows:
      break;
    case BlockTableLayout::kColumnMajor:
      return BlockTable::column_major(rows);
    case BlockTableLayout::kColumnSlice: {
      for (std::vector<int32_t>& row : rows) row.resize(width + 3, 0);
      BlockTable wide = BlockTable::from_rows(rows);
      wide.cols = static_cast<int64_t>(width);
      return wide;
    }
  }
  return BlockTable::from_rows(rows);
}

}  // namespace

Origin RequestLedger::committed_origin(int64_t position) const {
  if (family >= 0 && position < std::max(prompt_len, family_len))
    return Origin{OriginKind::kFamilyPrompt, family, position, 0};
  if (position < prompt_len)
    return family >= 0 ? Origin{OriginKind::kFamilyPrompt, family, position, 0}
                       : Origin{OriginKind::kOwnPrompt, request, position, 0};
  return Origin{OriginKind::kGenerated, request, position, 0};
}

Origin RequestLedger::row_origin(int64_t position, int64_t step, bool accepted) const {
  if (accepted || position < prompt_len) return committed_origin(position);
  return Origin{OriginKind::kGenerated, request, position, step + 1};
}

ScenarioState::ScenarioState(const ScenarioConfig& config)
    : config_(config), step_config_(config.step_config()), content_(config_, step_config_) {}

RequestLedger ScenarioState::ledger_for(const ChunkRecord& chunk) const {
  auto it = requests_.find(chunk.request);
  if (it != requests_.end()) return it->second;
  RequestLedger fresh;
  fresh.request = chunk.request;
  fresh.family = chunk.family;
  fresh.prompt_len = chunk.prompt_len;
  fresh.family_len = chunk.family_len;
  return fresh;
}

void ScenarioState::check_chunk(const ChunkRecord& chunk, int64_t index) const {
  const RequestLedger ledger = ledger_for(chunk);
  auto fail = [&](const std::string& why) {
    throw InputError(Error{"steps", index, "bad-chunk", "request " + std::to_string(chunk.request) + ": " + why});
  };
  if (chunk.length < 0 || chunk.accepted < 0 || chunk.accepted > chunk.length) fail("needs 0 <= accepted <= length");
  if (chunk.start < 0) fail("negative start");
  // A fresh (or preempted) request may start on shared blocks of its family's prompt, or past a
  // pre-filled context of its own.
  const bool prefix_hit = ledger.committed == 0 && chunk.family >= 0 && chunk.start % config_.block_size == 0 &&
                          chunk.start <= chunk.prompt_len;
  if (chunk.prefilled && (ledger.committed != 0 || chunk.start <= 0))
    fail("a prefilled chunk must start past 0 on a request with nothing committed (committed length " +
         std::to_string(ledger.committed) + ")");
  if (chunk.start != ledger.committed && !prefix_hit && !chunk.prefilled)
    fail("starts at " + std::to_string(chunk.start) + " but its committed length is " +
         std::to_string(ledger.committed));
  if (chunk.prompt_len != ledger.prompt_len || chunk.family != ledger.family || chunk.family_len != ledger.family_len)
    fail("changes its family, family length or prompt length");
  // Text positions are the logical ones; MRoPE ones run up to 64 past them (model_position()).
  const int64_t spare = config_.mrope ? 64 : 0;
  if (chunk.start + chunk.length + spare > config_.max_position)
    fail("reaches past max_position - " + std::to_string(spare));
}

StepInput ScenarioState::step_input(const StepRecord& record, int64_t index) const {
  for (const ChunkRecord& chunk : record.chunks) check_chunk(chunk, index);
  return build_input(record, index);
}

StepInput ScenarioState::build_input(const StepRecord& record, int64_t index) const {
  StepInput in;
  in.config = step_config_;
  Batch& b = in.batch;
  b.reorder_batch_threshold = record.reorder_batch_threshold;
  b.query_start_loc = {0};
  size_t width = 1;
  for (const ChunkRecord& chunk : record.chunks) {
    b.query_start_loc.push_back(b.query_start_loc.back() + chunk.length);
    b.seq_lens.push_back(chunk.start + chunk.length);
    width = std::max(width, chunk.blocks.size());
  }
  for (int64_t i = 0; i < record.padded_requests; ++i) {
    b.query_start_loc.push_back(b.query_start_loc.back());
    b.seq_lens.push_back(0);
  }
  const int64_t m = b.query_start_loc.back();
  b.num_actual_tokens = m + record.padding_tokens;

  // Block tables: each request's row padded with -1; padded requests get zeros, as vLLM's are.
  std::vector<std::vector<int32_t>> table;
  std::vector<std::vector<int32_t>> ring;
  for (const ChunkRecord& chunk : record.chunks) {
    std::vector<int32_t> row(width, -1);
    std::copy(chunk.blocks.begin(), chunk.blocks.end(), row.begin());
    table.push_back(row);
    ring.push_back({chunk.ring_block});
  }
  for (int64_t i = 0; i < record.padded_requests; ++i) {
    table.emplace_back(width, 0);
    ring.push_back({0});
  }
  in.block_table = laid_out(std::move(table), config_);
  in.ring_block_table = laid_out(std::move(ring), config_);

  const std::vector<Origin> origins = row_origins(record, index);
  const int64_t n = b.num_actual_tokens;
  const int64_t d = config_.head_dim;
  const int64_t heads = config_.num_heads;
  in.keys.resize(static_cast<size_t>(n * d));
  in.queries.resize(static_cast<size_t>(n * heads * d));
  in.position_axes = config_.mrope ? 3 : 1;
  in.positions.assign(static_cast<size_t>(in.position_axes * n), 0);
  b.common_slot_mapping.assign(static_cast<size_t>(n), -1);
  int64_t t = 0;
  for (const ChunkRecord& chunk : record.chunks) {
    for (int64_t o = 0; o < chunk.length; ++o, ++t) {
      const int64_t p = chunk.start + o;
      const bool negative = std::find(chunk.negative_common_slots.begin(), chunk.negative_common_slots.end(), o) !=
                            chunk.negative_common_slots.end();
      const int64_t block = p / config_.block_size < static_cast<int64_t>(chunk.blocks.size())
                                ? chunk.blocks[p / config_.block_size]
                                : -1;
      b.common_slot_mapping[t] = negative ? -1 : (block >= 0 ? block * config_.block_size + p % config_.block_size : t);
      const std::array<int64_t, 3> position = model_position(config_, origins[t]);
      for (int axis = 0; axis < in.position_axes; ++axis) in.positions[axis * n + t] = position[axis];
    }
  }
  // Past N, stale slots of earlier steps (SPEC 1.1 reads only the first N entries).
  for (int64_t e = 0; e < config_.slot_mapping_extra; ++e) b.common_slot_mapping.push_back(e * config_.block_size);
  // The rows holding a numerical alternative's searched input, counted as they are made (the
  // input-space coverage asks for them after the step; alternative_rows()).
  AlternativeRowCounts alternative_rows{};
  const AlternativeContent* alternatives = content_.alternatives();
  for (t = 0; t < n; ++t) {
    if (content_.key(origins[t], in.keys.data() + t * d) == RowClass::kAlternative)
      for (NumericAlternative a : alternatives->pool_alternatives()) ++alternative_rows[static_cast<size_t>(a)];
    for (int64_t h = 0; h < heads; ++h)
      if (content_.query(origins[t], h, in.queries.data() + (t * heads + h) * d) == RowClass::kAlternative)
        ++alternative_rows[static_cast<size_t>(alternatives->query_alternative(
            origins[t], content_.query_hash_of(origins[t], h)))];
  }
  alternative_rows_ = {index, alternative_rows};
  // Content version 3: what CUDA-graph padding leaves on the rows and table entries that are not
  // live (traces/stale_padding.hpp); versions 1 and 2 keep zeros there, as their files were made.
  if (config_.content_version >= 3) add_stale_padding(config_, index, static_cast<int64_t>(record.chunks.size()), &in);
  return in;
}

std::vector<StepInput> ScenarioState::prefill_inputs(const ChunkRecord& chunk, int64_t index) const {
  // Any split gives the same caches: compressed rows by SPEC 7.1, and the ring's rows hold the
  // last R positions whatever the chunks (a chunk writes its last R rows, none past the prefix).
  const int64_t piece = std::max<int64_t>(1, config_.max_num_batched_tokens);
  std::vector<StepInput> inputs;
  for (int64_t start = 0; start < chunk.start; start += piece) {
    ChunkRecord c = chunk;
    c.prefilled = false;
    c.negative_common_slots.clear();
    c.start = start;
    c.length = std::min(piece, chunk.start - start);
    c.accepted = c.length;
    StepRecord step;
    step.chunks = {c};
    inputs.push_back(build_input(step, index));
  }
  return inputs;
}

AlternativeRowCounts ScenarioState::alternative_rows(const StepRecord& record, int64_t index) const {
  if (alternative_rows_.first != index) build_input(record, index);
  return alternative_rows_.second;
}

std::vector<Origin> ScenarioState::row_origins(const StepRecord& record, int64_t index) const {
  std::vector<Origin> origins;
  for (const ChunkRecord& chunk : record.chunks) {
    const RequestLedger ledger = ledger_for(chunk);
    for (int64_t o = 0; o < chunk.length; ++o)
      origins.push_back(ledger.row_origin(chunk.start + o, index, o < chunk.accepted));
  }
  const auto m = static_cast<int64_t>(origins.size());
  for (int64_t t = m; t < m + record.padding_tokens; ++t) origins.push_back(Origin{OriginKind::kPadding, index, t, 0});
  return origins;
}

void ScenarioState::apply(const StepRecord& record, int64_t index) {
  const int64_t c = config_.compress_ratio;
  const int64_t s = config_.storage_block_size();
  for (const ChunkRecord& chunk : record.chunks) {
    check_chunk(chunk, index);
    RequestLedger ledger = ledger_for(chunk);
    ledger.blocks = chunk.blocks;
    ledger.ring_block = chunk.ring_block;
    for (int64_t o = 0; o < chunk.accepted; ++o) {
      const int64_t p = chunk.start + o;
      if ((p + 1) % c != 0) continue;
      const int64_t g = p / c;
      if (ledger.exempt.size() <= static_cast<size_t>(g)) ledger.exempt.resize(static_cast<size_t>(g) + 1, false);
      const bool negative = std::find(chunk.negative_common_slots.begin(), chunk.negative_common_slots.end(), o) !=
                            chunk.negative_common_slots.end();
      const int64_t logical = g / s;
      const bool no_block = logical >= static_cast<int64_t>(chunk.blocks.size()) || chunk.blocks[logical] < 0 ||
                            chunk.blocks[logical] >= config_.num_compressed_blocks;
      ledger.exempt[g] = negative || no_block;
    }
    ledger.committed = chunk.start + chunk.accepted;
    requests_[chunk.request] = std::move(ledger);
  }
  for (int64_t id : record.finished) requests_.erase(id);
  for (int64_t id : record.preempted) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    it->second.committed = 0;
    it->second.blocks.clear();
    it->second.ring_block = -1;
    it->second.exempt.clear();
  }
}

CommittedStream ScenarioState::committed_stream(const RequestLedger& ledger) const {
  CommittedStream s;
  s.request = ledger.request;
  s.committed_length = ledger.committed;
  s.blocks = ledger.blocks;
  s.ring_block = ledger.ring_block;
  const RequestLedger* l = &ledger;
  const ScenarioConfig* config = &config_;
  const RowContent* content = &content_;
  s.key = [l, content](int64_t position, Bf16* out) { content->key(l->committed_origin(position), out); };
  s.position = [l, config](int64_t position) { return model_position(*config, l->committed_origin(position)); };
  s.exempt = [l](int64_t group) { return static_cast<size_t>(group) < l->exempt.size() && l->exempt[group]; };
  s.describe = [config](const Bf16* key) {
    const auto origin = decode_key_origin(key, config->head_dim);
    return origin ? "the key of " + to_string(*origin) : std::string("a key of no known origin");
  };
  return s;
}

}  // namespace qsa::traces
