#include "cache_mirror.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace qsa::cuda {
namespace {

constexpr size_t kHeader = 8;  // the int32 count of changed chunks, padded for the int64 indices

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Appends [at, at + n) to `writes`, joined to the last range when adjacent.
void add_write(std::vector<ByteRange>& writes, size_t at, size_t n) {
  if (!writes.empty() && writes.back().second == at)
    writes.back().second = at + n;
  else
    writes.emplace_back(at, at + n);
}

}  // namespace

Status CacheMirror::upload(const CacheBuffer& cache, size_t slack, cudaStream_t stream, const char* what,
                           Error* error) {
  const uint64_t matched = token_;
  token_ = 0;  // the journal holds again once the step's writes are back (collect())
  const size_t bytes = cache.bytes.size();
  const size_t region = round_up(bytes + slack, kMirrorPairBytes);
  if (journal_in_sync(cache, matched) && bytes == cache_bytes_ && region == region_) {
    // Only what the host changed since the last step (new blocks poisoned, a prefill's rows) goes
    // up, into the cache and its shadow alike: one copy of the packed edits and one kernel.
    const std::vector<ByteRange>& edits = cache.journal.host_edits;
    if (edits.empty()) return Status::kOk;
    const size_t table = edits.size() * 3 * sizeof(int64_t);
    size_t total = 0;
    for (const ByteRange& e : edits) total += std::min(e.second, bytes) - std::min(e.first, bytes);
    if (Status s = host_edits_.reserve(table + total, "cudaMallocHost(cache edits)", error); s != Status::kOk)
      return s;
    if (Status s = edits_.reserve(table + total, what, error); s != Status::kOk) return s;
    auto* entries = host_edits_.as<int64_t>();
    uint8_t* packed = host_edits_.as<uint8_t>() + table;
    size_t source = 0;
    int64_t count = 0;
    for (const ByteRange& e : edits) {
      if (e.first >= bytes) continue;
      const size_t n = std::min(e.second, bytes) - e.first;
      std::memcpy(packed + source, cache.bytes.data() + e.first, n);
      entries[3 * count] = static_cast<int64_t>(e.first);
      entries[3 * count + 1] = static_cast<int64_t>(source);
      entries[3 * count + 2] = static_cast<int64_t>(n);
      source += n;
      ++count;
    }
    QSA_CUDA_TRY(cudaMemcpyAsync(edits_.as<void>(), host_edits_.as<void>(), table + total, cudaMemcpyHostToDevice, stream),
                 error);
    return launch_scatter_edits(cache_.as<uint8_t>(), shadow_.as<uint8_t>(), edits_.as<int64_t>(), count,
                                edits_.as<uint8_t>() + table, stream, error);
  }
  // A cache the device does not hold yet (a new scenario, a copy of the caches, an owner that
  // keeps no journal): all of it, then the poisoned slack; the shadow is a copy.
  if (Status s = cache_.reserve(region, what, error); s != Status::kOk) return s;
  if (Status s = shadow_.reserve(region, what, error); s != Status::kOk) return s;
  cache_bytes_ = bytes;
  region_ = region;
  if (bytes > 0)
    QSA_CUDA_TRY(cudaMemcpyAsync(cache_.as<void>(), cache.bytes.data(), bytes, cudaMemcpyHostToDevice, stream), error);
  QSA_CUDA_TRY(cudaMemsetAsync(cache_.as<uint8_t>() + bytes, kPoisonByte, region - bytes, stream), error);
  QSA_CUDA_TRY(cudaMemcpyAsync(shadow_.as<void>(), cache_.as<void>(), region, cudaMemcpyDeviceToDevice, stream), error);
  return Status::kOk;
}

Status CacheMirror::find_changes(cudaStream_t stream, Error* error) {
  const auto capacity = static_cast<size_t>(capacity_);
  if (Status s = changed_.reserve(kHeader + capacity * sizeof(int64_t), "cudaMalloc(changed chunks)", error);
      s != Status::kOk)
    return s;
  if (Status s = staging_.reserve(capacity * kMirrorChunkBytes, "cudaMalloc(changed chunks)", error); s != Status::kOk)
    return s;
  if (Status s = host_changed_.reserve(kHeader, "cudaMallocHost(changed chunks)", error); s != Status::kOk) return s;
  QSA_CUDA_TRY(cudaMemsetAsync(changed_.as<void>(), 0, sizeof(int32_t), stream), error);
  if (Status s = launch_diff_chunks(cache_.as<void>(), shadow_.as<void>(),
                                    static_cast<int64_t>(region_ / kMirrorPairBytes), changed_.as<int32_t>(),
                                    reinterpret_cast<int64_t*>(changed_.as<uint8_t>() + kHeader), staging_.as<void>(),
                                    capacity_, stream, error);
      s != Status::kOk)
    return s;
  QSA_CUDA_TRY(cudaMemcpyAsync(host_changed_.as<void>(), changed_.as<void>(), sizeof(int32_t), cudaMemcpyDeviceToHost,
                               stream),
               error);
  return Status::kOk;
}

