#include "qsa/records/record.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "qsa/input_error.hpp"
#include "qsa/records/benchmark_name.hpp"

namespace qsa::records {
namespace {

[[noreturn]] void fail(const std::string& field, int64_t index, const std::string& rule, const std::string& message) {
  throw InputError(Error{field, index, rule, message});
}

double nanoseconds_per(const std::string& unit, const std::string& field, int64_t index) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  fail(field, index, "unknown-time-unit", "time_unit \"" + unit + "\" is none of ns, us, ms, s");
}

// Fields of a Google Benchmark entry that are not counters.
const std::set<std::string>& standard_fields() {
  static const std::set<std::string> fields{"name",
                                            "run_name",
                                            "run_type",
                                            "family_index",
                                            "per_family_instance_index",
                                            "repetitions",
                                            "repetition_index",
                                            "threads",
                                            "aggregate_name",
                                            "aggregate_unit",
                                            "iterations",
                                            "real_time",
                                            "cpu_time",
                                            "time_unit",
                                            "error_occurred",
                                            "error_message",
                                            "label"};
  return fields;
}

Entry parse_entry_fields(const nlohmann::json& json, const std::string& field, int64_t index) {
  if (!json.is_object()) fail(field, index, "wrong-type", "a benchmark entry must be a JSON object");
  Entry entry;
  const auto name = json.find("name");
  if (name == json.end() || !name->is_string()) fail(field, index, "missing", "entry without a string \"name\"");
  entry.name = name->get<std::string>();
  entry.aggregate = json.value("run_type", std::string("iteration")) == "aggregate";
  if (entry.aggregate) entry.aggregate_name = json.value("aggregate_name", std::string());
  const auto run_name = json.find("run_name");
  if (run_name != json.end() && run_name->is_string()) {
    entry.run_name = run_name->get<std::string>();
  } else {
    entry.run_name = entry.name;
    const std::string suffix = "_" + entry.aggregate_name;
    if (entry.aggregate && entry.run_name.size() > suffix.size() &&
        entry.run_name.compare(entry.run_name.size() - suffix.size(), suffix.size(), suffix) == 0)
      entry.run_name.resize(entry.run_name.size() - suffix.size());
  }
  entry.error = json.value("error_occurred", false);
  if (entry.error) {
    entry.error_message = json.value("error_message", std::string());
    return entry;
  }
  for (const char* key : {"real_time", "cpu_time"})
    if (!json.contains(key) || !json[key].is_number())
      fail(field, index, "missing", entry.name + ": \"" + key + "\" must be a number");
  const auto unit = json.find("time_unit");
  if (unit == json.end() || !unit->is_string())
    fail(field, index, "missing", entry.name + ": \"time_unit\" must be a string");
  // A percentage aggregate (cv) holds a fraction, not a time.
  const double scale = json.value("aggregate_unit", std::string("time")) == "percentage"
                           ? 1.0
                           : nanoseconds_per(unit->get<std::string>(), field, index);
  entry.real_time_ns = json["real_time"].get<double>() * scale;
  entry.cpu_time_ns = json["cpu_time"].get<double>() * scale;
  if (json.contains("iterations") && json["iterations"].is_number_integer())
    entry.iterations = json["iterations"].get<int64_t>();
  if (json.contains("repetitions") && json["repetitions"].is_number_integer())
    entry.repetitions = json["repetitions"].get<int64_t>();
  if (json.contains("repetition_index") && json["repetition_index"].is_number_integer())
    entry.repetition_index = json["repetition_index"].get<int64_t>();
  for (const auto& [key, value] : json.items())
    if (value.is_number() && standard_fields().count(key) == 0) entry.counters[key] = value.get<double>();
  return entry;
}

// A field of the wrong JSON type (nlohmann's value() throws) is named like every other input error.
Entry parse_entry(const nlohmann::json& json, const std::string& field, int64_t index) {
  try {
    return parse_entry_fields(json, field, index);
  } catch (const nlohmann::json::exception& e) {
    fail(field, index, "wrong-type", e.what());
  }
}

// Our block's schema version: a string (AddCustomContext) or an integer.
int read_schema_version(const nlohmann::json& context, const std::string& field) {
  const auto it = context.find(kSchemaKey);
  if (it == context.end()) return 0;
  const std::string key_field = field + ".context." + kSchemaKey;
  int version = 0;
  if (it->is_number_integer()) {
    version = it->get<int>();
  } else if (it->is_string()) {
    try {
      size_t used = 0;
      version = std::stoi(it->get<std::string>(), &used);
      if (used != it->get<std::string>().size()) version = 0;
    } catch (const std::exception&) {
      version = 0;
    }
  }
  if (version < 1) fail(key_field, -1, "wrong-type", "the schema version must be a positive integer");
  if (version > kSchemaVersion)
    fail(key_field, -1, "unsupported-schema",
         "record schema version " + std::to_string(version) + " is newer than this qsacheck reads (" +
             std::to_string(kSchemaVersion) + "); use a newer qsacheck");
  return version;
}

}  // namespace

