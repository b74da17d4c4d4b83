#pragma once
// The fused step-update kernel with one realistic bug planted (step_update_row_teams_kernel with a
// policy of cuda/step_policies.cuh), wrapped as a backend. The GPU scenario differential must catch
// every one of them (properties/step_update_planted_bugs_test.cpp). Private to planted/.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/cuda/step_update.hpp"

namespace qsa::planted {

/// The planted step-update kernels, each a policy of cuda/step_policies.cuh of the same name
/// without the k (kNoBug: the shipped StepPolicy).
enum StepBug : int {
  kNoBug = 0,
  kCommitBeforeRead,          // item (j, 0) commits the ring suffix before pooling its group
  kRingOneRowShort,           // ring rows addressed by position mod (R - 1)
  kWrongMropeAxis,            // h and w swapped in the MRoPE axis selection
  kFp8NoSaturation,           // fp8 store without saturation (beyond +-448 -> NaN)
  kRingBlockUnchecked,        // no bound check on the ring block: a block past the cache is read and written
  kQOutSkipsPadding,          // the Q path stops at M = qsl[NR] rows, padding rows unwritten
  kReversedTree,              // the cross-lane sum of squares with offsets kLanes/2 .. 1: another tree
  kGroupPositionIgnoresTail,  // the group rotated at (gC, gC, gC) although the ring caches positions
  kSkipsGridWait,             // no griddepcontrol.wait: under PDL it reads the metadata before it is written
};

struct PlantedStepBug {
  StepBug bug;
  std::string name;         // e.g. "commit-before-read"
  std::string description;  // what the bug does, in one line
  std::string needs;  // the scenario feature that shows it: "", "mrope", "fp8", "ring-block-past-cache", "many-rows",
                      // "pdl" (the backend's metadata and step launches back to back with PDL)
};

/// Every planted variant (kNoBug excluded). Built for D = 32 and D = 128 only.
const std::vector<PlantedStepBug>& planted_step_bugs();

/// Launches the given variant exactly as launch_step_update launches the production kernel.
Status launch_planted_step_update(StepBug bug, const cuda::StepUpdateDeviceArgs& args,
                                  cudaStream_t stream, Error* error);

/// A CudaBackend named "cuda-planted-step-<name>" whose step update launches the variant. The
/// "pdl" variant runs with PDL behind launch_held_metadata.
std::unique_ptr<Backend> make_planted_step_backend(const PlantedStepBug& bug);

/// The control of the "pdl" variant: the shipped step kernel with PDL behind launch_held_metadata,
/// which must pass (its wait is what orders it).
inline constexpr const char* kHeldMetadataPdlBackend = "cuda-pdl-behind-held-metadata";
std::unique_ptr<Backend> make_held_metadata_pdl_backend();

}  // namespace qsa::planted
