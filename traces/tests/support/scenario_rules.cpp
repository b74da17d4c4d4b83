#include "support/scenario_rules.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "qsa/traces/cuda_graph_padding.hpp"

namespace qsa::testing {

namespace {

using traces::ChunkRecord;
using traces::Scenario;
using traces::StepRecord;

struct LiveRequest {
  int64_t family = -1;
  int64_t prompt_len = 0;
  int64_t family_len = 0;
  int64_t committed = 0;
  std::vector<int32_t> blocks;
  int32_t ring_block = -1;
  bool started = false;  // scheduled since its last (re)start
  bool ever_started = false;
  bool blocks_unknown = false;  // after a step-edges row with a missing block: learnt again from the next chunk
};

class Checker {
 public:
  Checker(const Scenario& s, bool uniform_padded, size_t limit, EdgeShapes shapes)
      : s_(s),
        c_(s.config),
        uniform_padded_(uniform_padded),
        limit_(limit),
        shapes_(shapes),
        capture_sizes_(traces::cuda_graph_capture_sizes(s.config.max_num_batched_tokens)) {}

  std::vector<std::string> run() {
    check_config();
    for (size_t i = 0; i < s_.steps.size() && out_.size() < limit_; ++i)
      check_step(static_cast<int64_t>(i), s_.steps[i]);
    return out_;
  }

 private:
  void fail(int64_t step, int64_t request, const std::string& rule) {
    if (out_.size() >= limit_) return;
    std::ostringstream os;
    os << "step " << step << (request >= 0 ? " request " + std::to_string(request) : std::string()) << ": " << rule;
    out_.push_back(os.str());
  }

  void check_config() {
    int64_t r = 0;
    Error error;
    if (ring_capacity(c_.compress_ratio, c_.num_speculative_tokens, c_.block_size, c_.ring_rule, &r, &error) !=
            Status::kOk ||
        r != c_.ring_capacity)
      fail(-1, -1, "ring_capacity is not SPEC 3's R");
    if (c_.block_size % c_.compress_ratio != 0) fail(-1, -1, "B is not a multiple of C");
  }

  // Holders of each block id among live requests.
  std::set<int64_t>& holders(int32_t block) { return holders_[block]; }

  void release(int64_t id) {
    LiveRequest& r = live_[id];
    for (int32_t b : r.blocks) holders(b).erase(id);
    r.blocks.clear();
    ring_owner_.erase(r.ring_block);
    r.ring_block = -1;
    r.committed = 0;
    r.started = false;
  }

  void check_step(int64_t step, const StepRecord& st) {
    const int64_t t = 1 + c_.num_speculative_tokens;
    if (st.chunks.empty()) fail(step, -1, "a step without chunks");
    if (st.reorder_batch_threshold != t) fail(step, -1, "reorder_batch_threshold is not 1 + drafts");
    if (static_cast<int64_t>(st.chunks.size()) + st.padded_requests > c_.max_num_seqs)
      fail(step, -1, "more requests than max_num_seqs");
    if (st.padding_tokens < 0 || st.padded_requests < 0) fail(step, -1, "negative padding");
    int64_t rows = 0;
    bool long_seen = false;
    std::set<int32_t> ring_blocks;
    std::set<int64_t> in_step;
    for (const ChunkRecord& c : st.chunks) {
      const bool first = &c == &st.chunks.front();
      if (c.length == 0 && !first && !shapes_.zero_length_anywhere)
        fail(step, c.request, "a zero-length chunk not first");
      rows += c.length;
      if (c.length > t)
        long_seen = !(first && shapes_.prefill_first);
      else if (long_seen)
        fail(step, c.request, "a chunk of at most T rows after a longer one (decodes first)");
      if (!in_step.insert(c.request).second) fail(step, c.request, "scheduled twice in one step");
      if ((c.ring_block != -1 || !shapes_.missing_ring) && !ring_blocks.insert(c.ring_block).second)
        fail(step, c.request, "ring block shared with another request of the step");
      const bool last_step = std::count(st.finished.begin(), st.finished.end(), c.request) > 0 ||
                             std::count(st.preempted.begin(), st.preempted.end(), c.request) > 0;
      check_chunk(step, c, last_step);
    }
    if (rows > c_.max_num_batched_tokens) fail(step, -1, "more rows than max_num_batched_tokens");
    const int64_t n = rows + st.padding_tokens;
    if (n > c_.max_num_batched_tokens) fail(step, -1, "padded step beyond max_num_batched_tokens");
    if (uniform_padded_ && traces::is_uniform_decode(st) &&
        !std::binary_search(capture_sizes_.begin(), capture_sizes_.end(), n))
      fail(step, -1, "uniform decode step with N = " + std::to_string(n) + ", not a capture size");
    if (st.padded_requests > 0 && !traces::is_uniform_decode(st)) fail(step, -1, "padded requests on a mixed step");
    if (st.padded_requests > 0 && st.padded_requests * st.chunks.front().length > st.padding_tokens)
      fail(step, -1, "padded requests without their padding rows");
    last_id_before_step_ = last_id_;
    for (const ChunkRecord& c : st.chunks) {  // verification: the committed length moves on
      LiveRequest& r = live_[c.request];
      const int64_t before = r.committed;
      r.committed = c.start + c.accepted;
      note_full_blocks(r, before);
    }
    for (int64_t id : st.finished) {
      if (!live_.count(id) || finished_.count(id)) fail(step, id, "finished but not live");
      release(id);
      finished_.insert(id);
    }
    for (int64_t id : st.preempted) {
      if (!live_.count(id) || finished_.count(id)) fail(step, id, "preempted but not live");
      if (std::count(st.finished.begin(), st.finished.end(), id)) fail(step, id, "both finished and preempted");
      release(id);
    }
  }

