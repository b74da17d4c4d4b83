#pragma once
// Runs a campaign's jobs on several threads with a result that does not depend on timing: each
// job writes only its own result slot, the caller reads them in job order, and "stop at the first
// failure" means the failure of the lowest job index, whichever thread found it first.

#include <cstdint>
#include <functional>

namespace qsa::engine {

/// Runs job `job` on worker `worker` (0 ... workers-1; a worker is one thread and owns whatever it
/// creates, e.g. its backend instance); returns true when the job failed. `cancelled()` turns
/// true when the job's result will be discarded (a lower job failed): a long job may end early.
using PoolJob = std::function<bool(int64_t job, int worker, const std::function<bool()>& cancelled)>;

/// Runs jobs 0 ... count-1, each once, on `workers` threads (workers <= 1: in the calling thread,
/// in order). Jobs start in index order. With `stop_at_first`, once job f failed no later job
/// starts, and the result is f + 1: the caller reports jobs 0 ... f, which all ran to their end.
/// Otherwise every job runs and the result is `count`. An exception of a job stops the pool and
/// is rethrown here.
int64_t run_pool(int64_t count, int workers, bool stop_at_first, const PoolJob& run);

}  // namespace qsa::engine
