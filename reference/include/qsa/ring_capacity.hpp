#pragma once
// The ring capacity rule of SPEC 3.

#include <cstdint>

#include "qsa/host_device.hpp"
#include "qsa/status.hpp"

namespace qsa {

enum class RingRule {
  kSeed,   // R = C·ceil((C + drafts)/C); B mod R must be 0 (the default)
  kWiden,  // the smallest multiple of C that is >= the seed R and divides B (an upstream branch)
};

const char* to_string(RingRule rule);

/// The seed rule's R = C·ceil((C + drafts)/C) (SPEC 3), unchecked: the one place the formula is
/// written (ring_capacity() checks the operands and B). Example: C = 4, 3 drafts -> 8.
QSA_HOST_AND_DEVICE constexpr int64_t seed_ring_capacity(int64_t compress_ratio, int64_t num_speculative_tokens) {
  return compress_ratio * ((compress_ratio + num_speculative_tokens + compress_ratio - 1) / compress_ratio);
}

/// Ring capacity for compress ratio C, `num_speculative_tokens` drafts and attention block size B.
///
/// Preconditions (checked, kInvalidInput): 1 <= C <= 1024, 0 <= drafts <= 2^20, 1 <= B <= 2^31-1.
/// Errors: seed rule with B mod R != 0 -> field "block_size", rule "not-divisible"; widen rule with
/// no multiple of C in [R, B] dividing B -> field "block_size", rule "no-capacity". Both messages
/// name R and B. Example: C=4, 3 drafts, B=48 -> 8; C=4, 5 drafts, B=40, kWiden -> 20.
[[nodiscard]] Status ring_capacity(int64_t compress_ratio, int64_t num_speculative_tokens, int64_t block_size,
                                   RingRule rule, int64_t* capacity, Error* error);

}  // namespace qsa
