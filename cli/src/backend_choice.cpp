#include "backend_choice.hpp"

#include <algorithm>

namespace qsa::cli {

std::unique_ptr<Backend> open_backend(const std::string& name, Error* error) {
  auto backend = BackendRegistry::global().create(name);
  if (!backend) {
    std::string choices;
    for (const auto& n : BackendRegistry::global().names()) choices += (choices.empty() ? "" : ", ") + n;
    *error = Error{"backend", -1, "unknown-backend",
                   "\"" + name + "\" is not one of: " + choices +
                       " (or a planted bug listed by `qsacheck mutants --list`, or plugin:PATH.so[#VARIANT])"};
    return nullptr;
  }
  std::string reason;
  if (backend->probe(&reason) != Status::kOk) {
    *error = Error{"backend", -1, "unavailable", name + " cannot run here: " + reason};
    return nullptr;
  }
  return backend;
}

std::unique_ptr<Backend> create_backend(const std::string& name, int device) {
  return device < 0 ? BackendRegistry::global().create(name) : BackendRegistry::global().create_on_device(name, device);
}

std::vector<std::string> choose_backends(const std::vector<std::string>& requested,
                                         std::vector<std::string>* unavailable, Error* error) {
  std::vector<std::string> chosen;
  if (!requested.empty()) {
    const std::vector<std::string> built_in = BackendRegistry::global().names(/*include_hidden=*/true);
    for (const std::string& name : requested) {
      if (!open_backend(name, error)) {
        // A built-in backend this machine cannot run (cuda without a GPU) is not run (exit 3), not
        // bad input: the same command is right on another machine (docs/decisions.md).
        if (error->rule != "unavailable" || std::find(built_in.begin(), built_in.end(), name) == built_in.end())
          return {};
        unavailable->push_back(error->message);
        continue;
      }
      chosen.push_back(name);
    }
    return chosen;
  }
  for (const std::string& name : BackendRegistry::global().names()) {
    auto backend = BackendRegistry::global().create(name);
    std::string reason;
    if (backend->probe(&reason) == Status::kOk)
      chosen.push_back(name);
    else
      unavailable->push_back(name + ": " + reason);
  }
  return chosen;
}

}  // namespace qsa::cli