std::string Record::context_text(const std::string& key) const {
  const auto it = context.find(key);
  if (it == context.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

Record parse_record(const nlohmann::json& json, const std::string& field, const std::string& source) {
  if (!json.is_object() || !json.contains("benchmarks") || !json["benchmarks"].is_array())
    fail(field, -1, "not-a-benchmark-record",
         source + " is not Google Benchmark JSON (an object with a \"benchmarks\" array)");
  Record record;
  record.source = source;
  if (json.contains("context")) {
    if (!json["context"].is_object()) fail(field + ".context", -1, "wrong-type", "\"context\" must be an object");
    record.context = json["context"];
  }
  record.schema_version = read_schema_version(record.context, field);
  if (record.schema_version > 0) {
    const std::string provenance = record.context_text(kProvenanceKey);
    if (provenance == "measured")
      record.provenance = Provenance::kMeasured;
    else if (provenance == "imported")
      record.provenance = Provenance::kImported;
    else
      fail(field + ".context." + kProvenanceKey, -1, "unknown-value",
           "\"" + provenance + "\" is neither \"measured\" nor \"imported\"");
  }
  const auto& benchmarks = json["benchmarks"];
  for (size_t i = 0; i < benchmarks.size(); ++i)
    record.entries.push_back(parse_entry(benchmarks[i], field + ".benchmarks", static_cast<int64_t>(i)));
  return record;
}

nlohmann::ordered_json record_to_json(const Record& record) {
  nlohmann::ordered_json benchmarks = nlohmann::ordered_json::array();
  // Google Benchmark 1.7's family_index (the benchmark family, BM_StepUpdate, in the order first
  // written) and per_family_instance_index (the run within its family), which consumers such as
  // Bencher's adapter expect of a real file.
  std::map<std::string, std::pair<int64_t, std::map<std::string, int64_t>>> families;
  for (const Entry& e : record.entries) {
    nlohmann::ordered_json json{{"name", e.name}, {"run_name", e.run_name}};
    json["run_type"] = e.aggregate ? "aggregate" : "iteration";
    auto& [family_index, instances] =
        families.try_emplace(split_benchmark_name(benchmark_key(e.run_name)).family,
                             static_cast<int64_t>(families.size()), std::map<std::string, int64_t>{})
            .first->second;
    json["family_index"] = family_index;
    json["per_family_instance_index"] =
        instances.try_emplace(e.run_name, static_cast<int64_t>(instances.size())).first->second;
    if (e.repetitions > 0) json["repetitions"] = e.repetitions;
    if (e.repetition_index >= 0) json["repetition_index"] = e.repetition_index;
    json["threads"] = 1;
    if (e.aggregate) {
      json["aggregate_name"] = e.aggregate_name;
      json["aggregate_unit"] = e.aggregate_name == "cv" ? "percentage" : "time";
    }
    json["iterations"] = e.iterations;
    // Microseconds, the unit of our benchmarks; a cv aggregate is a fraction, written as is.
    const bool fraction = e.aggregate_name == "cv";
    json["real_time"] = fraction ? e.real_time_ns : e.real_time_ns / 1e3;
    json["cpu_time"] = fraction ? e.cpu_time_ns : e.cpu_time_ns / 1e3;
    json["time_unit"] = "us";
    for (const auto& [key, value] : e.counters) json[key] = value;
    if (e.error) {
      json["error_occurred"] = true;
      json["error_message"] = e.error_message;
    }
    benchmarks.push_back(std::move(json));
  }
  nlohmann::ordered_json out;
  out["context"] = nlohmann::ordered_json::parse(record.context.dump());
  out["benchmarks"] = std::move(benchmarks);
  return out;
}

}  // namespace qsa::records
