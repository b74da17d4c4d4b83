#pragma once
// The parts of the worker protocol (docs/worker-protocol.md) that both ends share: the version,
// buffer descriptions in the shared memory, the capabilities (the plugin table's, as JSON), the
// batch split, and the frame (magic "QSAW", a little-endian uint32 length, then a JSON object).
// qsacheck's end is WorkerBackend (worker_backend.hpp), ours as a worker is serve_backend().

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/types.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

/// The protocol this qsacheck speaks; it also accepts workers of every version from the oldest.
inline constexpr int kWorkerProtocolVersion = 2;
inline constexpr int kOldestWorkerProtocolVersion = 1;
inline constexpr size_t kShmAlignment = 64;  // every buffer's offset is a multiple of it

/// A buffer in the shared memory: `bytes` at `offset`, a dtype ("int32", "int64", "bfloat16",
/// "uint8"), a shape and strides in elements (empty: dense row-major).
struct BufferRef {
  int64_t offset = 0;
  int64_t bytes = 0;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};
nlohmann::json to_json(const BufferRef& buffer);
/// Reads a buffer description and checks it lies inside a region of `shm_bytes`; false with *why.
bool buffer_from_json(const nlohmann::json& j, size_t shm_bytes, BufferRef* buffer, std::string* why);

/// Places buffers one after another at aligned offsets (the per-call part of the shared memory).
class ShmPlan {
 public:
  explicit ShmPlan(size_t start = 0) : end_(start) {}
  size_t place(size_t bytes);
  size_t end() const { return end_; }

 private:
  size_t end_;
};

/// The capabilities as the hello reply states them: "cache_kinds", "store_dtypes", "features"
/// (lists of names) and the ranges ([min, max], optional: absent is SPEC's whole range); from
/// protocol 2 on also the constraints and deviations (docs/worker-protocol.md), each optional.
nlohmann::json capabilities_to_json(const KernelDeclaration& kernel);
/// `protocol` is the worker's: a protocol-1 worker declares no constraints or deviations.
bool capabilities_from_json(const nlohmann::json& j, int protocol, KernelDeclaration* kernel, std::string* why);
/// Every kind, dtype and feature a worker can have, over SPEC's whole ranges, with no constraints.
KernelDeclaration full_capabilities();

nlohmann::json split_to_json(const BatchSplit& split);
bool split_from_json(const nlohmann::json& j, BatchSplit* split, std::string* why);

/// A frame: "QSAW", the JSON text's length as a little-endian uint32, the text.
std::string make_frame(const std::string& json);

}  // namespace qsa::backends
