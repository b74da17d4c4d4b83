#include "qsa/model_oracle.hpp"

#include <cstring>
#include <sstream>

namespace qsa {
namespace {

std::string hex(uint32_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

std::vector<uint8_t> to_store(const std::vector<Bf16>& row, StoreDtype dtype) {
  std::vector<uint8_t> out;
  out.reserve(row.size() * 2);
  for (Bf16 v : row) {
    if (dtype == StoreDtype::kBf16) {
      out.push_back(static_cast<uint8_t>(v & 0xFF));
      out.push_back(static_cast<uint8_t>(v >> 8));
    } else {
      out.push_back(e4m3_from_bf16(v));
    }
  }
  return out;
}

// "element 3: expected 0x3f80, actual 0x3f81; 12 of 32 elements differ"
std::string describe_difference(const uint8_t* expected, const uint8_t* actual, int64_t elements, int bytes) {
  int64_t first = -1;
  int64_t count = 0;
  for (int64_t e = 0; e < elements; ++e) {
    if (std::memcmp(expected + e * bytes, actual + e * bytes, static_cast<size_t>(bytes)) != 0) {
      if (first < 0) first = e;
      ++count;
    }
  }
  if (first < 0) return "no difference";
  auto value = [&](const uint8_t* p) { return bytes == 1 ? uint32_t{p[0]} : uint32_t{p[0]} | uint32_t{p[1]} << 8; };
  return "element " + std::to_string(first) + ": expected " + hex(value(expected + first * bytes)) + ", actual " +
         hex(value(actual + first * bytes)) + "; " + std::to_string(count) + " of " + std::to_string(elements) +
         " elements differ";
}

}  // namespace

bool ModelOracle::accepts(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes) const {
  if (row_accepts_) return row_accepts_(expected, actual, width, element_bytes);
  return std::memcmp(expected, actual, static_cast<size_t>(width * element_bytes)) == 0;
}

std::vector<uint8_t> ModelOracle::expected_group_row(const CommittedStream& stream, int64_t group) const {
  const int64_t c = config_.compress_ratio;
  const int64_t d = config_.head_dim;
  std::vector<std::vector<Bf16>> members(static_cast<size_t>(c), std::vector<Bf16>(static_cast<size_t>(d)));
  std::vector<const Bf16*> pointers;
  for (int64_t i = 0; i < c; ++i) {
    stream.key(group * c + i, members[i].data());
    pointers.push_back(members[i].data());
  }
  const std::array<int64_t, 3> position =
      config_.ring_positions ? stream.position(group * c) : std::array<int64_t, 3>{group * c, group * c, group * c};
  std::vector<Bf16> mean(static_cast<size_t>(d)), row(static_cast<size_t>(d));
  pool_group(pointers.data(), c, d, mean.data());
  rms_norm(mean.data(), config_.w_k.data(), d, config_.eps, row.data());
  rope_neox(row.data(), d, config_.rotary_dim, position, config_.mrope_sections, config_.cos_sin_data());
  return to_store(row, config_.store_dtype);
}

std::optional<Violation> ModelOracle::check_groups(const CommittedStream& stream, const CacheBuffer& compressed,
                                                   int64_t first_group) const {
  const int64_t c = config_.compress_ratio;
  const int64_t s = config_.storage_block_size;
  const CacheLayout& layout = compressed.layout;
  for (int64_t g = std::max<int64_t>(0, first_group); g < stream.committed_length / c; ++g) {
    const int64_t logical = g / s;
    if (logical >= static_cast<int64_t>(stream.blocks.size()) || stream.blocks[logical] < 0) continue;
    const int64_t slot = int64_t{stream.blocks[logical]} * s + g % s;
    if (layout.past_the_cache(slot) || (stream.exempt && stream.exempt(g))) continue;
    const std::vector<uint8_t> expected = expected_group_row(stream, g);
    const uint8_t* actual = compressed.bytes.data() + layout.byte_offset(slot, 0);
    if (!accepts(expected.data(), actual, config_.head_dim, layout.element_bytes)) {
      return Violation{"7.1-compressed-row", -1, stream.request,
                       "compressed row of group " + std::to_string(g) + " (positions " + std::to_string(g * c) + ".." +
                           std::to_string(g * c + c - 1) + ", block " + std::to_string(stream.blocks[logical]) +
                           " row " + std::to_string(g % s) + ") is not SPEC 6 of its committed keys: " +
                           describe_difference(expected.data(), actual, config_.head_dim, layout.element_bytes)};
    }
  }
  return std::nullopt;
}

std::optional<Violation> ModelOracle::check_open_group(const CommittedStream& stream, const CacheBuffer& ring) const {
  const int64_t c = config_.compress_ratio;
  const int64_t r = config_.ring_capacity;
  const int64_t d = config_.head_dim;
  const int64_t l = stream.committed_length;
  if (stream.ring_block < 0 || stream.ring_block >= ring.layout.num_blocks) return std::nullopt;
  std::vector<Bf16> expected(static_cast<size_t>(d)), actual(static_cast<size_t>(d));
  for (int64_t m = c * (l / c); m < l; ++m) {
    const int64_t slot = int64_t{stream.ring_block} * r + m % r;
    stream.key(m, expected.data());
    std::memcpy(actual.data(), ring.bytes.data() + ring.layout.byte_offset(slot, 0), actual.size() * 2);
    std::string problem;
    if (expected != actual) {
      problem = "holds " + (stream.describe ? stream.describe(actual.data()) : std::string("another key")) + ": " +
                describe_difference(reinterpret_cast<const uint8_t*>(expected.data()),
                                    reinterpret_cast<const uint8_t*>(actual.data()), d, 2);
    } else if (config_.ring_positions) {
      std::array<int64_t, 3> tail{};
      std::memcpy(tail.data(), ring.bytes.data() + ring.layout.byte_offset(slot, ring_position_offset(d)), sizeof tail);
      const std::array<int64_t, 3> want = stream.position(m);
      if (tail != want)
        problem = "has position tail (" + std::to_string(tail[0]) + ", " + std::to_string(tail[1]) + ", " +
                  std::to_string(tail[2]) + "), expected (" + std::to_string(want[0]) + ", " + std::to_string(want[1]) +
                  ", " + std::to_string(want[2]) + ")";
    }
    if (!problem.empty())
      return Violation{"7.2-ring-open-group", -1, stream.request,
                       "ring block " + std::to_string(stream.ring_block) + " row " + std::to_string(m % r) +
                           " should hold committed position " + std::to_string(m) + " (L = " + std::to_string(l) +
                           ") but " + problem};
  }
  return std::nullopt;
}

std::optional<Violation> ModelOracle::check_queries(const StepInput& in, const std::vector<uint8_t>& q_out) const {
  const int64_t d = config_.head_dim;
  const int bytes = element_bytes(config_.store_dtype);
  const int64_t heads = config_.num_heads;
  if (static_cast<int64_t>(q_out.size()) != in.num_tokens() * heads * d * bytes)
    return Violation{"q-out-size", -1, -1, "q_out has " + std::to_string(q_out.size()) + " bytes"};
  std::vector<Bf16> row(static_cast<size_t>(d));
  for (int64_t t = 0; t < in.num_tokens(); ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t offset = (t * heads + h) * d;
      rms_norm(in.queries.data() + offset, config_.w_q.data(), d, config_.eps, row.data());
      rope_neox(row.data(), d, config_.rotary_dim, in.row_positions(t), config_.mrope_sections, config_.cos_sin_data());
      const std::vector<uint8_t> expected = to_store(row, config_.store_dtype);
      if (!accepts(expected.data(), q_out.data() + offset * bytes, d, bytes))
        return Violation{"q-path", t, -1,
                         "q_out of row " + std::to_string(t) + " head " + std::to_string(h) + ": " +
                             describe_difference(expected.data(), q_out.data() + offset * bytes, d, bytes)};
    }
  }
  return std::nullopt;
}

}  // namespace qsa
