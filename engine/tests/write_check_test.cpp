// SPEC 7.5 through the check engine: a step may change only the rows its metadata names. The
// caches here have padding between rows and between blocks, and are large enough that the
// engine's chunked skip of equal bytes (512 at a time) is crossed.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "qsa/engine/check_engine.hpp"

namespace qsa::engine {
namespace {

// 4 blocks of 8 rows of 32 bf16 elements; rows 40 elements apart, blocks 8 · 40 + 16 apart.
CacheBuffer padded_cache() {
  CacheBuffer c;
  c.layout.num_blocks = 4;
  c.layout.rows = 8;
  c.layout.width = 32;
  c.layout.row_stride = 40;
  c.layout.block_stride = 8 * 40 + 16;
  c.layout.element_bytes = 2;
  c.bytes.assign(static_cast<size_t>(c.layout.size_bytes()), 0x5A);
  return c;
}

struct WriteCase {
  StepCaches before;
  StepRun after;
  MetadataOutput compressed;  // names slots 3 and 17
  MetadataOutput ring;        // names nothing

  WriteCase() {
    before.compressed = padded_cache();
    before.ring = padded_cache();
    after.caches = before;
    compressed.slot_mapping = {3, -1, 17};
  }
  void change(int64_t slot, int64_t element) {
    after.caches.compressed.bytes[static_cast<size_t>(before.compressed.layout.byte_offset(slot, element))] ^= 0xFF;
  }
  std::optional<Finding> judge() const {
    StepChecks checks;
    checks.compressed_metadata = &compressed;
    checks.ring_metadata = &ring;
    return judge_step_update(StepInput{}, before, after, checks);
  }
};

TEST(WriteCheck, EveryElementOfANamedRowMayChange) {
  WriteCase c;
  for (int64_t e = 0; e < 32; ++e) {
    c.change(3, e);
    c.change(17, e);
  }
  EXPECT_FALSE(c.judge().has_value()) << c.judge()->to_string();
}

TEST(WriteCheck, AnUnnamedRowFarIntoTheCacheIsNamed) {
  WriteCase c;
  c.change(17, 0);
  c.change(30, 31);  // block 3, row 6: thousands of bytes past the first change
  const auto f = c.judge();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->key(), "7.5-writes cache.compressed[30]");
  EXPECT_NE(f->message.find("block 3 row 6 (slot 30, element 31)"), std::string::npos) << f->message;
}

TEST(WriteCheck, TheRowAfterANamedRowIsStillChecked) {
  WriteCase c;
  c.change(17, 31);
  c.change(18, 0);
  const auto f = c.judge();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->key(), "7.5-writes cache.compressed[18]");
}

TEST(WriteCheck, PaddingOfANamedRowMustNotChange) {
  WriteCase c;
  c.change(3, 0);
  c.change(3, 35);  // between row 3's last element and row 4
  const auto f = c.judge();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->key(), "7.5-writes cache.compressed[3]");
  EXPECT_NE(f->message.find("element 35"), std::string::npos) << f->message;
}

TEST(WriteCheck, PaddingBetweenBlocksMustNotChange) {
  WriteCase c;
  const int64_t after_block_0 = 8 * 40 * 2 + 4;  // a byte of block 0's tail padding
  c.after.caches.compressed.bytes[static_cast<size_t>(after_block_0)] ^= 0x01;
  const auto f = c.judge();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->check, Check::kWrites);
  EXPECT_NE(f->message.find("block 0 row 8"), std::string::npos) << f->message;
}

TEST(WriteCheck, TheRingIsCheckedAgainstItsOwnMetadata) {
  WriteCase c;
  c.after.caches.ring.bytes.back() ^= 0x01;  // the ring's metadata names no slot
  const auto f = c.judge();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->field, "cache.ring");
}

}  // namespace
}  // namespace qsa::engine
