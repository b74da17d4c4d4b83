#pragma once
// Choosing backends by name on the command line.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backends/registry.hpp"

namespace qsa::cli {

/// The named backend, or nullptr with an error naming the choices or why it cannot run here.
std::unique_ptr<Backend> open_backend(const std::string& name, Error* error);

/// An instance of `name` on CUDA device `device` (-1: the backend's default), nullptr when the
/// name is unknown. Each worker of a parallel campaign owns one.
std::unique_ptr<Backend> create_backend(const std::string& name, int device);

/// Names to run: `requested`, or every visible backend that can run here (the others are added
/// to `unavailable` with the reason: not chosen, so not a check that failed to run).
std::vector<std::string> choose_backends(const std::vector<std::string>& requested,
                                         std::vector<std::string>* unavailable, Error* error);

}  // namespace qsa::cli
