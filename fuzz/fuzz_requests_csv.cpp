// fuzz_requests_csv: bytes -> traces::workload_from_requests_csv_text, then the campaign's cache
// budget check (resolve_workload). The reader either throws InputError naming a field and a rule
// (an index within the lines read), or returns a workload whose length tables hold only token
// counts in [1, 2^24] and whose every sample is a line of the input; resolving it either passes
// or throws InputError. Any other exception, a crash, a hang or a large allocation is a finding.

#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/workloads.hpp"

namespace {

using namespace qsa;
using fuzz::finding;
using fuzz::line_count;
constexpr const char* kTarget = "fuzz_requests_csv";

void check_error(const Error& error, const std::string& text) {
  if (error.field.empty() || error.rule.empty() || error.message.empty())
    finding(kTarget, "error-shape", "an error without field, rule or message: " + to_string(error));
  if (error.index > line_count(text) + 1)  // "no request line" names the line after the header
    finding(kTarget, "error-index",
            "line " + std::to_string(error.index) + " of a " + std::to_string(line_count(text)) +
                "-line input: " + to_string(error));
}

void check_table(const traces::LengthTable& table, const char* column, int64_t lines) {
  if (table.max() < 1 || table.max() > (int64_t{1} << 24))
    finding(kTarget, "token-range", std::string(column) + ": largest sample " + std::to_string(table.max()));
  if (lines < 2) finding(kTarget, "no-lines", std::string(column) + ": a table from an input with no request line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::run_input(kTarget, [&] {
    traces::Workload workload;
    try {
      workload = traces::workload_from_requests_csv_text(text, "fuzz.csv");
    } catch (const InputError& e) {
      check_error(e.error(), text);
      return;
    }
    check_table(workload.prompt_tokens, "prompt_tokens", line_count(text));
    check_table(workload.output_tokens, "output_tokens", line_count(text));
    try {
      traces::resolve_workload(workload, 1);  // sizes the caches; allocates nothing large
    } catch (const InputError& e) {
      check_error(e.error(), text);
    }
  });
  return 0;
}
