#pragma once
// Choosing backends by name on the command line.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend.hpp"

namespace qsa::cli {

/// Registers every backend this binary can reach: the built-in ones and the planted bugs (hidden).
void register_all_backends();

/// The named backend, or nullptr with an error naming the choices or why it cannot run here.
std::unique_ptr<Backend> open_backend(const std::string& name, Error* error);

/// Names to run: `requested`, or every visible backend that can run here (the others are added
/// to `unavailable` with the reason: not chosen, so not a check that failed to run).
std::vector<std::string> choose_backends(const std::vector<std::string>& requested,
                                         std::vector<std::string>* unavailable, Error* error);

}  // namespace qsa::cli