  void check_chunk(int64_t step, const ChunkRecord& c, bool last_step) {
    const int64_t b = c_.block_size;
    if (finished_.count(c.request)) fail(step, c.request, "scheduled after it finished");
    const bool is_new = !live_.count(c.request);
    if (is_new) {
      // Admission is FIFO by id; inside a step the batch order (decodes first) may differ.
      if (c.request <= last_id_before_step_) fail(step, c.request, "new request id not above those of earlier steps");
      last_id_ = std::max(last_id_, c.request);
    }
    LiveRequest& r = live_[c.request];
    if (is_new) {
      r.family = c.family;
      r.prompt_len = c.prompt_len;
      r.family_len = c.family_len;
    } else if (r.family != c.family || r.prompt_len != c.prompt_len || r.family_len != c.family_len) {
      fail(step, c.request, "family or prompt_len changed");
    }
    if (c.length == 0) {  // a zero-length request first in the batch (the edges workload): it only waits
      if (is_new || !r.started) fail(step, c.request, "a zero-length chunk for a request not running");
      if (c.start != r.committed || c.accepted != 0 || (c.blocks != r.blocks && !r.blocks_unknown) ||
          c.ring_block != r.ring_block)
        fail(step, c.request, "a zero-length chunk that changes its request");
      return;
    }
    if (c.length < 1) fail(step, c.request, "empty chunk");
    if (c.accepted < 1 || c.accepted > c.length) fail(step, c.request, "accepted outside [1, length]");
    if (c.accepted < c.length && (c.length > 1 + c_.num_speculative_tokens || c.start < c.prompt_len))
      fail(step, c.request, "rows rejected from a chunk that is not a decode");
    if (c.length > c_.max_num_batched_tokens) fail(step, c.request, "chunk longer than the budget");
    // Text positions are the logical ones; MRoPE ones reach up to 64 past them.
    if (c.start + c.length > c_.max_position - (c_.mrope ? 64 : 0))
      fail(step, c.request, "positions reach past the RoPE table");
    // A missing ring block only on the request's last step (-1, or a far id past the ring).
    const bool ring_missing =
        shapes_.missing_ring && last_step && (c.ring_block == -1 || c.ring_block >= traces::kFarBlockFloor);
    if (!ring_missing && (c.ring_block < 0 || c.ring_block >= c_.num_ring_blocks))
      fail(step, c.request, "ring block outside the ring cache");
    for (size_t i = 0; i < c.negative_common_slots.size(); ++i) {
      const int64_t o = c.negative_common_slots[i];
      if (o < 0 || o >= c.length || (i > 0 && o <= c.negative_common_slots[i - 1]))
        fail(step, c.request, "negative common slot offsets not increasing inside the chunk");
      else if (c.start + o < c.prompt_len)
        fail(step, c.request, "negative common slot on a prompt position");
      else if (c.family >= 0 && c.start + o < c.family_len)
        fail(step, c.request, "negative common slot on a position of family content");
    }

    // Where the chunk starts: the committed length, a pre-filled context (any (re)start), or a
    // prefix hit on any (re)start.
    if (c.prefilled && (r.started || c.start < 1)) fail(step, c.request, "prefilled chunk on a running request");
    const bool hit = !c.prefilled && !r.started && c.start > 0;
    if (!hit && !c.prefilled && c.start != r.committed)
      fail(step, c.request, "chunk does not start at the committed length");
    if (hit) check_prefix_hit(step, c);
    if (r.started && r.ring_block != c.ring_block && !ring_missing)
      fail(step, c.request, "ring block changed while running");
    if (!r.started && !ring_missing) {
      if (ring_owner_.count(c.ring_block)) fail(step, c.request, "ring block held by another live request");
      ring_owner_[c.ring_block] = c.request;
    }

    // A row with its last closing group's block made -1 or its column dropped, for this step only:
    // the request's blocks are those of its other steps.
    const bool covered = static_cast<int64_t>(c.blocks.size()) > (c.start + c.length - 1) / b;
    if (shapes_.missing_blocks && (!covered || std::count(c.blocks.begin(), c.blocks.end(), -1) > 0)) {
      for (int32_t block : r.blocks) holders(block).erase(c.request);
      r.blocks.clear();
      r.blocks_unknown = true;
      if (!ring_missing) r.ring_block = c.ring_block;
      r.started = true;
      r.ever_started = true;
      return;
    }
    // Blocks: cover the chunk, inside the cache, append-only while live, written ones unshared.
    if (!covered) fail(step, c.request, "blocks do not cover the chunk");
    if (c.blocks.size() < r.blocks.size() || !std::equal(r.blocks.begin(), r.blocks.end(), c.blocks.begin()))
      fail(step, c.request, "block table changed other than by appending");
    std::set<int32_t> own(c.blocks.begin(), c.blocks.end());
    if (own.size() != c.blocks.size()) fail(step, c.request, "a block twice in one table");
    for (size_t i = r.blocks.size(); i < c.blocks.size(); ++i) {
      const int32_t block = c.blocks[i];
      // Past the cache only as the edges workload's far ids, near INT32_MAX (SPEC 5 skips their groups).
      if (block < 0 || (block >= c_.num_compressed_blocks && block < traces::kFarBlockFloor)) {
        fail(step, c.request, "block id outside the compressed cache");
        continue;
      }
      const bool shared_by_hit = hit && static_cast<int64_t>(i) < c.start / b;
      if (!shared_by_hit && !holders(block).empty())
        fail(step, c.request, "new block " + std::to_string(block) + " still held by another request");
      if (!shared_by_hit) content_.erase(block);  // a new owner rewrites it: an evicted block
      holders(block).insert(c.request);
    }
    for (int64_t i = c.start / b; i <= (c.start + c.length - 1) / b && i < static_cast<int64_t>(c.blocks.size()); ++i)
      if (holders(c.blocks[static_cast<size_t>(i)]).size() != 1) fail(step, c.request, "writes a shared block");
    r.blocks = c.blocks;
    r.blocks_unknown = false;
    if (!ring_missing) r.ring_block = c.ring_block;
    r.started = true;
    r.ever_started = true;
  }

