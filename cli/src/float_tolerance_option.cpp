#include "float_tolerance_option.hpp"

namespace qsa::cli {

void add_float_tolerance_option(CLI::App* command, std::string* text) {
  command
      ->add_option("--float-tolerance", *text,
                   "How compressed-cache rows and q_out are compared with the reference: exact (bit for bit,\n"
                   "the default) or row-ulp:N (SPEC 6's declared tolerance mode: each element within N units in\n"
                   "the last place of its row's largest finite reference magnitude). Ring rows, positions,\n"
                   "slots, k-work, statuses and all metadata stay exact; reports and reproducers state the mode")
      ->capture_default_str();
}

bool parse_float_tolerance_flag(const std::string& text, traces::FloatTolerance* tolerance, Error* error) {
  const auto parsed = traces::parse_float_tolerance(text);
  if (!parsed) {
    *error = Error{"--float-tolerance", -1, "invalid-tolerance",
                   std::string(traces::kFloatToleranceRule) + ", got '" + text + "'"};
    return false;
  }
  *tolerance = *parsed;
  return true;
}

}  // namespace qsa::cli
