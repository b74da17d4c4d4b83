// CacheBytes: a large store costs the pages written, reads zero elsewhere, and its copies and
// comparisons see every written byte while reading only the written pages.

#include <gtest/gtest.h>

#include "qsa/cache_bytes.hpp"

namespace qsa {
namespace {

size_t listed_bytes(const std::vector<ByteRange>& ranges) {
  size_t n = 0;
  for (const ByteRange& r : ranges) n += r.second - r.first;
  return n;
}

bool listed(const std::vector<ByteRange>& ranges, size_t at) {
  for (const ByteRange& r : ranges)
    if (r.first <= at && at < r.second) return true;
  return false;
}

constexpr size_t kGiB = size_t{1} << 30;

TEST(CacheBytes, ALargeStoreListsOnlyThePagesWritten) {
  CacheBytes bytes(kGiB);
  ASSERT_TRUE(bytes.mapped());
  EXPECT_EQ(bytes.size(), kGiB);
  EXPECT_TRUE(bytes.maybe_nonzero().empty());
  const size_t far = kGiB - 12345;
  bytes[100] = 1;
  bytes[far] = 2;
  const std::vector<ByteRange> written = bytes.maybe_nonzero();
  EXPECT_TRUE(listed(written, 100));
  EXPECT_TRUE(listed(written, far));
  EXPECT_LE(listed_bytes(written), size_t{2} * 65536);  // two pages (up to 64 KiB pages)
  EXPECT_EQ(bytes[101], 0);  // untouched bytes read zero
}

TEST(CacheBytes, CopiesAreEqualAndAsSparse) {
  CacheBytes bytes(kGiB);
  bytes[7] = 0xA5;
  bytes[kGiB / 2] = 0x5A;
  const CacheBytes copy(bytes);
  EXPECT_EQ(copy, bytes);
  EXPECT_EQ(copy[7], 0xA5);
  EXPECT_EQ(copy[kGiB / 2], 0x5A);
  EXPECT_LE(listed_bytes(copy.maybe_nonzero()), size_t{2} * 65536);
  CacheBytes other;
  other = bytes;
  other[kGiB - 1] = 1;  // one byte in a page neither has written
  EXPECT_NE(other, bytes);
  EXPECT_NE(bytes, other);
}

TEST(CacheBytes, ASmallStoreIsHeapMemoryListedWhole) {
  CacheBytes bytes(4096, 0x5A);
  EXPECT_FALSE(bytes.mapped());
  EXPECT_EQ(bytes[4095], 0x5A);
  ASSERT_EQ(bytes.maybe_nonzero().size(), 1u);
  EXPECT_EQ(bytes.maybe_nonzero()[0], ByteRange(0, 4096));
  CacheBytes copy = bytes;
  EXPECT_EQ(copy, bytes);
  copy.pop_back();
  EXPECT_NE(copy, bytes);
}

TEST(CacheBytes, ResizeKeepsTheBytesAndReadsZeroBeyond) {
  CacheBytes bytes(16, 3);
  bytes.resize(CacheBytes::kMappedFrom + 16);
  EXPECT_TRUE(bytes.mapped());
  EXPECT_EQ(bytes[15], 3);
  EXPECT_EQ(bytes[16], 0);
  bytes.resize(8);
  EXPECT_EQ(bytes.size(), 8u);
  EXPECT_EQ(bytes[7], 3);
}

TEST(CacheBytes, UnionMergesOverlappingRanges) {
  const std::vector<ByteRange> u = union_of({{0, 10}, {20, 30}}, {{5, 12}, {30, 40}, {50, 60}});
  EXPECT_EQ(u, (std::vector<ByteRange>{{0, 12}, {20, 40}, {50, 60}}));
}

}  // namespace
}  // namespace qsa
