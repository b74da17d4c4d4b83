// The main() of a fuzz target built without libFuzzer (g++, the normal presets): runs each given
// file, or every file of each given directory (sorted by name, not recursive, skipping dotfiles
// and the `.note` files beside reproducers), through LLVMFuzzerTestOneInput, and prints what it ran.
// Arguments that start with '-' are ignored, so a libFuzzer command line also works.
//
// Exit: 0 everything ran; 77 nothing to run (an empty regressions folder: CTest shows the test
// as skipped); 2 a path cannot be read. A finding traps inside the target (fuzz_support.hpp), so
// the process dies with the finding printed and CTest reports a failure.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

bool runnable(const fs::path& path) {
  const std::string name = path.filename().string();
  return !name.empty() && name[0] != '.' && path.extension() != ".note";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(arg, ec))
        if (entry.is_regular_file() && runnable(entry.path())) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(arg, ec)) {
      inputs.emplace_back(arg);
    } else {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], arg.c_str());
      return 2;
    }
  }
  if (inputs.empty()) {
    std::printf("%s: nothing to run (no input files given or found)\n", argv[0]);
    return 77;
  }
  const auto start = std::chrono::steady_clock::now();
  size_t bytes = 0;
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], path.c_str());
      return 2;
    }
    const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "running %s (%zu bytes)\n", path.c_str(), data.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    bytes += data.size();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: ran %zu inputs (%zu bytes) in %.2f s, no finding\n", argv[0], inputs.size(), bytes, seconds);
  return 0;
}
