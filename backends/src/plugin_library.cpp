#include "qsa/backends/plugin_library.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

#include "adapter_support.hpp"
#include "worker_process.hpp"
#include <map>
#include <mutex>

namespace qsa::backends {
namespace {

Error plugin_error(const std::string& path, const std::string& rule, const std::string& message) {
  return Error{"plugin", -1, rule, path + ": " + message};
}

bool bad_range(const QsaPluginRange& r, int64_t lo) { return r.min < lo || r.max < r.min; }

// What the probe process tells its parent when the library loaded and its table validated.
constexpr char kProbeLoaded = 'L';

// Loads the library the way open() does, in a child process first: dlopen runs the
// library's constructors and open() calls its entry function and walks its variant table, and a
// plugin that aborts or calls exit() there, or declares more variants than its array holds, ended
// qsacheck, though docs/plugin-abi.md promises exit 2 and never a crash. The child reports success
// on a pipe before _exit (an exit() of the plugin's, status 0 included, says nothing there); any
// other end is the plugin's. The parent then loads it for real: the same steps, known to survive.
std::optional<Error> probe_in_a_child(const std::string& path) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return std::nullopt;  // no probe: load as before
  std::fflush(nullptr);  // the child must not flush the parent's buffered output a second time
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    forget_workers_in_child();  // a plugin's exit() runs the parent's atexit handlers here
    // qsacheck's out-of-memory handler prints the error line on the stdout this child shares; a
    // plugin that runs out while loading must end the probe instead (std::bad_alloc, uncaught).
    std::set_new_handler(nullptr);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      void* symbol = dlsym(handle, QSA_PLUGIN_ENTRY_NAME);
      if (symbol != nullptr) {
        QsaPluginEntry entry = nullptr;
        std::memcpy(&entry, &symbol, sizeof entry);
        if (const QsaPlugin* table = entry()) validate_plugin_table(*table, path);
      }
    }
    const char loaded = kProbeLoaded;  // failures that do not crash are open()'s to report
    if (write(pipe_fds[1], &loaded, 1) != 1) _exit(1);
    _exit(0);
  }
  close(pipe_fds[1]);
  char got = 0;
  ssize_t n;
  do n = read(pipe_fds[0], &got, 1);
  while (n < 0 && errno == EINTR);
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (n == 1 && got == kProbeLoaded) return std::nullopt;
  const std::string how = WIFSIGNALED(status) ? "died of signal " + std::to_string(WTERMSIG(status)) + " (" +
                                                    strsignal(WTERMSIG(status)) + ")"
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
  return plugin_error(path, "crashed-while-loading",
                      "loading it (its constructors, " + std::string(QSA_PLUGIN_ENTRY_NAME) +
                          "() and its table) in a probe process " + how +
                          ": an abort or exit() while loading, or a variant table shorter than num_variants");
}

}  // namespace

