#include "qsa/engine/job_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace qsa::engine {

int64_t run_pool(int64_t count, int workers, bool stop_at_first, const PoolJob& run) {
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> first_failure{count};  // the lowest failed job so far
  std::mutex error_mutex;
  std::exception_ptr error;  // the first exception of a worker, rethrown in the caller's thread
  auto work = [&](int worker) {
    for (;;) {
      const int64_t job = next.fetch_add(1);
      if (job >= count || (stop_at_first && job > first_failure.load())) return;
      const auto cancelled = [&, job] { return stop_at_first && job > first_failure.load(); };
      bool failed = false;
      try {
        failed = run(job, worker, cancelled);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(count);  // start nothing more
        return;
      }
      if (failed && stop_at_first) {
        int64_t seen = first_failure.load();
        while (job < seen && !first_failure.compare_exchange_weak(seen, job)) {
        }
      }
    }
  };
  if (workers <= 1) {
    work(0);
  } else {
    std::vector<std::thread> threads;
    const int n = static_cast<int>(std::min<int64_t>(workers, std::max<int64_t>(count, 1)));
    for (int w = 0; w < n; ++w) threads.emplace_back(work, w);
    for (std::thread& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  return first_failure.load() < count ? first_failure.load() + 1 : count;
}

}  // namespace qsa::engine
