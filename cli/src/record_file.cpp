#include "record_file.hpp"

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"

namespace qsa::cli {
namespace {

// A reader's error, as an error of the option the file came from.
[[noreturn]] void rethrow_as(const InputError& e, const std::string& field, const std::string& prefix) {
  Error error = e.error();
  error.field = field;
  error.message = prefix + error.message;
  throw InputError(error);
}

}  // namespace

records::Record read_record_file(const std::string& path, const std::string& field) {
  std::string text;
  try {
    text = traces::read_input_text(path);  // its message names the path
  } catch (const InputError& e) {
    rethrow_as(e, field, "");
  }
  nlohmann::json json;
  try {
    json = traces::parse_json(text);
  } catch (const InputError& e) {
    rethrow_as(e, field, path + ": ");
  }
  return records::parse_record(json, field, path);
}

}  // namespace qsa::cli