  void check_prefix_hit(int64_t step, const ChunkRecord& c) {
    const int64_t b = c_.block_size;
    if (c.family < 0) fail(step, c.request, "prefix hit without a family");
    if (c.start % b != 0) fail(step, c.request, "prefix hit not at a multiple of B");
    if (c.start >= c.prompt_len) fail(step, c.request, "prefix hit covers the whole prompt");
    for (int64_t i = 0; i < c.start / b && i < static_cast<int64_t>(c.blocks.size()); ++i) {
      const int32_t block = c.blocks[static_cast<size_t>(i)];
      // Written whole, as logical block i of the family's content, by a request live or gone, and
      // not handed to a new owner since.
      const auto it = content_.find(block);
      if (it == content_.end() || it->second != std::make_pair(c.family, i))
        fail(step, c.request,
             "shared block " + std::to_string(block) + " does not hold block " + std::to_string(i) +
                 " of the family's content");
    }
  }

  // After verification: the blocks the commit filled, where they hold family content.
  void note_full_blocks(const LiveRequest& r, int64_t before) {
    if (r.family < 0 || r.blocks_unknown) return;
    const int64_t b = c_.block_size;
    const int64_t content = std::max(r.prompt_len, r.family_len);
    for (int64_t i = before / b; i < r.committed / b && (i + 1) * b <= content; ++i)
      if (i < static_cast<int64_t>(r.blocks.size())) content_[r.blocks[static_cast<size_t>(i)]] = {r.family, i};
  }

  const Scenario& s_;
  const traces::ScenarioConfig& c_;
  bool uniform_padded_;
  size_t limit_;
  EdgeShapes shapes_;
  std::vector<int64_t> capture_sizes_;
  std::vector<std::string> out_;
  std::map<int64_t, LiveRequest> live_;
  std::set<int64_t> finished_;
  std::map<int32_t, std::set<int64_t>> holders_;
  std::map<int32_t, int64_t> ring_owner_;
  std::map<int32_t, std::pair<int64_t, int64_t>> content_;  // block -> (family, logical block) it holds whole
  int64_t last_id_ = -1;
  int64_t last_id_before_step_ = -1;
};

}  // namespace

EdgeShapes edge_shapes_of(const traces::Workload& resolved) {
  const traces::Workload& w = resolved;
  return EdgeShapes{w.zero_length_inside_per_mille > 0 || w.all_padding_per_mille > 0, w.prefill_first_per_mille > 0,
                    w.missing_compressed_per_mille > 0, w.missing_ring_per_mille > 0};
}

std::vector<std::string> scenario_rule_violations(const traces::Scenario& scenario, bool uniform_steps_padded,
                                                  size_t limit, EdgeShapes shapes) {
  return Checker(scenario, uniform_steps_padded, limit, shapes).run();
}

}  // namespace qsa::testing
