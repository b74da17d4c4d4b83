#include "qsa/traces/json_reader.hpp"

#include <cmath>
#include <limits>

namespace qsa::traces {

namespace {

// Where the parser is inside the document, to reject a key seen twice in one object and name it
// by its path ("config.seed", "chunks[2].request").
class KeyTracker {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if ((event == Event::object_start || event == Event::array_start || event == Event::value) && !frames_.empty() &&
        !frames_.back().object)
      ++frames_.back().index;
    switch (event) {
      case Event::object_start:
        frames_.push_back(Frame{true, {}, "", -1});
        break;
      case Event::array_start:
        frames_.push_back(Frame{false, {}, "", -1});
        break;
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        break;
      case Event::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second)
          throw InputError(Error{path(), -1, "duplicate-key",
                                 "the key \"" + frame.key +
                                     "\" appears twice in one object (JSON readers differ on "
                                     "which one wins, so neither is taken)"});
        break;
      }
      case Event::value:
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;  // objects: the keys seen so far
    std::string key;             // objects: the current key
    int64_t index;               // arrays: the current element
  };
  std::string path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.object)
        out += (out.empty() ? "" : ".") + (f.key.empty() ? std::string("\"\"") : f.key);
      else
        out += "[" + std::to_string(f.index) + "]";
    }
    return out.empty() ? "input" : out;
  }
  std::vector<Frame> frames_;
};

// Refuses text nested deeper than kMaxJsonDepth before nlohmann builds anything: its tree of a
// deep array costs a few hundred bytes per level (the key tracker's frame included), and copying
// or printing such a tree recurses once per level, so 100 000 `[` overflowed the stack of replay's
// step copy (docs/limits.md, "Nesting depth"). Brackets inside strings do not count; whatever else
// is wrong with the text is left to the parser.
void check_nesting(const std::string& text) {
  int64_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(Error{"input", static_cast<int64_t>(i), "too-deep",
                               "arrays and objects nested more than " + std::to_string(kMaxJsonDepth) +
                                   " deep (no qsacheck input needs more than a few levels)"});
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
}

}  // namespace

nlohmann::json parse_json(const std::string& text) {
  check_nesting(text);
  try {
    return nlohmann::json::parse(text, KeyTracker());
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann counts bytes read (1-based); the error index is the 0-based offset of the bad byte.
    const auto offset = e.byte > 0 ? static_cast<int64_t>(e.byte) - 1 : 0;
    throw InputError(Error{"input", offset, "malformed-json", e.what()});
  } catch (const nlohmann::json::exception& e) {
    // The parser also throws out_of_range (406: a number beyond double, "1e999"): no byte offset.
    throw InputError(Error{"input", -1, "malformed-json", e.what()});
  }
}

int64_t json_integer(const nlohmann::json& value, const std::string& field, int64_t index) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw InputError(Error{field, index, "out-of-range", "integer does not fit int64"});
    return static_cast<int64_t>(v);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  // nlohmann reads an integer beyond uint64 (18446744073709551616) as a double: it is an integer
  // that does not fit, not a wrong type. Integral doubles within range stay wrong-type.
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) >= 9223372036854775808.0)
      throw InputError(Error{field, index, "out-of-range", "integer does not fit int64"});
  }
  throw InputError(Error{field, index, "wrong-type", std::string("expected an integer, got ") + value.type_name()});
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string context)
    : object_(object), context_(std::move(context)) {
  if (!object_.is_object())
    throw InputError(Error{context_.empty() ? "input" : context_, -1, "wrong-type",
                           std::string("expected a JSON object, got ") + object_.type_name()});
}

void JsonObjectReader::fail(const std::string& field, int64_t index, const std::string& rule,
                            const std::string& message) const {
  throw InputError(Error{context_ + field, index, rule, message});
}

bool JsonObjectReader::has(const char* field) const { return object_.contains(field) && !object_.at(field).is_null(); }

const nlohmann::json& JsonObjectReader::lookup(const char* field, bool required) {
  used_.insert(field);
  if (!object_.contains(field)) {
    if (required) fail(field, -1, "missing", "required field is missing");
    static const nlohmann::json null_value;
    return null_value;
  }
  return object_.at(field);
}

