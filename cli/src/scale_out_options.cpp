#include "scale_out_options.hpp"

#include <set>

#include "number_options.hpp"
#include "qsa/input_error.hpp"

namespace qsa::cli {

ShardSpec parse_shard_option(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos)
    throw InputError(
        Error{"--shard", -1, "not-a-shard", "'" + text.substr(0, 40) + "' is not K/N (shard K of N, e.g. 2/4)"});
  ShardSpec shard;
  shard.count = parse_integer_option("--shard", text.substr(slash + 1), 1, int64_t{1} << 16);
  shard.index = parse_integer_option("--shard", text.substr(0, slash), 1, shard.count);
  return shard;
}

std::vector<int> parse_devices_option(const std::string& text, int available) {
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < available; ++d) devices.push_back(d);
    if (devices.empty())
      throw InputError(Error{"--devices", -1, "no-device", "--devices all: this machine has no CUDA device"});
    return devices;
  }
  std::set<int> seen;
  size_t from = 0;
  for (int64_t position = 0;; ++position) {
    const size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    int64_t device = 0;
    try {
      device = parse_integer_option("--devices", item, 0, 1023);
    } catch (const InputError& e) {
      Error error = e.error();
      error.index = position;
      throw InputError(error);
    }
    if (!seen.insert(static_cast<int>(device)).second)
      throw InputError(
          Error{"--devices", position, "duplicate", "device " + item + " is listed twice; list each device once"});
    devices.push_back(static_cast<int>(device));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  // The list is read whole first, so a typo is named before what this machine lacks.
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i] >= available)
      throw InputError(Error{"--devices", static_cast<int64_t>(i), "no-device",
                                     "device " + std::to_string(devices[i]) + " does not exist: this machine has " +
                                         std::to_string(available) + " CUDA device(s)"});
  return devices;
}

}  // namespace qsa::cli
