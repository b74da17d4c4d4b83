#pragma once
// The options that spread a campaign (--shard K/N, --devices LIST; docs/scale-out.md), parsed into
// the engine's settings.

#include <string>
#include <vector>

#include "qsa/engine/campaign_settings.hpp"

namespace qsa::cli {

using engine::ShardSpec;

/// Parses "K/N"; throws InputError {field "--shard", rule "not-a-shard" or "out-of-range"}.
ShardSpec parse_shard_option(const std::string& text);

/// Parses "0,1,3" or "all" against `available` devices; throws InputError {field "--devices",
/// index: the list position, rule "not-an-integer", "out-of-range", "duplicate" or "no-device"}.
std::vector<int> parse_devices_option(const std::string& text, int available);

}  // namespace qsa::cli
