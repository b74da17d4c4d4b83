// The field and rule tables (qsa/input_fields.hpp) against the contract's own text, docs/spec.md:
// every input its sections 1.1 and 5 name has a row, and every field and rule identifier of 1.4 is
// in the rule table. A field the SPEC adds, or one the table drops, fails here.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "qsa/input_fields.hpp"
#include "qsa/validate.hpp"

namespace qsa {
namespace {

std::string spec_text() {
  const std::string path = std::string(QSA_SOURCE_DIR) + "/docs/spec.md";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text of the section whose heading line starts with `heading`, up to the next heading.
std::string section(const std::string& spec, const std::string& heading) {
  const size_t start = spec.find("\n" + heading);
  if (start == std::string::npos) throw std::runtime_error("docs/spec.md has no section " + heading);
  const size_t body = spec.find('\n', start + 1);
  const size_t end = spec.find("\n#", body);
  return spec.substr(body, end == std::string::npos ? std::string::npos : end - body);
}

std::set<std::string> spec_names_of(const std::string& clause) {
  std::set<std::string> out;
  for (const InputField& f : input_fields())
    if (clause == f.clause) out.insert(f.spec_name);
  return out;
}

TEST(InputFields, TheTableNamesEveryInputOfSpecSection1_1) {
  // The first cell of each row of 1.1's table: "`query_start_loc` (qsl)" names query_start_loc.
  const std::string text = section(spec_text(), "### 1.1");
  std::set<std::string> named;
  std::istringstream lines(text);
  const std::regex first_cell(R"(^\|\s*(`([a-z_]+)`|([A-Za-z]+))[^|]*\|)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (line.rfind("| input", 0) == 0 || line.rfind("|---", 0) == 0) continue;
    if (std::regex_search(line, m, first_cell)) named.insert(m[2].matched ? m[2].str() : m[3].str());
  }
  ASSERT_GE(named.size(), 6u) << "could not read 1.1's table from docs/spec.md";
  EXPECT_EQ(named, spec_names_of("1.1")) << "docs/spec.md 1.1's inputs and the field table differ";
}

TEST(InputFields, TheTableNamesEveryInputOfSpecSection5) {
  // 5's inputs paragraph: "Inputs besides the metadata ... (...): key rows `k` bf16 [N, D]; ...;
  // the store dtype." Each ';'-separated item must be claimed by a field, and each section-5
  // field's phrase must occur in the paragraph.
  const std::string text = section(spec_text(), "## 5.");
  const size_t begin = text.find("Inputs besides");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = text.find(". For each request", begin);
  ASSERT_NE(end, std::string::npos);
  std::string paragraph = text.substr(begin, end - begin);
  for (char& c : paragraph)
    if (c == '\n') c = ' ';
  for (const std::string& phrase : spec_names_of("5"))
    EXPECT_NE(paragraph.find(phrase), std::string::npos) << "'" << phrase << "' is not in SPEC 5's inputs";
  const size_t list = paragraph.find("): ");
  ASSERT_NE(list, std::string::npos);
  std::istringstream items(paragraph.substr(list + 3));
  int count = 0;
  for (std::string item; std::getline(items, item, ';'); ++count) {
    bool claimed = false;
    for (const std::string& phrase : spec_names_of("5")) claimed = claimed || item.find(phrase) != std::string::npos;
    EXPECT_TRUE(claimed) << "SPEC 5's input '" << item << "' has no row in the field table";
  }
  EXPECT_GE(count, 9) << "could not split SPEC 5's inputs";
}

TEST(InputFields, EveryIdentifierOfSpecSection1_4IsInTheRuleTable) {
  const std::string text = section(spec_text(), "### 1.4");
  std::set<std::string> known = {"field", "index", "rule"};  // the error's own parts
  for (const RuleInfo& r : kRuleTable) {
    known.insert(r.field);
    known.insert(r.rule);
  }
  const std::regex identifier("`([a-z_][a-z0-9_-]*)`");
  int count = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), identifier), end; it != end; ++it, ++count)
    EXPECT_TRUE(known.count((*it)[1].str())) << "SPEC 1.4 names `" << (*it)[1] << "`, the rule table does not";
  EXPECT_GE(count, 20);
}

TEST(InputFields, EveryRuleJudgesAFieldOfTheTable) {
  for (const RuleInfo& r : kRuleTable) {
    if (std::string(r.field) == "slots") continue;  // the metadata's slots, derived, not an input
    EXPECT_NE(input_field(r.field), nullptr) << r.field << "/" << r.rule;
  }
  // The breakable rules are the metadata field rules of 1.4's list, after the kind.
  EXPECT_EQ(kNumBreakableRules, 16);
  EXPECT_EQ(breakable_rule(0), Rule::kCompressRatioOutOfRange);
  EXPECT_EQ(breakable_rule(kNumBreakableRules - 1), Rule::kBlockTableTooFewRows);
  EXPECT_EQ(breakable_rule(kNumBreakableRules), Rule::kCount);
}

TEST(InputFields, ValidateReportsTheStringsOfItsRuleRow) {
  MetadataInput in;
  in.cache.kind = CacheKind::kPassthrough;
  in.batch.query_start_loc = {0, 3, 2};
  in.batch.seq_lens = {3, 0};
  in.batch.num_actual_tokens = 3;
  in.batch.common_slot_mapping = {-1, -1, -1};
  Error error;
  ASSERT_EQ(validate(in, &error), Status::kInvalidInput);
  EXPECT_EQ(rule_of(error), Rule::kQueryStartLocDecreasing) << error;
  EXPECT_EQ(error.field, "query_start_loc");
  EXPECT_EQ(error.rule, "decreasing");
  EXPECT_EQ(rule_of(Error{"query_start_loc", 0, "no-such-rule", ""}), Rule::kCount);
}

TEST(InputFields, RoleDomainsKeepSpecSection1_4AndTheQueryPath) {
  // Padding rows: common slots negative (rule 5) and inert; queries and positions matter (q_out
  // covers every row); keys inert (no cache write).
  const InputField* slots = input_field("common_slot_mapping");
  ASSERT_NE(slots, nullptr);
  EXPECT_EQ(slots->roles[static_cast<int>(RowRole::kPadding)].use, Use::kInert);
  EXPECT_NE(std::string(slots->roles[static_cast<int>(RowRole::kPadding)].legal).find("negative"), std::string::npos);
  EXPECT_EQ(input_field("queries")->roles[static_cast<int>(RowRole::kPadding)].use, Use::kMatters);
  EXPECT_EQ(input_field("positions")->roles[static_cast<int>(RowRole::kPadding)].use, Use::kMatters);
  EXPECT_EQ(input_field("keys")->roles[static_cast<int>(RowRole::kPadding)].use, Use::kInert);
  // Every field has a live domain; the roles with no element say so.
  for (const InputField& f : input_fields()) {
    EXPECT_NE(f.roles[static_cast<int>(RowRole::kLive)].use, Use::kNone) << f.name;
    for (const RoleDomain& d : f.roles) EXPECT_EQ(d.use == Use::kNone, d.legal[0] == '\0') << f.name;
  }
}

}  // namespace
}  // namespace qsa
