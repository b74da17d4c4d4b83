#pragma once
// The exception every reader of user input throws (JSON, scenario files, request logs, benchmark
// records, command-line options): a SPEC-style Error naming the field, the index and the rule, which
// the commands print as their one JSON line with exit 2. It lives beside Error so that any layer can
// throw and catch it without linking the layer that reads the input.

#include <stdexcept>
#include <utility>

#include "qsa/status.hpp"

namespace qsa {

class InputError : public std::runtime_error {
 public:
  explicit InputError(Error error) : std::runtime_error(to_string(error)), error_(std::move(error)) {}
  const Error& error() const { return error_; }

 private:
  Error error_;
};

}  // namespace qsa
