#include "qsa/engine/replay_command.hpp"

#include <vector>

#include "qsa/traces/shell_words.hpp"

namespace qsa::engine {

std::string replay_command(const std::string& backend, const std::string& file,
                           const traces::FloatTolerance& tolerance) {
  std::vector<std::string> words = {"qsacheck", "replay", "--backend", backend};
  if (!tolerance.exact()) {
    words.push_back("--float-tolerance");
    words.push_back(tolerance.to_string());
  }
  words.push_back(file);
  return traces::shell_words(words);
}

}  // namespace qsa::engine
