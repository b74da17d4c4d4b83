#pragma once
// What a plugin's or worker's declared capabilities and constraints admit (include/qsacheck/plugin.h,
// docs/production-kernels.md): one function per call that names the first capability or
// constraint an input needs and the kernel lacks, and a readable description of the whole set for
// `qsacheck backends` and the reports.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qsa/declared_limits.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"
#include "qsa/types.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

/// The constraints of plugin ABI 1.1 (QsaPluginConstraints) and the worker protocol's version 2,
/// owned: limits beyond the ranges that a kernel declares as data (docs/production-kernels.md).
struct KernelConstraints {
  std::array<bool, QSA_PLUGIN_NUM_PARAMS> power_of_two{};          // by QsaPluginParameter
  std::array<std::vector<int64_t>, QSA_PLUGIN_NUM_PARAMS> values;  // by QsaPluginParameter; empty: any
  bool rotary_dim_is_half_head_dim = false;                        // rd = D / 2
  std::vector<std::pair<int64_t, int64_t>> head_dims;              // admitted (D, rd); empty: any
  int64_t max_requests = 0;  // NR at most; 0: no constraint
  int64_t max_tokens = 0;    // N at most
  int64_t max_slot = 0;      // every common slot and computed slot at most
  int64_t max_block_id = 0;  // every block-table entry a batch uses at most

  bool empty() const;
};

/// Everything a plugin or worker declares: the ABI 1.0 capabilities (kinds, dtypes, features,
/// ranges; any 1.1 fields zeroed), the constraints and the deviations.
struct KernelDeclaration {
  QsaPluginCapabilities capabilities{};
  KernelConstraints constraints;
  Deviations deviations;
};

/// The parameter names of QsaPluginParameter: "head_dim", "rotary_dim", "num_heads",
/// "compress_ratio", "storage_block_size", "ring_capacity".
const char* parameter_name(int parameter);

/// The most values a value set or (D, rd) list may declare.
inline constexpr int32_t kMaxDeclaredValues = 4096;

/// A plugin's table read as the ABI version it was built with: only what `caps.struct_size`
/// covers (a 1.0 plugin declares no constraints). Problems (a value set's count out of range, a
/// NULL array, unknown bits) are appended to *problems as text; the result is then not to be used.
KernelDeclaration read_declaration(const QsaPluginCapabilities& caps, std::vector<std::string>* problems);

/// The capability or constraint a metadata build of `input` needs and the kernel lacks (e.g.
/// "cache kind ring", "compress_ratio 6 (it declares powers of two only)"), or nullopt when the
/// kernel admits it.
std::optional<std::string> missing_for_metadata(const KernelDeclaration& kernel, const MetadataInput& input);

/// The same for a step update on these caches (both groups' metadata included).
std::optional<std::string> missing_for_step(const KernelDeclaration& kernel, const StepInput& input,
                                            const StepCaches& caches);

/// What a campaign can avoid by drawing a scenario again: the declared ranges, constraints, dtypes
/// and features of a step's geometry (nothing when the kernel has no step update, whose every step
/// is declined alike), for every step of a scenario of this geometry ...
std::optional<std::string> missing_for_geometry(const KernelDeclaration& kernel, const StepGeometry& geometry);
/// ... and for one step: its geometry and the declared maxima of its batch, tables and slots (not
/// the cache kinds or the step update, which no draw changes).
std::optional<std::string> excluded_step(const KernelDeclaration& kernel, const StepInput& input,
                                         const StepCaches& caches);

/// (name, value) pairs in a fixed order: "memory" -> "cuda", "head_dim" -> "[32, 512]", ...,
/// then each declared constraint and deviation.
std::vector<std::pair<std::string, std::string>> describe_capabilities(const KernelDeclaration& kernel);
/// Only the constraints and deviations (empty when it declares none).
std::vector<std::pair<std::string, std::string>> describe_constraints(const KernelDeclaration& kernel);

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
