#include "bench_record.hpp"

#include <unistd.h>

#include <ctime>

#include "qsa/records/machine_context.hpp"
#include "qsa/records/repetitions.hpp"
#include "version.hpp"

namespace qsa::cli {
namespace {

// ISO 8601 with the offset written +hh:mm, as Google Benchmark writes "date".
std::string now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", &local);
  std::string s = text;
  if (s.size() > 2) s.insert(s.size() - 2, ":");
  return s;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

std::string clock_text(int mhz) { return mhz < 0 ? "" : std::to_string(mhz); }

void set_if(nlohmann::json& context, const char* key, const std::string& value) {
  if (!value.empty()) context[key] = value;
}

}  // namespace

std::string run_name(const timing::Measurement& m, int repetitions) {
  return m.name + "/iterations:" + std::to_string(m.iterations) + "/repeats:" + std::to_string(repetitions) +
         "/manual_time";
}

double median_micros(const timing::Measurement& m) {
  return m.seconds.empty() ? -1 : records::median_of(m.seconds) * 1e6;
}

records::Record bench_record(const std::vector<timing::Measurement>& measurements, int repetitions,
                             const BenchRunContext& c) {
  records::Record record;
  record.schema_version = records::kSchemaVersion;
  record.provenance = records::Provenance::kMeasured;
  nlohmann::json& x = record.context;
  x["date"] = now_iso8601();
  set_if(x, "host_name", host_name());
  x["executable"] = "qsacheck";
  x.update(records::machine_context());  // num_cpus, mhz_per_cpu, caches, ... as libbenchmark writes them
  x[records::kSchemaKey] = std::to_string(records::kSchemaVersion);
  x[records::kProvenanceKey] = "measured";
  set_if(x, "gpu_name", c.gpu.name);
  if (c.gpu.sm_count > 0) x["gpu_sm_count"] = std::to_string(c.gpu.sm_count);
  set_if(x, "gpu_sm_clock_mhz_start", clock_text(c.gpu.sm_clock_mhz));
  set_if(x, "gpu_sm_clock_mhz_end", clock_text(c.sm_clock_mhz_end));
  set_if(x, "gpu_mem_clock_mhz_start", clock_text(c.gpu.mem_clock_mhz));
  set_if(x, "gpu_mem_clock_mhz_end", clock_text(c.mem_clock_mhz_end));
  set_if(x, "gpu_driver", c.gpu.driver);
  set_if(x, "cuda_version", c.gpu.cuda_version);
  x["qsacheck_version"] = tool_version();
  x["qsacheck_commit"] = git_commit();
  x["spec_version"] = spec_version();
  x["backend"] = c.backend;
  x["command_line"] = c.command_line;
  double ceiling = -1;
  for (const timing::Measurement& m : measurements) {
    if (m.name == timing::kFloorName && !m.seconds.empty()) x["floor_us"] = std::to_string(median_micros(m));
    if ((m.name == timing::kCopyName || m.name == timing::kCopyKernelName) && !m.seconds.empty())
      ceiling = std::max(ceiling, static_cast<double>(m.bytes_per_launch) / records::median_of(m.seconds));
  }
  if (ceiling > 0) x["copy_ceiling_bytes_per_second"] = std::to_string(static_cast<int64_t>(ceiling));

  for (const timing::Measurement& m : measurements) {
    const std::string name = run_name(m, repetitions);
    if (!m.not_timed.empty()) {
      record.entries.push_back(records::error_entry(name, m.not_timed));
      continue;
    }
    records::Repetitions run;
    run.run_name = name;
    run.iterations = m.iterations;
    for (size_t r = 0; r < m.seconds.size(); ++r) {
      run.real_time_ns.push_back(m.seconds[r] * 1e9);
      run.cpu_time_ns.push_back(m.host_seconds[r] * 1e9);
      if (m.bytes_per_launch > 0)
        run.counters["bytes_per_second"].push_back(static_cast<double>(m.bytes_per_launch) / m.seconds[r]);
    }
    for (records::Entry& e : records::repetition_entries(run)) record.entries.push_back(std::move(e));
  }
  return record;
}

}  // namespace qsa::cli