std::vector<Error> validate_plugin_table(const QsaPlugin& t, const std::string& path) {
  std::vector<Error> problems;
  auto problem = [&](const std::string& rule, const std::string& message) {
    problems.push_back(plugin_error(path, rule, message));
  };
  if (t.abi_major != QSA_PLUGIN_ABI_MAJOR) {
    problem("abi-version", "built for plugin ABI " + std::to_string(t.abi_major) + "." + std::to_string(t.abi_minor) +
                               ", this qsacheck loads ABI " + std::to_string(QSA_PLUGIN_ABI_MAJOR) + ".x");
    return problems;  // nothing else of a foreign layout can be read
  }
  if (t.struct_size < sizeof(QsaPlugin))
    problem("bad-table", "struct_size " + std::to_string(t.struct_size) + " < " + std::to_string(sizeof(QsaPlugin)));
  if (t.name == nullptr || *t.name == '\0') problem("bad-table", "the table has no name");
  if (t.spec_version == nullptr) problem("bad-table", "the table has no spec_version");
  if (t.create == nullptr) problem("missing-symbol", "the table has no create call");
  if (t.destroy == nullptr) problem("missing-symbol", "the table has no destroy call");
  if (t.build_metadata == nullptr) problem("missing-symbol", "the table has no build_metadata call");
  if (t.num_variants < 0 || (t.num_variants > 0 && t.variants == nullptr))
    problem("bad-table", "num_variants " + std::to_string(t.num_variants) + " without a variants array");
  // More than any plugin plants; the names below are compared pairwise, and past its array a
  // count's entries are whatever memory follows (the probe in open() survives that, not this).
  constexpr int32_t kMaxVariants = 4096;
  if (t.num_variants > kMaxVariants)
    problem("bad-table", "num_variants " + std::to_string(t.num_variants) + " is more than " +
                             std::to_string(kMaxVariants));
  for (int32_t i = 0; i < t.num_variants && t.num_variants <= kMaxVariants && t.variants != nullptr; ++i) {
    if (!is_variant_name(t.variants[i].name))
      problem("bad-table", "variant " + std::to_string(i) + " has no name of [A-Za-z0-9_.-]");
    for (int32_t k = 0; k < i; ++k)
      if (is_variant_name(t.variants[i].name) && is_variant_name(t.variants[k].name) &&
          std::strcmp(t.variants[i].name, t.variants[k].name) == 0)
        problem("bad-table", std::string("variant name \"") + t.variants[i].name + "\" appears twice");
  }
  const QsaPluginCapabilities* c = t.capabilities;
  if (c == nullptr) {
    problem("missing-capability", "the table has no capabilities");
    return problems;
  }
  // ABI 1.0's capabilities end where 1.1's constraints begin (docs/plugin-abi.md, versioning).
  constexpr size_t abi_1_0_size = offsetof(QsaPluginCapabilities, constraints);
  if (c->struct_size < abi_1_0_size) {
    problem("bad-table", "capabilities struct_size " + std::to_string(c->struct_size) + " < " +
                             std::to_string(abi_1_0_size) + " (ABI 1.0's)");
    return problems;
  }
  std::vector<std::string> declared;
  (void)read_declaration(*c, &declared);
  for (const std::string& why : declared) problem("bad-table", why);
  if (c->memory != QSA_PLUGIN_MEMORY_HOST && c->memory != QSA_PLUGIN_MEMORY_CUDA)
    problem("missing-capability", "capabilities.memory is " + std::to_string(c->memory) + ", not host (1) or CUDA (2)");
  if ((c->cache_kinds & 7u) == 0 || (c->cache_kinds & ~7u) != 0)
    problem("missing-capability", "capabilities.cache_kinds names no cache kind (or unknown bits)");
  const bool step = (c->features & QSA_PLUGIN_FEATURE_STEP_UPDATE) != 0;
  if (step && t.step_update == nullptr)
    problem("missing-symbol", "capabilities promise the step update but the table has no step_update call");
  if (!step && t.step_update != nullptr)
    problem("missing-capability", "the table has a step_update call but capabilities.features lacks STEP_UPDATE");
  if ((c->features & QSA_PLUGIN_FEATURE_STEP_USES_METADATA) != 0 && !step)
    problem("missing-capability", "STEP_USES_METADATA without STEP_UPDATE");
  if ((c->features & QSA_PLUGIN_FEATURE_STEP_USES_METADATA) != 0 &&
      (c->cache_kinds & (QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING)) !=
          (QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING))
    problem("missing-capability", "STEP_USES_METADATA needs the compressed and ring cache kinds");
  if ((c->store_dtypes & ~3u) != 0 || (step && (c->store_dtypes & 3u) == 0))
    problem("missing-capability", "capabilities.store_dtypes names no store dtype (or unknown bits)");
  const struct {
    const char* name;
    const QsaPluginRange& range;
    int64_t lo;
    bool needed;
  } ranges[] = {{"head_dim", c->head_dim, 32, step},
                {"rotary_dim", c->rotary_dim, 2, step},
                {"num_heads", c->num_heads, 1, step},
                {"compress_ratio", c->compress_ratio, 1, true},
                {"storage_block_size", c->storage_block_size, 1, (c->cache_kinds & QSA_PLUGIN_KIND_COMPRESSED) != 0},
                {"ring_capacity", c->ring_capacity, 1, (c->cache_kinds & QSA_PLUGIN_KIND_RING) != 0}};
  for (const auto& r : ranges)
    if (!r.needed && r.range.max < r.range.min)  // unused, but a table that says so is broken
      problem("bad-table", std::string("capabilities.") + r.name + " is [" + std::to_string(r.range.min) + ", " +
                               std::to_string(r.range.max) + "]: its minimum is above its maximum");
    else if (r.needed && bad_range(r.range, r.lo))
      problem("missing-capability", std::string("capabilities.") + r.name + " is [" + std::to_string(r.range.min) +
                                        ", " + std::to_string(r.range.max) + "]: empty or below " +
                                        std::to_string(r.lo));
  return problems;
}

