#include "qsa/engine/check_id.hpp"

#include <utility>

namespace qsa::engine {

CheckId CheckId::fault(Check operation_fault, std::string rule) {
  CheckId id(operation_fault);
  id.rule_ = std::move(rule);
  return id;
}

std::string CheckId::to_string() const {
  switch (check_) {
    case Check::kMetadataStatus: return "metadata-status";
    case Check::kMetadataError: return "metadata-error";
    case Check::kMetadataFault: return "metadata-" + rule_;
    case Check::kMetadataUntouched: return "metadata-untouched";
    case Check::kMetadataInvariant: return "7.4-metadata-invariant";
    case Check::kMetadataDifferential: return "metadata-differential";
    case Check::kStepMetadataDifferential: return "step-metadata-differential";
    case Check::kStepUpdateStatus: return "step-update-status";
    case Check::kStepUpdateError: return "step-update-error";
    case Check::kStepUpdateFault: return "step-update-" + rule_;
    case Check::kStepUpdateUntouched: return "step-update-untouched";
    case Check::kStepStatus: return "step-status";
    case Check::kStepDifferential: return "step-differential";
    case Check::kQPath: return "q-path";
    case Check::kCompressedRow: return "7.1-compressed-row";
    case Check::kRingOpenGroup: return "7.2-ring-open-group";
    case Check::kStaleRowsVisible: return "7.3-stale-rows-visible";
    case Check::kWrites: return "7.5-writes";
    case Check::kReference: return "reference";
    case Check::kDigest: return "digest";
    case Check::kScenario: return "scenario";
  }
  return "unknown-check";
}

}  // namespace qsa::engine
