#include "fuzz_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>

#include "qsa/backends/registry.hpp"

namespace qsa::fuzz {

void finding(const char* target, const std::string& check, const std::string& detail) {
  std::fprintf(stderr, "\nFINDING %s: %s: %s\n", target, check.c_str(), detail.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

void run_input(const char* target, const std::function<void()>& checks) {
  try {
    checks();
  } catch (const std::exception& e) {
    finding(target, "exception", std::string("an exception escaped: ") + e.what());
  } catch (...) {
    finding(target, "exception", "an unknown exception escaped");
  }
}

Backend& reference_backend() {
  static std::unique_ptr<Backend> reference = [] { return BackendRegistry::global().create("reference"); }();
  return *reference;
}

namespace {

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ','))
    if (!name.empty()) names.push_back(name);
  return names;
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "QSA_FUZZ_BACKEND: %s\n", message.c_str());
  std::exit(2);
}

traces::FloatTolerance read_float_tolerance() {
  const char* text = std::getenv("QSA_FUZZ_FLOAT_TOLERANCE");
  if (text == nullptr || *text == '\0') return {};
  const auto tolerance = traces::parse_float_tolerance(text);
  if (!tolerance) {
    std::fprintf(stderr, "QSA_FUZZ_FLOAT_TOLERANCE: %s, got '%s'\n", traces::kFloatToleranceRule, text);
    std::exit(2);
  }
  return *tolerance;
}

std::vector<std::unique_ptr<Backend>> open_backends() {
  BackendRegistry& registry = BackendRegistry::global();
  std::vector<std::unique_ptr<Backend>> backends;
  const char* requested = std::getenv("QSA_FUZZ_BACKEND");
  if (requested != nullptr && std::string(requested) == "none") return backends;
  if (requested != nullptr && *requested != '\0') {
    for (const std::string& name : split_names(requested)) {
      if (name == "reference") continue;  // always the baseline
      auto backend = registry.create(name);
      if (!backend) {
        std::string choices;
        for (const std::string& n : registry.names()) choices += " " + n;
        usage_error("unknown backend \"" + name + "\"; this build has:" + choices);
      }
      std::string reason;
      if (backend->probe(&reason) != Status::kOk) usage_error(name + " cannot run here: " + reason);
      backends.push_back(std::move(backend));
    }
    return backends;
  }
  for (const std::string& name : registry.names()) {
    if (name == "reference") continue;
    auto backend = registry.create(name);
    std::string reason;
    if (backend && backend->probe(&reason) == Status::kOk) backends.push_back(std::move(backend));
  }
  return backends;
}

}  // namespace

traces::FloatTolerance fuzz_float_tolerance() {
  static const traces::FloatTolerance tolerance = read_float_tolerance();
  return tolerance;
}

const std::vector<std::unique_ptr<Backend>>& differential_backends() {
  static const std::vector<std::unique_ptr<Backend>> backends = open_backends();
  return backends;
}

void announce_backends(const char* target) {
  static bool announced = false;
  if (announced) return;
  announced = true;
  std::string names;
  for (const auto& b : differential_backends()) names += (names.empty() ? "" : ", ") + b->name();
  std::fprintf(stderr, "%s: reference checked against %s\n", target,
               names.empty() ? "the invariants and the oracle (no other backend: set QSA_FUZZ_BACKEND to pick one)"
                             : ("the invariants, the oracle and, " +
                                (fuzz_float_tolerance().exact()
                                     ? std::string("bit for bit")
                                     : "compressed rows and q_out within " + fuzz_float_tolerance().to_string() +
                                           " (QSA_FUZZ_FLOAT_TOLERANCE), the rest bit for bit") +
                                ", " + names)
                                   .c_str());
}

int64_t Decoder::edgy(int64_t lo, int64_t hi, std::initializer_list<int64_t> edges) {
  if (fdp_.ConsumeIntegralInRange<int>(0, 3) != 0) {
    const int64_t v = pick(edges);
    if (v >= lo && v <= hi) return v;
  }
  return range(lo, hi);
}

int64_t Decoder::wild() {
  constexpr int64_t kMax = INT64_MAX;
  switch (fdp_.ConsumeIntegralInRange<int>(0, 15)) {
    case 0:
      return fdp_.ConsumeIntegral<int64_t>();
    case 1:
      return pick({0, -1, 1, 2, kMax, INT64_MIN, kMax - 1, INT64_MIN + 1});
    case 2:
      return pick({int64_t{1} << 20, (int64_t{1} << 20) + 1, (int64_t{1} << 24), (int64_t{1} << 24) + 1});
    case 3:
      return pick({2147483647, 2147483648, -2147483648LL, 4294967296LL, 1024, 1025});
    default:
      return range(-4, 300);
  }
}

int64_t line_count(const std::string& text) {
  int64_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

}  // namespace qsa::fuzz
