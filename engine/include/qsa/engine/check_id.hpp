#pragma once
// The checks a finding names (docs/design.md, "The checking engine"): one scoped enum with one
// string form each, so that a test naming a check that does not exist does not compile. The
// strings are what reports, JUnit files and replay lines print.

#include <ostream>
#include <string>

namespace qsa::engine {

enum class Check {
  kMetadataStatus,            // "metadata-status": another status than the reference's
  kMetadataError,             // "metadata-error": another error (field, index, rule)
  kMetadataFault,             // "metadata-<rule>": the backend process failed (a worker crash, a hang)
  kMetadataUntouched,         // "metadata-untouched": output written on a rejected input (SPEC 1.4)
  kMetadataInvariant,         // "7.4-metadata-invariant"
  kMetadataDifferential,      // "metadata-differential": not the reference's metadata
  kStepMetadataDifferential,  // "step-metadata-differential": the metadata a step used
  kStepUpdateStatus,          // "step-update-status"
  kStepUpdateError,           // "step-update-error"
  kStepUpdateFault,           // "step-update-<rule>": the backend process failed
  kStepUpdateUntouched,       // "step-update-untouched": caches or q_out written on a rejected input
  kStepStatus,                // "step-status": another step status (SPEC 5) than the reference's
  kStepDifferential,          // "step-differential": not the reference's caches or q_out
  kQPath,                     // "q-path": the model oracle's Q path (SPEC 5, 6)
  kCompressedRow,             // "7.1-compressed-row": the model oracle's closed groups
  kRingOpenGroup,             // "7.2-ring-open-group": the model oracle's open group
  kStaleRowsVisible,          // "7.3-stale-rows-visible"
  kWrites,                    // "7.5-writes": bytes changed outside the rows a step may write
  kReference,                 // "reference": the reference itself rejected a step of the scenario
  kDigest,                    // "digest": a recorded trace's digest differs
  kScenario,                  // "scenario": the scenario contradicts SPEC 7 (no backend is at fault)
};

/// A check, and for a backend process's failure the rule it reported ("worker-crashed").
class CheckId {
 public:
  CheckId() = default;
  CheckId(Check check) : check_(check) {}  // NOLINT: a Check is a CheckId
  /// kMetadataFault or kStepUpdateFault with the failure's rule.
  static CheckId fault(Check operation_fault, std::string rule);

  Check check() const { return check_; }
  const std::string& rule() const { return rule_; }
  /// "7.5-writes", "step-update-worker-crashed": the one string form.
  std::string to_string() const;

  friend bool operator==(const CheckId& a, const CheckId& b) { return a.check_ == b.check_ && a.rule_ == b.rule_; }
  friend bool operator!=(const CheckId& a, const CheckId& b) { return !(a == b); }

 private:
  Check check_ = Check::kScenario;
  std::string rule_;
};

inline std::string to_string(const CheckId& id) { return id.to_string(); }
inline std::ostream& operator<<(std::ostream& os, const CheckId& id) { return os << id.to_string(); }

}  // namespace qsa::engine
