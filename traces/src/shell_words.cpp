#include "qsa/traces/shell_words.hpp"

namespace qsa::traces {
namespace {

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string("_./:=@%+,-").find(c) != std::string::npos;
}

}  // namespace

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty();
    for (char c : word) plain = plain && is_plain(c);
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace qsa::traces
