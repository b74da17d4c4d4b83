#pragma once
// What a plugin's declared capabilities admit (include/qsacheck/plugin.h): one function per
// call that names the first capability an input needs and the plugin lacks, and a readable
// description of the whole set for `qsacheck backends`.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qsa/status.hpp"
#include "qsa/step_types.hpp"
#include "qsa/types.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

/// The capability a metadata build of `input` needs and `caps` lacks (e.g. "cache kind ring"),
/// or nullopt when the plugin admits it.
std::optional<std::string> missing_for_metadata(const QsaPluginCapabilities& caps, const MetadataInput& input);

/// The same for a step update on these caches (both groups' metadata included).
std::optional<std::string> missing_for_step(const QsaPluginCapabilities& caps, const StepInput& input,
                                            const StepCaches& caches);

/// (name, value) pairs in a fixed order: "memory" -> "cuda", "head_dim" -> "[32, 512]", ...
std::vector<std::pair<std::string, std::string>> describe_capabilities(const QsaPluginCapabilities& caps);

/// A failed call (a plugin's code and error, or a worker's reply mapped to them) as a Status and
/// Error: INVALID_INPUT keeps field, index and rule; UNSUPPORTED on an input the capabilities
/// admit is a fault (rule "declined-admitted-input"); `call` names it ("build_metadata").
Status failed_call_status(int32_t code, const QsaPluginError& e, const std::string& name, const char* call,
                          Error* error);

/// True when the table is stored other than dense row-major (SPEC 1.1 strides).
bool is_strided(const BlockTable& table);
/// True when a cache has padding between rows or blocks (SPEC 4).
bool is_padded(const CacheLayout& layout);

}  // namespace qsa::backends
