#include "qsa/traces/step_digest.hpp"

#include <algorithm>
#include <cstring>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {
namespace {

size_t output_rank(const std::string& name) {
  for (size_t i = 0; i < kDigestOutputs.size(); ++i)
    if (name == kDigestOutputs[i]) return i;
  return kDigestOutputs.size();
}

}  // namespace

bool is_digest_output(const std::string& name) { return output_rank(name) < kDigestOutputs.size(); }

std::optional<uint64_t> StepDigest::find(const std::string& name) const {
  for (const auto& [n, h] : outputs)
    if (n == name) return h;
  return std::nullopt;
}

void StepDigest::set(const std::string& name, uint64_t hash) {
  for (auto& entry : outputs) {
    if (entry.first == name) {
      entry.second = hash;
      return;
    }
  }
  outputs.emplace_back(name, hash);
  std::stable_sort(outputs.begin(), outputs.end(),
                   [](const auto& a, const auto& b) { return output_rank(a.first) < output_rank(b.first); });
}

std::string digest_hex(uint64_t hash) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<size_t>(i)] = digits[hash & 0xF];
  return out;
}

std::optional<uint64_t> parse_digest_hex(const std::string& text) {
  if (text.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char ch : text) {
    uint64_t d = 0;
    if (ch >= '0' && ch <= '9')
      d = static_cast<uint64_t>(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      d = static_cast<uint64_t>(ch - 'a' + 10);
    else
      return std::nullopt;
    v = v << 4 | d;
  }
  return v;
}

uint64_t digest_bytes(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = kDigestSeed ^ static_cast<uint64_t>(size);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t w = 0;
    for (size_t k = 0; k < 8 && i + k < size; ++k) w |= static_cast<uint64_t>(p[i + k]) << (8 * k);
    h = Rng::mix(h ^ w);
  }
  return Rng::mix(h ^ static_cast<uint64_t>(size));
}

void DigestWriter::bytes(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  buffer_.insert(buffer_.end(), p, p + size);
}

void DigestWriter::i32(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int k = 0; k < 4; ++k) buffer_.push_back(static_cast<uint8_t>(u >> (8 * k)));
}

void DigestWriter::i64(int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int k = 0; k < 8; ++k) buffer_.push_back(static_cast<uint8_t>(u >> (8 * k)));
}

uint64_t digest_metadata(const MetadataOutput& m) {
  DigestWriter w;
  w.values(m.token_to_req);
  w.values(m.logical_positions);
  w.values(m.visible_blocks);
  w.values(m.slot_mapping);
  w.values(m.k_work_metadata);
  for (int64_t v : {m.split.num_decodes, m.split.num_decode_tokens, m.split.num_prefills, m.split.num_prefill_tokens,
                    m.split.max_query_len, m.split.decode_query_len, m.split.max_seq_len})
    w.i64(v);
  return w.finish();
}

uint64_t digest_cache_rows(const CacheBuffer& cache, const std::vector<int64_t>& slots) {
  DigestWriter w;
  const CacheLayout& l = cache.layout;
  const auto row_bytes = static_cast<size_t>(l.width * l.element_bytes);
  for (int64_t slot : slots) {
    if (slot < 0 || l.past_the_cache(slot)) continue;
    const auto offset = static_cast<size_t>(l.byte_offset(slot, 0));
    if (offset + row_bytes > cache.bytes.size()) continue;  // a layout that does not hold its rows: nothing to hash
    w.i64(slot);
    w.bytes(cache.bytes.data() + offset, row_bytes);
  }
  return w.finish();
}

uint64_t digest_q_out(const std::vector<uint8_t>& q_out) { return digest_bytes(q_out.data(), q_out.size()); }

uint64_t digest_step_status(StepStatus status) {
  const char* name = to_string(status);
  return digest_bytes(name, std::strlen(name));
}

std::optional<std::string> compare_digests(const StepDigest& expected, const StepDigest& actual) {
  for (const char* name : kDigestOutputs) {
    const auto want = expected.find(name);
    const auto got = actual.find(name);
    if (!want || !got || *want == *got) continue;
    return std::string(name) + ": expected " + digest_hex(*want) + ", actual " + digest_hex(*got);
  }
  return std::nullopt;
}

}  // namespace qsa::traces
