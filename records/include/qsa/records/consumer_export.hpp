#pragma once
// `qsacheck bench export`: a record as the dashboards that read Google Benchmark JSON need it
// (docs/bench-records.md, "What consumers read"). github-action-benchmark's googlecpp extractor
// takes every entry as a benchmark and alerts per name, so repetitions and the stddev and cv
// aggregates would be alerted on as benchmarks; Bencher's cpp_google adapter needs
// `context.caches`. The export keeps one entry per benchmark, its median, named by its key (the run
// options dropped, so a change of --iterations continues the same series).

#include <nlohmann/json.hpp>

#include "qsa/records/record.hpp"

namespace qsa::records {

/// The record reduced to one entry per benchmark (median real and CPU time, in ns; the median of
/// each counter), named by benchmark_key(); failed benchmarks left out. The context is kept, with
/// an empty `caches` where the record has none.
nlohmann::ordered_json consumer_export(const Record& record);

/// The same benchmarks in the Bencher Metric Format that `bencher run --adapter json` reads
/// (bencher.dev/docs/reference/bencher-metric-format): {key: {"latency": {"value": median ns,
/// "lower_value": fastest repetition, "upper_value": slowest}}}; an imported record gives its
/// median alone. Bencher's latency measure is in ns, so no unit is written.
nlohmann::ordered_json bencher_metric_format(const Record& record);

}  // namespace qsa::records