PluginLibrary::PluginLibrary(std::string path, void* handle, const QsaPlugin* table)
    : path_(std::move(path)), handle_(handle), table_(table) {
  std::vector<std::string> problems;  // none: open() validated the table
  declaration_ = read_declaration(*table->capabilities, &problems);
}

PluginLibrary::~PluginLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::shared_ptr<PluginLibrary> PluginLibrary::open(const std::string& path, Error* error) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<PluginLibrary>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto existing = loaded[path].lock()) return existing;

  if (std::optional<Error> crashed = probe_in_a_child(path)) {
    *error = *crashed;
    return nullptr;
  }
  // RTLD_LOCAL: two plugins (or a plugin and qsacheck) may carry symbols of the same name.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = plugin_error(path, "unloadable", std::string("cannot load: ") + (why ? why : "dlopen failed"));
    return nullptr;
  }
  dlerror();
  void* symbol = dlsym(handle, QSA_PLUGIN_ENTRY_NAME);
  if (symbol == nullptr) {
    dlclose(handle);
    *error = plugin_error(path, "missing-symbol",
                          std::string("exports no ") + QSA_PLUGIN_ENTRY_NAME + " (is it a qsacheck plugin?)");
    return nullptr;
  }
  QsaPluginEntry entry = nullptr;
  static_assert(sizeof(entry) == sizeof(symbol), "function and data pointers differ in size");
  std::memcpy(&entry, &symbol, sizeof entry);
  const QsaPlugin* table = entry();
  if (table == nullptr) {
    dlclose(handle);
    *error = plugin_error(path, "bad-table", std::string(QSA_PLUGIN_ENTRY_NAME) + "() returned NULL");
    return nullptr;
  }
  const std::vector<Error> problems = validate_plugin_table(*table, path);
  if (!problems.empty()) {
    dlclose(handle);
    *error = problems.front();
    if (problems.size() > 1) error->message += " (and " + std::to_string(problems.size() - 1) + " more problems)";
    return nullptr;
  }
  std::shared_ptr<PluginLibrary> library(new PluginLibrary(path, handle, table));
  loaded[path] = library;
  return library;
}

std::vector<std::string> PluginLibrary::variant_names() const {
  std::vector<std::string> names;
  for (int32_t i = 0; i < table_->num_variants; ++i) names.emplace_back(table_->variants[i].name);
  return names;
}

bool PluginLibrary::has_variant(const std::string& name) const {
  for (int32_t i = 0; i < table_->num_variants; ++i)
    if (name == table_->variants[i].name) return true;
  return false;
}

std::optional<PluginName> parse_plugin_name(const std::string& backend_name) {
  const std::string prefix = kPluginPrefix;
  if (backend_name.compare(0, prefix.size(), prefix) != 0 || backend_name.size() == prefix.size()) return std::nullopt;
  std::string rest = backend_name.substr(prefix.size());
  PluginName name;
  const size_t hash = rest.rfind('#');
  if (hash != std::string::npos) {
    name.variant = rest.substr(hash + 1);
    rest.resize(hash);
  }
  name.path = rest;
  return name;
}

}  // namespace qsa::backends