Status CacheMirror::queue_changes(cudaStream_t stream, Error* error) {
  count_ = *host_changed_.as<int32_t>();
  whole_ = count_ > capacity_;
  if (whole_) {
    // More chunks changed than the staging holds (a prefill of many rows): the whole region comes
    // down, the shadow becomes the cache, and the staging grows for next time.
    if (Status s = host_changed_.reserve(region_, "cudaMallocHost(changed chunks)", error); s != Status::kOk) return s;
    QSA_CUDA_TRY(cudaMemcpyAsync(host_changed_.as<void>(), cache_.as<void>(), region_, cudaMemcpyDeviceToHost, stream),
                 error);
    QSA_CUDA_TRY(cudaMemcpyAsync(shadow_.as<void>(), cache_.as<void>(), region_, cudaMemcpyDeviceToDevice, stream),
                 error);
    capacity_ = std::max<int64_t>(capacity_, 2 * static_cast<int64_t>(count_));
    return Status::kOk;
  }
  if (count_ == 0) return Status::kOk;
  const auto n = static_cast<size_t>(count_);
  const size_t indices = n * sizeof(int64_t);
  if (Status s = host_changed_.reserve(kHeader + indices + n * kMirrorChunkBytes, "cudaMallocHost(changed chunks)", error);
      s != Status::kOk)
    return s;
  QSA_CUDA_TRY(cudaMemcpyAsync(host_changed_.as<uint8_t>() + kHeader, changed_.as<uint8_t>() + kHeader, indices,
                               cudaMemcpyDeviceToHost, stream),
               error);
  QSA_CUDA_TRY(cudaMemcpyAsync(host_changed_.as<uint8_t>() + kHeader + indices, staging_.as<void>(),
                               n * kMirrorChunkBytes, cudaMemcpyDeviceToHost, stream),
               error);
  return Status::kOk;
}

Status CacheMirror::collect(CacheBuffer* cache, const char* name, Error* error) {
  std::vector<ByteRange> writes;
  size_t past = SIZE_MAX;  // the first changed byte of the slack, if any
  uint8_t* host = cache->bytes.data();
  const auto take = [&](size_t at, const uint8_t* chunk) {
    const size_t end = std::min(at + kMirrorChunkBytes, region_);
    if (at < cache_bytes_) {
      const size_t n = std::min(end, cache_bytes_) - at;
      if (std::memcmp(host + at, chunk, n) != 0) {
        std::memcpy(host + at, chunk, n);
        add_write(writes, at, n);
      }
    }
    for (size_t i = std::max(at, cache_bytes_); i < end; ++i)
      if (chunk[i - at] != kPoisonByte) {
        past = std::min(past, i - cache_bytes_);
        break;
      }
  };
  if (whole_) {
    const uint8_t* region = host_changed_.as<uint8_t>();
    for (size_t at = 0; at < region_; at += kMirrorChunkBytes) take(at, region + at);
  } else if (count_ > 0) {
    const auto n = static_cast<size_t>(count_);
    const auto* chunks = reinterpret_cast<const int64_t*>(host_changed_.as<uint8_t>() + kHeader);
    const uint8_t* data = host_changed_.as<uint8_t>() + kHeader + n * sizeof(int64_t);
    order_.clear();  // in cache order, so that adjacent writes join
    for (size_t k = 0; k < n; ++k) order_.emplace_back(chunks[k], k);
    std::sort(order_.begin(), order_.end());
    for (const auto& [chunk, k] : order_)
      take(static_cast<size_t>(chunk) * kMirrorChunkBytes, data + k * kMirrorChunkBytes);
  }
  cache->journal.kernel_writes = std::move(writes);
  if (past != SIZE_MAX) {
    if (error != nullptr)
      *error = Error{name, static_cast<int64_t>(past), "write-past-cache",
                     std::string("the kernel wrote ") + std::to_string(past) + " bytes past the end of the " + name +
                         " cache (SPEC 5: a slot past the cache is skipped)"};
    return Status::kInternalError;  // token_ stays 0: the next call uploads the whole cache and slack
  }
  token_ = new_cache_token();
  mark_synced(*cache, token_);
  return Status::kOk;
}

}  // namespace qsa::cuda
