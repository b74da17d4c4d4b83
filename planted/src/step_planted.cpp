#include "step_planted.hpp"

#include "metadata_planted.hpp"

#include "qsa/cuda/cuda_backend.hpp"

namespace qsa::planted {

const std::vector<PlantedStepBug>& planted_step_bugs() {
  static const std::vector<PlantedStepBug> bugs = {
      {kCommitBeforeRead, "commit-before-read", "item (j, 0) commits the ring suffix before pooling its first group",
       ""},
      {kRingOneRowShort, "ring-one-row-short", "ring rows addressed by position mod (R - 1): one row fewer than SPEC 3",
       ""},
      {kWrongMropeAxis, "wrong-mrope-axis", "MRoPE axis selection with h and w swapped", "mrope"},
      {kFp8NoSaturation, "fp8-no-saturation", "fp8 store without saturation: beyond +-448 becomes NaN", "fp8"},
      {kRingBlockUnchecked, "ring-block-bound-unchecked",
       "no bound check on the ring block: a block past the cache is read and written", "ring-block-past-cache"},
      {kQOutSkipsPadding, "q-out-skips-padding", "the Q path covers M = qsl[NR] rows, leaving padding rows unwritten",
       ""},
      {kReversedTree, "sum-of-squares-other-tree",
       "cross-lane sum of squares with its xor offsets reversed (lanes/2 down to 1): not SPEC 6's tree", "many-rows"},
      {kGroupPositionIgnoresTail, "group-position-ignores-ring-tail",
       "group rotated at (gC, gC, gC) although the ring caches positions", "mrope"},
      {kSkipsGridWait, "skips-grid-wait",
       "launched with PDL but without griddepcontrol.wait: reads the k-work before the metadata kernel writes it",
       "pdl"},
  };
  return bugs;
}

std::unique_ptr<Backend> make_planted_step_backend(const PlantedStepBug& bug) {
  const StepBug which = bug.bug;
  auto backend = std::make_unique<cuda::CudaBackend>(
      "cuda-planted-step-" + bug.name,
      [](const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
        return cuda::launch_metadata(args, stream, error);
      },
      [which](const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
        return launch_planted_step_update(which, args, stream, error);
      });
  if (bug.needs == "pdl") {
    backend->set_programmatic_launch(true);
    backend->set_chain_metadata_launcher(launch_held_metadata);  // the early read is certain, not a race
  }
  return backend;
}

std::unique_ptr<Backend> make_held_metadata_pdl_backend() {
  auto backend = std::make_unique<cuda::CudaBackend>(
      kHeldMetadataPdlBackend, [](const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
        return cuda::launch_metadata(args, stream, error);
      });
  backend->set_programmatic_launch(true);
  backend->set_chain_metadata_launcher(launch_held_metadata);
  return backend;
}

}  // namespace qsa::planted
