// The parallel paths without a GPU: the job pool reports the lowest failing job whatever the
// timing, and a campaign spread over several "devices" (a stand-in: one reference or planted-bug
// instance per device, each on its own thread) gives the single-device report.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "checker.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/engine/job_pool.hpp"
#include "report_normalizer.hpp"

namespace qsa {
namespace {

TEST(JobPool, StopAtFirstReportsTheLowestFailingJobWhateverTheTiming) {
  for (int workers : {1, 2, 4}) {
    std::vector<std::atomic<int>> finished(40);
    // Job 9 fails at once, job 5 fails late: the pool must still report 0 ... 5, all finished.
    const int64_t reported = engine::run_pool(40, workers, true, [&](int64_t job, int, const std::function<bool()>&) {
      if (job == 5) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      finished[static_cast<size_t>(job)] = 1;
      return job == 5 || job == 9;
    });
    EXPECT_EQ(reported, 6) << "workers " << workers;
    for (int64_t job = 0; job < 6; ++job) EXPECT_EQ(finished[static_cast<size_t>(job)], 1) << job;
  }
}

TEST(JobPool, KeepGoingRunsEveryJobOnce) {
  std::vector<std::atomic<int>> runs(100);
  EXPECT_EQ(engine::run_pool(100, 3, false,
                          [&](int64_t job, int, const std::function<bool()>&) {
                            ++runs[static_cast<size_t>(job)];
                            return job % 7 == 0;
                          }),
            100);
  for (const auto& n : runs) EXPECT_EQ(n, 1);
}

TEST(JobPool, AnExceptionInAWorkerReachesTheCaller) {
  EXPECT_THROW(engine::run_pool(10, 2, false,
                             [](int64_t job, int, const std::function<bool()>&) -> bool {
                               if (job == 3) throw std::runtime_error("job 3");
                               return false;
                             }),
               std::runtime_error);
}

// `name` on a stand-in device: a CPU instance that remembers nothing of the device.
std::unique_ptr<Backend> stand_in(const std::string& name, int) { return BackendRegistry::global().create(name); }

cli::CheckReport campaign_on(const std::string& backend, const std::vector<int>& devices) {
  cli::CheckOptions o;
  o.backends = {backend};
  o.steps = 8;
  o.batches = 10;
  o.keep_going = true;
  o.max_findings = 3;
  o.shrink = false;
  o.quiet = true;
  o.devices = devices;
  o.jobs = static_cast<int64_t>(devices.size());
  o.make_backend = stand_in;
  return cli::Checker(o).run();
}

TEST(MultiDeviceStandIn, FourDevicesGiveTheSingleDeviceReport) {
  for (const std::string backend : {"reference", "bug:ring-read-after-commit"}) {
    const cli::CheckReport one = campaign_on(backend, {0});
    const cli::CheckReport four = campaign_on(backend, {0, 1, 2, 3});
    EXPECT_EQ(testing::without_run_facts(engine::report_to_json(one)),
              testing::without_run_facts(engine::report_to_json(four)))
        << backend;
    ASSERT_EQ(four.run.devices.size(), 4u) << "per-device figures for every device";
    int64_t jobs = 0;
    for (const auto& d : four.run.devices) jobs += d.jobs;
    EXPECT_EQ(jobs, four.campaign.jobs_total);
    EXPECT_EQ(one.run.devices.size(), 1u);
    for (const cli::CheckFinding& f : four.findings) EXPECT_GE(f.device, 0) << "a finding names its device";
    EXPECT_EQ(four.failed(), backend != "reference");
  }
}

// --jobs threads over --devices: every listed device gets a thread, and the counts differ by at
// most one (16 jobs on 3 devices: 6, 5, 5), in the order listed; no --devices: no device (-1).
TEST(DevicesOfWorkers, JobsSpreadEvenlyOverTheListedDevices) {
  EXPECT_EQ(engine::device_of_worker({}, 0), -1);
  EXPECT_EQ(engine::device_of_worker({}, 7), -1);
  for (const std::vector<int>& devices : {std::vector<int>{0}, std::vector<int>{0, 1}, std::vector<int>{3, 1, 2},
                                          std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}})
    for (int jobs : {1, 2, 3, 8, 16, 17}) {
      std::map<int, int> threads;
      for (int w = 0; w < jobs; ++w) ++threads[engine::device_of_worker(devices, w)];
      EXPECT_EQ(threads.size(), std::min<size_t>(devices.size(), static_cast<size_t>(jobs))) << jobs << " jobs";
      int least = jobs, most = 0;
      for (int d : devices) {
        least = std::min(least, threads[d]);
        most = std::max(most, threads[d]);
      }
      if (jobs >= static_cast<int>(devices.size())) {  // braces: EXPECT_LE is an if/else (-Wdangling-else)
        EXPECT_LE(most - least, 1) << jobs << " jobs";
      }
      EXPECT_EQ(engine::device_of_worker(devices, 0), devices[0]);
    }
  EXPECT_EQ(engine::device_of_worker({3, 1, 2}, 4), 1);
}

}  // namespace
}  // namespace qsa
