#pragma once
// Random metadata inputs that break one validation rule of SPEC 1.4 (a generated valid batch with
// one field corrupted), for `qsacheck check`: a backend must answer the reference's error (field,
// index, rule) and write nothing. The property suite has its own RapidCheck generator.

#include "qsa/traces/batch_generator.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa::traces {

/// One input that qsa::validate() rejects; `shape` is the shape of the valid batch it came from.
GeneratedBatch random_invalid_metadata_input(Rng& rng);

}  // namespace qsa::traces
