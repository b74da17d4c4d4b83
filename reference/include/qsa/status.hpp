#pragma once
// Status codes and error details returned by every library call (no exceptions cross the API).

#include <cstdint>
#include <ostream>
#include <string>

namespace qsa {

enum class Status {
  kOk,
  kInvalidInput,    // validate() rejected the input; Error says field, index and rule
  kNotImplemented,  // the backend does not provide this operation
  kUnavailable,     // the backend cannot run here (e.g. no CUDA device)
  kDeviceError,     // a CUDA call failed
  kInternalError,
};

const char* to_string(Status status);
std::ostream& operator<<(std::ostream& os, Status status);

/// Why a call failed. For kInvalidInput: `field` is the input name of SPEC 1.4, `index` the first
/// offending element (-1 when the field is a scalar or the whole field is wrong) and `rule` one of
/// the identifiers of SPEC 1.4 (or of docs/decisions.md for the rules we added).
struct Error {
  std::string field;
  int64_t index = -1;
  std::string rule;
  std::string message;

  bool operator==(const Error& other) const {
    return field == other.field && index == other.index && rule == other.rule;
  }
  bool operator!=(const Error& other) const { return !(*this == other); }
};

std::string to_string(const Error& error);
std::ostream& operator<<(std::ostream& os, const Error& error);

/// Fills *error (when non-null) and returns kInvalidInput; the one way validators report.
Status invalid(Error* error, std::string field, int64_t index, std::string rule, std::string message);

}  // namespace qsa
