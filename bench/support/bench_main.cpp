#include "support/bench_main.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef QSA_HAVE_CUDA
#include "qsa/cuda/device.hpp"
#include "qsa/status.hpp"
#endif

namespace qsa::bench {

bool quick_mode = false;
int tuning_cases = 1;
bool verification_failed = false;

std::string tuning_case_name(const std::string& name, int k) {
  return k == 1 ? name : name + "/case:" + std::to_string(k);
}

MedianReporter::MedianReporter(bool color) : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular) {}

void MedianReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.error_occurred) continue;
    const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
    const bool single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
    if (!median && !single) continue;
    micros_[run.run_name.function_name] = run.GetAdjustedRealTime();
    const auto it = run.counters.find("bytes_per_second");
    if (it != run.counters.end()) bytes_per_second_[run.run_name.function_name] = it->second.value;
  }
  ConsoleReporter::ReportRuns(runs);
}

namespace {
double find_or_minus_one(const std::map<std::string, double>& values, const std::string& name) {
  const auto it = values.find(name);
  return it == values.end() ? -1.0 : it->second;
}
}  // namespace

double MedianReporter::micros(const std::string& name) const { return find_or_minus_one(micros_, name); }
double MedianReporter::bytes_per_second(const std::string& name) const {
  return find_or_minus_one(bytes_per_second_, name);
}

int run_benchmark_main(int argc, char** argv, const std::function<void(bool gpu)>& register_benchmarks,
                       const std::function<void(const MedianReporter&)>& print_summary) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a run cut short by a timeout still leaves its lines
  std::vector<char*> args;
  constexpr const char* kCasesFlag = "--tuning_cases=";
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick_mode = true;
    } else if (std::strncmp(argv[i], kCasesFlag, std::strlen(kCasesFlag)) == 0) {
      const char* value = argv[i] + std::strlen(kCasesFlag);
      char* end = nullptr;
      const long cases = std::strtol(value, &end, 10);
      if (*value == '\0' || *end != '\0' || cases < 1 || cases > 8) {
        std::fprintf(stderr, "%s: --tuning_cases takes a whole number from 1 to 8, not '%s'\n", argv[0], value);
        return 2;
      }
      tuning_cases = static_cast<int>(cases);
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;

  bool gpu = false;
  std::string reason = "this build has no CUDA backend";
#ifdef QSA_HAVE_CUDA
  gpu = qsa::cuda::probe_device(&reason) == qsa::Status::kOk;
  if (gpu) benchmark::AddCustomContext("device", qsa::cuda::device_description());
#endif
  if (!gpu) {
    std::fprintf(stderr, "GPU benchmarks skipped: %s\n", reason.c_str());
    const char* required = std::getenv("QSA_REQUIRE_GPU");
    if (required != nullptr && std::strcmp(required, "1") == 0) {
      std::fprintf(stderr, "QSA_REQUIRE_GPU=1: a missing GPU is an error\n");
      return 1;
    }
  }
  register_benchmarks(gpu);
  MedianReporter reporter(isatty(fileno(stdout)) != 0);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_summary(reporter);
  benchmark::Shutdown();
  if (verification_failed) {
    std::fprintf(stderr, "FAILED: a GPU benchmark's output differs from the reference or a CUDA call failed\n");
    return 1;
  }
  return 0;
}

}  // namespace qsa::bench
