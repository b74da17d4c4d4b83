// The replay line every entry point prints (engine/replay_command.hpp) is read back by a POSIX
// shell into the very words it was made of, whatever a worker backend's name holds.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "qsa/engine/replay_command.hpp"

namespace qsa::engine {
namespace {

// The words /bin/sh reads from `line` (its command word replaced by printf), one per line: the
// line is run from a script file, so nothing quotes it a second time.
std::vector<std::string> words_of(const std::string& line) {
  char script[] = "/tmp/qsa-replay-line-XXXXXX";
  const int fd = mkstemp(script);
  if (fd < 0) return {};
  const std::string text = "printf '%s\\n'" + line.substr(line.find(' ')) + "\n";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  std::vector<std::string> words;
  FILE* shell = written ? popen(("/bin/sh " + std::string(script)).c_str(), "r") : nullptr;
  if (shell != nullptr) {
    std::string current;
    for (int c; (c = std::fgetc(shell)) != EOF;) {
      if (c != '\n') {
        current += static_cast<char>(c);
        continue;
      }
      words.push_back(current);
      current.clear();
    }
    pclose(shell);
  }
  unlink(script);
  return words;
}

TEST(ReplayCommand, AShellReadsBackEveryWordOfAWorkersName) {
  const std::string worker = "worker:python3 '/tmp/a b'\\''c/w.py' --bug \"x\" $HOME `id`";
  const std::string line = replay_command(worker, "qsacheck repro 1.scenario");
  EXPECT_EQ(words_of(line), (std::vector<std::string>{"replay", "--backend", worker, "qsacheck repro 1.scenario"}))
      << line;
}

TEST(ReplayCommand, NamesTheToleranceUnlessExact) {
  EXPECT_EQ(replay_command("reference", "r.scenario"), "qsacheck replay --backend reference r.scenario");
  const traces::FloatTolerance tolerance{traces::FloatTolerance::Mode::kRowUlp, 2};
  EXPECT_EQ(words_of(replay_command("plugin:/p q/k.so", "r.scenario", tolerance)),
            (std::vector<std::string>{"replay", "--backend", "plugin:/p q/k.so", "--float-tolerance", "row-ulp:2",
                                      "r.scenario"}));
}

}  // namespace
}  // namespace qsa::engine
