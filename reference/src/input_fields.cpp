#include "qsa/input_fields.hpp"

#include <iterator>
#include <utility>

namespace qsa {
Status invalid(Error* error, Rule rule, int64_t index, std::string message) {
  const RuleInfo& row = rule_info(rule);
  return invalid(error, row.field, index, row.rule, std::move(message));
}

Rule rule_of(const Error& error) {
  for (const RuleInfo& row : kRuleTable)
    if (error.field == row.field && error.rule == row.rule) return row.which;
  return Rule::kCount;
}

const char* to_string(RowRole role) {
  switch (role) {
    case RowRole::kLive:
      return "live";
    case RowRole::kPadding:
      return "padding";
    case RowRole::kRejectedDraft:
      return "rejected_draft";
    case RowRole::kZeroLengthRequest:
      return "zero_length_request";
    case RowRole::kRequestPastNr:
      return "request_past_nr";
    case RowRole::kColumnPastW:
      return "column_past_w";
    case RowRole::kCount:
      break;
  }
  return "unknown";
}

const char* to_string(Use use) {
  switch (use) {
    case Use::kNone:
      return "-";
    case Use::kMatters:
      return "matters";
    case Use::kInert:
      return "inert";
  }
  return "unknown";
}

const std::vector<InputField>& input_fields() {
  static const std::vector<InputField> fields(std::begin(kFieldTable), std::end(kFieldTable));
  return fields;
}

const InputField* input_field(const std::string& name) {
  for (const InputField& f : input_fields())
    if (name == f.name) return &f;
  return nullptr;
}

std::vector<Rule> rules_of_field(const std::string& name) {
  std::vector<Rule> out;
  for (const RuleInfo& row : kRuleTable)
    if (name == row.field) out.push_back(row.which);
  return out;
}

}  // namespace qsa
