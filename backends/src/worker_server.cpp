#include "qsa/backends/worker_server.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "adapter_support.hpp"
#include "qsa/backends/worker_protocol.hpp"
#include "qsa/step_types.hpp"

namespace qsa::backends {
namespace {

using nlohmann::json;

// A protocol error on qsacheck's side (it never happens with a correct qsacheck): ends the server.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool read_exactly(int fd, void* data, size_t bytes) {
  auto* at = static_cast<uint8_t*>(data);
  while (bytes > 0) {
    const ssize_t n = read(fd, at, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    bytes -= static_cast<size_t>(n);
  }
  return true;
}

void write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ProtocolError(std::string("writing a reply failed: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

class Server {
 public:
  Server(const ServedBackend& served, int request_fd, int reply_fd, int shm_fd)
      : served_(served), request_fd_(request_fd), reply_fd_(reply_fd), shm_fd_(shm_fd) {}
  ~Server() {
    if (shm_ != nullptr) munmap(shm_, shm_size_);
  }

  int run() {
    while (true) {
      char head[8];
      if (!read_exactly(request_fd_, head, sizeof head)) return 0;  // qsacheck closed the pipe
      if (std::memcmp(head, "QSAW", 4) != 0) throw ProtocolError("a request without the frame magic");
      uint32_t n = 0;
      for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>(head[4 + i])) << (8 * i);
      std::string text(n, '\0');
      if (!read_exactly(request_fd_, text.data(), n)) return 0;
      const json request = json::parse(text);
      const std::string op = request.at("op").get<std::string>();
      if (op == "bye") return 0;
      if (request.contains("shm_bytes")) map(request["shm_bytes"].get<size_t>());
      json reply;
      if (op == "hello")
        reply = hello(request);
      else if (op == "metadata")
        reply = metadata(request);
      else if (op == "step")
        reply = step(request);
      else
        throw ProtocolError("unknown op " + op);
      reply["op"] = op;
      if (request.contains("id")) reply["id"] = request["id"];
      // A plugin's error message may hold any bytes: invalid UTF-8 is replaced (U+FFFD), where
      // dump() would throw and end the host.
      write_all(reply_fd_, make_frame(reply.dump(-1, ' ', false, json::error_handler_t::replace)));
    }
  }

 private:
  void map(size_t bytes) {
    if (bytes <= shm_size_) return;
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd_, 0);
    if (mapped == MAP_FAILED) throw ProtocolError(std::string("mmap of the shared memory: ") + std::strerror(errno));
    if (shm_ != nullptr) munmap(shm_, shm_size_);
    shm_ = static_cast<uint8_t*>(mapped);
    shm_size_ = bytes;
  }

  BufferRef ref(const json& j) const {
    BufferRef b;
    std::string why;
    if (!buffer_from_json(j, shm_size_, &b, &why)) throw ProtocolError(why);
    return b;
  }
  template <typename T>
  std::vector<T> read(const json& j) const {
    const BufferRef b = ref(j);
    std::vector<T> out(static_cast<size_t>(b.bytes) / sizeof(T));
    copy_bytes(out.data(), shm_ + b.offset, out.size() * sizeof(T));
    return out;
  }
  template <typename T>
  int64_t write(const json& j, const std::vector<T>& values) {
    return write_bytes(j, values.data(), values.size() * sizeof(T));
  }
  int64_t write(const json& j, const CacheBytes& values) { return write_bytes(j, values.data(), values.size()); }
  int64_t write_bytes(const json& j, const void* values, size_t bytes) {
    const BufferRef b = ref(j);
    if (bytes != static_cast<size_t>(b.bytes)) throw ProtocolError("an output buffer of the wrong size");
    copy_bytes(shm_ + b.offset, values, bytes);
    return static_cast<int64_t>(bytes);
  }

  json hello(const json& request) const {
    if (request.value("protocol", 0) < kWorkerProtocolVersion)
      throw ProtocolError("qsacheck speaks protocol " + request.value("protocol", json()).dump() +
                          "; this worker speaks " + std::to_string(kWorkerProtocolVersion));
    json reply = {{"protocol", kWorkerProtocolVersion},
                  {"name", served_.name},
                  {"spec_version", "1"},
                  {"build_info", served_.build_info},
                  {"capabilities", capabilities_to_json(served_.capabilities)}};
    if (!served_.variants.empty()) {
      json variants = json::array();
      for (const auto& [name, description] : served_.variants)
        variants.push_back({{"name", name}, {"description", description}});
      reply["variants"] = variants;
    }
    return reply;
  }

  BlockTable table(const json& j) const {
    const BufferRef b = ref(j);
    BlockTable t;
    t.storage = read<int32_t>(j);
    t.rows = b.shape.at(0);
    t.cols = b.shape.at(1);
    t.row_stride = b.strides.at(0);
    t.col_stride = b.strides.at(1);
    return t;
  }

  Batch batch(const json& request) const {
    const json& in = request.at("inputs");
    Batch b;
    for (int32_t v : read<int32_t>(in.at("query_start_loc"))) b.query_start_loc.push_back(v);
    for (int32_t v : read<int32_t>(in.at("seq_lens"))) b.seq_lens.push_back(v);
    b.common_slot_mapping = read<int64_t>(in.at("common_slot_mapping"));
    b.num_actual_tokens = request.at("num_actual_tokens").get<int64_t>();
    b.reorder_batch_threshold = request.at("reorder_batch_threshold").get<int64_t>();
    return b;
  }

  static json failure(Status status, const Error& e) {
    const char* code = status == Status::kInvalidInput     ? "invalid-input"
                       : status == Status::kNotImplemented ? "unsupported"
                       : status == Status::kDeviceError    ? "device-error"
                                                           : "internal";
    return {{"status", "error"}, {"code", code},   {"field", e.field},
            {"index", e.index},  {"rule", e.rule}, {"message", e.message}};
  }

  json metadata(const json& request) {
    MetadataInput in;
    in.batch = batch(request);
    const std::string kind = request.at("kind").get<std::string>();
    in.cache.kind = parse_cache_kind(kind).value_or(CacheKind::kCompressed);
    if (in.cache.kind != CacheKind::kPassthrough) in.cache.compress_ratio = request.at("compress_ratio").get<int64_t>();
    in.cache.storage_block_size = request.at("storage_block_size").get<int64_t>();
    in.cache.ring_capacity = request.at("ring_capacity").get<int64_t>();
    in.block_table = table(request.at("inputs").at("block_table"));
    MetadataOutput out = make_poisoned_metadata_output(in);
    Error error;
    const Status status = served_.backend->build_metadata(in, &out, &error);
    if (status != Status::kOk) return failure(status, error);
    const json& o = request.at("outputs");
    json written = {{"token_to_req", write(o.at("token_to_req"), out.token_to_req)},
                    {"logical_positions", write(o.at("logical_positions"), out.logical_positions)},
                    {"visible_blocks", write(o.at("visible_blocks"), out.visible_blocks)},
                    {"slot_mapping", write(o.at("slot_mapping"), out.slot_mapping)},
                    {"k_work_metadata", write(o.at("k_work_metadata"), out.k_work_metadata)}};
    return {{"status", "ok"}, {"split", split_to_json(out.split)}, {"written", written}};
  }

  CacheBuffer cache(const json& j) const {
    const BufferRef b = ref(j);
    CacheBuffer c;
    c.layout = CacheLayout{b.shape.at(0),   b.shape.at(1),   b.shape.at(2),
                           b.strides.at(0), b.strides.at(1), b.dtype == "uint8" ? 1 : 2};
    c.bytes.assign(static_cast<size_t>(b.bytes), 0);
    copy_bytes(c.bytes.data(), shm_ + b.offset, c.bytes.size());
    return c;
  }

  json step(const json& request) {
    StepInput in;
    StepConfig& c = in.config;
    c.store_dtype = request.at("store_dtype").get<std::string>() == "bf16" ? StoreDtype::kBf16 : StoreDtype::kFp8E4m3;
    c.compress_ratio = request.at("compress_ratio").get<int64_t>();
    c.storage_block_size = request.at("storage_block_size").get<int64_t>();
    c.ring_capacity = request.at("ring_capacity").get<int64_t>();
    c.head_dim = request.at("head_dim").get<int64_t>();
    c.rotary_dim = request.at("rotary_dim").get<int64_t>();
    c.num_heads = request.at("num_heads").get<int64_t>();
    c.eps = request.at("eps").get<float>();
    if (!request.at("mrope_sections").is_null())
      c.mrope_sections = request["mrope_sections"].get<std::array<int64_t, 3>>();
    c.ring_positions = request.at("ring_positions").get<bool>();
    c.max_position = request.at("max_position").get<int64_t>();
    const json& in_json = request.at("inputs");
    // The RoPE table is kept while its bytes stay the same, so a plugin uploads it once.
    std::vector<Bf16> cos_sin = read<Bf16>(in_json.at("cos_sin"));
    if (!cos_sin_ || *cos_sin_ != cos_sin) cos_sin_ = std::make_shared<const std::vector<Bf16>>(std::move(cos_sin));
    c.cos_sin = cos_sin_;
    c.w_k = read<Bf16>(in_json.at("w_k"));
    c.w_q = read<Bf16>(in_json.at("w_q"));
    in.batch = batch(request);
    in.block_table = table(in_json.at("block_table"));
    in.ring_block_table = table(in_json.at("ring_block_table"));
    in.keys = read<Bf16>(in_json.at("keys"));
    in.queries = read<Bf16>(in_json.at("queries"));
    in.position_axes = ref(in_json.at("positions")).shape.size() == 2 ? 3 : 1;
    in.positions = read<int64_t>(in_json.at("positions"));
    StepCaches caches{cache(request.at("caches").at("ring")), cache(request.at("caches").at("compressed"))};
    StepOutput out = make_poisoned_step_output(in);
    Error error;
    const Status status = served_.backend->step_update(in, &caches, &out, &error);
    write(request["caches"]["ring"], caches.ring.bytes);  // in place, also after an error
    write(request["caches"]["compressed"], caches.compressed.bytes);
    if (status != Status::kOk) return failure(status, error);
    const json written = {{"q_out", write(request.at("outputs").at("q_out"), out.q_out)}};
    return {{"status", "ok"},
            {"step_status", out.step_status == StepStatus::kOk ? "ok" : "position-out-of-range"},
            {"written", written}};
  }

  const ServedBackend& served_;
  int request_fd_, reply_fd_, shm_fd_;
  uint8_t* shm_ = nullptr;
  size_t shm_size_ = 0;
  std::shared_ptr<const std::vector<Bf16>> cos_sin_;
};

}  // namespace

int serve_backend(const ServedBackend& served, int request_fd, int reply_fd, int shm_fd) {
  try {
    return Server(served, request_fd, reply_fd, shm_fd).run();
  } catch (const std::exception& e) {  // ProtocolError, or a JSON field missing from a request
    std::fprintf(stderr, "qsacheck-worker-host: %s\n", e.what());
    return 1;
  }
}

}  // namespace qsa::backends