int64_t JsonObjectReader::integer(const char* field) { return json_integer(lookup(field, true), context_ + field, -1); }

int64_t JsonObjectReader::bounded_integer(const char* field, int64_t lo, int64_t hi) {
  const int64_t v = integer(field);
  if (v < lo || v > hi)
    fail(field, -1, "out-of-range",
         std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

std::optional<int64_t> JsonObjectReader::optional_integer(const char* field) {
  const nlohmann::json& v = lookup(field, false);
  if (v.is_null()) return std::nullopt;
  return json_integer(v, context_ + field, -1);
}

double JsonObjectReader::number(const char* field) {
  const nlohmann::json& v = lookup(field, true);
  if (!v.is_number()) fail(field, -1, "wrong-type", std::string("expected a number, got ") + v.type_name());
  return v.get<double>();
}

bool JsonObjectReader::boolean(const char* field) {
  const nlohmann::json& v = lookup(field, true);
  if (!v.is_boolean()) fail(field, -1, "wrong-type", std::string("expected true or false, got ") + v.type_name());
  return v.get<bool>();
}

std::string JsonObjectReader::string(const char* field) {
  const nlohmann::json& v = lookup(field, true);
  if (!v.is_string()) fail(field, -1, "wrong-type", std::string("expected a string, got ") + v.type_name());
  return v.get<std::string>();
}

std::vector<int64_t> JsonObjectReader::integer_array(const char* field, bool required) {
  const nlohmann::json& v = lookup(field, required);
  std::vector<int64_t> out;
  if (v.is_null() && !required) return out;
  if (!v.is_array()) fail(field, -1, "wrong-type", std::string("expected an array of integers, got ") + v.type_name());
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) out.push_back(json_integer(v[i], context_ + field, static_cast<int64_t>(i)));
  return out;
}

std::vector<std::vector<int64_t>> JsonObjectReader::integer_matrix(const char* field, int64_t lo, int64_t hi,
                                                                   bool rectangular, bool required) {
  const nlohmann::json& v = lookup(field, required);
  std::vector<std::vector<int64_t>> out;
  if (v.is_null() && !required) return out;
  if (!v.is_array()) fail(field, -1, "wrong-type", std::string("expected an array of arrays, got ") + v.type_name());
  for (size_t r = 0; r < v.size(); ++r) {
    const auto row_index = static_cast<int64_t>(r);
    if (!v[r].is_array()) fail(field, row_index, "wrong-type", "row " + std::to_string(r) + " is not an array");
    if (rectangular && r > 0 && v[r].size() != v[0].size())
      fail(field, row_index, "wrong-shape",
           "row " + std::to_string(r) + " has " + std::to_string(v[r].size()) + " entries, row 0 has " +
               std::to_string(v[0].size()));
    std::vector<int64_t> row;
    row.reserve(v[r].size());
    for (size_t c = 0; c < v[r].size(); ++c) {
      const int64_t x = json_integer(v[r][c], context_ + field, row_index);
      if (x < lo || x > hi)
        fail(field, row_index, "out-of-range",
             "entry [" + std::to_string(r) + "][" + std::to_string(c) + "] = " + std::to_string(x) + " is outside [" +
                 std::to_string(lo) + ", " + std::to_string(hi) + "]");
      row.push_back(x);
    }
    out.push_back(std::move(row));
  }
  return out;
}

const nlohmann::json& JsonObjectReader::raw(const char* field) { return lookup(field, true); }

const nlohmann::json* JsonObjectReader::optional_raw(const char* field) {
  const nlohmann::json& v = lookup(field, false);
  return v.is_null() ? nullptr : &v;
}

void JsonObjectReader::reject_unknown_fields() const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (used_.count(it.key()) != 0) continue;
    // The empty key is named as written, "", so the error still names a field (finding 7).
    const std::string name = it.key().empty() ? "\"\"" : it.key();
    fail(name, -1, "unknown-field", "this field is not part of the schema (a typo?)");
  }
}

}  // namespace qsa::traces
