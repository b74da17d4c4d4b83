#include "qsa/status.hpp"

#include <sstream>
#include <utility>

namespace qsa {

const char* to_string(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kInvalidInput:
      return "invalid-input";
    case Status::kNotImplemented:
      return "not-implemented";
    case Status::kUnavailable:
      return "unavailable";
    case Status::kDeviceError:
      return "device-error";
    case Status::kInternalError:
      return "internal-error";
  }
  return "unknown-status";
}

std::ostream& operator<<(std::ostream& os, Status status) { return os << to_string(status); }

std::string to_string(const Error& error) {
  std::ostringstream os;
  os << error;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Error& error) {
  os << error.field;
  if (error.index >= 0) os << "[" << error.index << "]";
  os << ": " << error.rule;
  if (!error.message.empty()) os << " (" << error.message << ")";
  return os;
}

Status invalid(Error* error, std::string field, int64_t index, std::string rule, std::string message) {
  if (error != nullptr) {
    error->field = std::move(field);
    error->index = index;
    error->rule = std::move(rule);
    error->message = std::move(message);
  }
  return Status::kInvalidInput;
}

}  // namespace qsa
