#include "qsa/records/machine_context.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace qsa::records {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// "32K" -> 32768, as libbenchmark's sysinfo reads cache sizes.
int64_t size_bytes(const std::string& text) {
  if (text.empty()) return 0;
  int64_t n = std::atoll(text.c_str());
  const char suffix = text.back();
  if (suffix == 'K') n *= 1024;
  if (suffix == 'M') n *= 1024 * 1024;
  return n;
}

// How many CPUs share a cache: the entries of its shared_cpu_list ("0-3,8-11" -> 8).
int64_t count_cpus(const std::string& list) {
  int64_t count = 0;
  std::stringstream parts(list);
  for (std::string part; std::getline(parts, part, ',');) {
    const size_t dash = part.find('-');
    count += dash == std::string::npos ? 1 : std::atoll(part.c_str() + dash + 1) - std::atoll(part.c_str()) + 1;
  }
  return count;
}

}  // namespace

nlohmann::json machine_context() {
  nlohmann::json x;
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  x["num_cpus"] = cpus;
  // libbenchmark: the TSC frequency where the kernel states it, else /proc/cpuinfo's "cpu MHz".
  double mhz = std::atof(read_line("/sys/devices/system/cpu/cpu0/tsc_freq_khz").c_str()) / 1000;
  if (mhz <= 0) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
      if (line.rfind("cpu MHz", 0) == 0 && line.find(':') != std::string::npos) {
        mhz = std::atof(line.c_str() + line.find(':') + 1);
        break;
      }
  }
  x["mhz_per_cpu"] = static_cast<int64_t>(mhz);
  // libbenchmark: scaling is enabled when cpu0's governor exists and is not "performance".
  const std::string governor = read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  x["cpu_scaling_enabled"] = !governor.empty() && governor != "performance";
  nlohmann::json caches = nlohmann::json::array();
  for (int i = 0;; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) break;
    caches.push_back({{"type", type},
                      {"level", std::atoi(read_line(dir + "level").c_str())},
                      {"size", size_bytes(read_line(dir + "size"))},
                      {"num_sharing", count_cpus(read_line(dir + "shared_cpu_list"))}});
  }
  x["caches"] = caches;
  double load[3] = {0, 0, 0};
  const int n = getloadavg(load, 3);
  nlohmann::json load_avg = nlohmann::json::array();
  for (int k = 0; k < n; ++k) load_avg.push_back(load[k]);
  x["load_avg"] = load_avg;
  x["library_build_type"] = "release";
  return x;
}

}  // namespace qsa::records
