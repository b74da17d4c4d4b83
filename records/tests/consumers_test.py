#!/usr/bin/env python3
"""Benchmark records as their real consumers read them (docs/bench-records.md, "What
consumers read").

The two dashboards cannot run here (Rust server, GitHub action), so their parsing rules are
written down from their sources at a cited commit and applied to the files:
- Bencher's cpp_google adapter (bencherdev/bencher 0b368a6d3b4af700310fe2cd3a20ab1cb50f4e56,
  lib/bencher_adapter/src/adapters/cpp/google.rs): serde reads {"context": {"caches": [object...]},
  "benchmarks": [{"name", "real_time" (a number), "time_unit" (ns, us, ms, s)}]}; a missing key is
  a parse error (the whole file is refused); every entry becomes one latency metric keyed by name.
- github-action-benchmark's googlecpp extractor and alert (benchmark-action/github-action-benchmark
  c38cce98215cf75e178ecd5a0c1a1ab215e93006, src/extract.ts extractGoogleCppResult, src/write.ts
  findAlerts, getRatio, biggerIsBetter): every entry of "benchmarks" is a benchmark {name, value:
  real_time, unit: time_unit + "/iter"}; a current benchmark is matched with the first previous one
  of the same name; googlecpp is smaller-is-better, ratio = current / previous; an alert when the
  ratio exceeds alert-threshold (our template: 105 % -> 1.05).
- Bencher's json adapter (bencherdev/bencher 0b8f911722c1514c7e9a4f7560ae893dd504c768,
  lib/bencher_adapter/src/adapters/json.rs: serde reads the Bencher Metric Format, documented at
  bencher.dev/docs/reference/bencher-metric-format with its JSON schema): {benchmark name (1 to 1024
  characters): {measure: {"value": number, "lower_value"?: number, "upper_value"?: number}}}; any
  other shape fails the parse. `bench export --format bmf` writes the latency measure (ns).
Google Benchmark's own compare.py (Debian libbenchmark-tools) is run for real.

Shown: a real libbenchmark 1.7.1 file parses under both rules (and its keys are the ones a
qsacheck record now has); today's records (records/history/, written before this change) fail
Bencher's rule and give github-action-benchmark 26 noise alerts (stddev and cv aggregates) between
two runs of one commit; `qsacheck bench export` of the same records parses, gives no alert on that
noise and exactly one on a +8.7 % slowdown of one benchmark; compare.py reads records and exports.
Usage: consumers_test.py QSACHECK SOURCE_DIR METADATA_BENCH COMPARE_PY
"""
import json
import os
import subprocess
import sys
import tempfile

from consumer_rules import bencher_cpp_google, bencher_json, gab_alerts, gab_googlecpp, slowed

QSACHECK, SOURCE, METADATA_BENCH, COMPARE_PY = sys.argv[1:5]
HISTORY = os.path.join(SOURCE, "records", "history")
RUN_1 = os.path.join(HISTORY, "2026-12-02-0138-qsacheck-bench-cuda-1.json")
RUN_2 = os.path.join(HISTORY, "2026-12-02-0138-qsacheck-bench-cuda-2.json")
# compare.py needs SciPy (Debian python3-scipy, which libbenchmark-tools only suggests): Debian's own
# interpreter, whatever python3 runs this test.
DEBIAN_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def export(path, fmt, work):
    out = os.path.join(work, os.path.basename(path) + "." + fmt + ".json")
    subprocess.run([QSACHECK, "bench", "export", path, "--format", fmt, "-o", out], check=True)
    with open(out) as f:
        return out, json.load(f)


def load(path):
    with open(path) as f:
        return json.load(f)


with tempfile.TemporaryDirectory() as work:
    # A real libbenchmark 1.7.1 file (Debian 12's libbenchmark-dev), one quick benchmark.
    real = os.path.join(work, "real.json")
    subprocess.run([METADATA_BENCH, "--benchmark_filter=BM_Metadata/reference/kind:compressed/tokens:256/requests:64/",
                    "--benchmark_min_time=0.01", "--benchmark_out=" + real, "--benchmark_out_format=json"],
                   check=True, stdout=subprocess.DEVNULL)
    real_doc = load(real)
    check(len(bencher_cpp_google(real_doc)) > 0, "Bencher's rule reads a real libbenchmark 1.7.1 file")
    check(len(gab_googlecpp(real_doc)) > 0, "github-action-benchmark's rule reads a real libbenchmark 1.7.1 file")

    run_1, run_2 = load(RUN_1), load(RUN_2)
    try:
        bencher_cpp_google(run_1)
        check(False, "today's record is refused by Bencher's rule (no context.caches)")
    except ValueError as e:
        check("caches" in str(e), "today's record is refused by Bencher's rule (%s)" % e)
    noise_raw = gab_alerts(gab_googlecpp(run_2), gab_googlecpp(run_1))
    check(len(noise_raw) == 26 and all(n.endswith(("_stddev", "_cv")) for n, _ in noise_raw),
          "today's records: %d github-action-benchmark alerts between two runs of one commit, all on "
          "stddev or cv" % len(noise_raw))

    for fmt in ("bencher", "github-action-benchmark"):
        path_1, ex_1 = export(RUN_1, fmt, work)
        path_2, ex_2 = export(RUN_2, fmt, work)
        metrics = bencher_cpp_google(ex_1)
        names = [b["name"] for b in ex_1["benchmarks"]]
        check(len(names) == len(set(names)) == 31 and all(len(v) == 1 for v in metrics.values()),
              fmt + ": one entry per benchmark (31), each one Bencher metric")
        check(all("/iterations:" not in n and "/repeats:" not in n and "manual_time" not in n and
                  not n.endswith(("_mean", "_median", "_stddev", "_cv")) for n in names),
              fmt + ": names without run options or aggregate suffixes")
        # The exported value is the median `bench compare` uses.
        cmp = json.loads(subprocess.run([QSACHECK, "bench", "compare", RUN_1, RUN_2, "--json", "-"], check=True,
                                        capture_output=True, text=True).stdout)
        medians = {c["key"]: c["baseline_ns"] for c in cmp["changes"]}
        check(all(abs(metrics[k][0] - v) <= 1e-9 * v for k, v in medians.items()),
              fmt + ": each value is the benchmark's median (as bench compare --json reports it)")
        real_keys = set(real_doc["benchmarks"][0])
        check(real_keys - {"aggregate_name", "aggregate_unit", "items_per_second"} <= set(ex_1["benchmarks"][0]),
              fmt + ": every entry key of the real 1.7.1 file is present")
        check(gab_alerts(gab_googlecpp(ex_2), gab_googlecpp(ex_1)) == [],
              fmt + ": no github-action-benchmark alert on the noise between two runs of one commit")
        slow_path = os.path.join(work, "slow.json")
        with open(slow_path, "w") as f:
            json.dump(slowed(run_1, "BM_StepUpdate/cuda/shape:decode/tokens:1024/requests:256/dtype:bf16/", 1.087), f)
        _, ex_slow = export(slow_path, fmt, work)
        alerts = gab_alerts(gab_googlecpp(ex_slow), gab_googlecpp(ex_1))
        check(len(alerts) == 1 and alerts[0][0] == "BM_StepUpdate/cuda/shape:decode/tokens:1024/requests:256/dtype:bf16"
              and abs(alerts[0][1] - 1.087) < 1e-6,
              fmt + ": exactly one alert (ratio %s) on a +8.7 %% slowdown of one benchmark" %
              ", ".join("%.3f" % r for _, r in alerts))
        if fmt == "bencher":
            # compare.py, Google Benchmark's own tool, reads the records and the exports.
            for a, b in ((RUN_1, RUN_2), (path_1, path_2)):
                r = subprocess.run([DEBIAN_PYTHON, COMPARE_PY, "benchmarks", a, b], capture_output=True, text=True)
                check(r.returncode == 0 and "BM_StepUpdate/cuda/shape:decode" in r.stdout,
                      "compare.py reads " + os.path.basename(a) + " against " + os.path.basename(b) +
                      ("" if r.returncode == 0 else ": " + r.stderr[-300:]))

    # Bencher's json adapter: the Bencher Metric Format of the same benchmarks.
    try:
        bencher_json(run_1)
        check(False, "a record is refused by Bencher's json adapter (not BMF)")
    except ValueError as e:
        check(True, "a record is refused by Bencher's json adapter (%s)" % e)
    _, bmf = export(RUN_1, "bmf", work)
    parsed = bencher_json(bmf)
    _, gab = export(RUN_1, "github-action-benchmark", work)
    check(list(parsed) == [b["name"] for b in gab["benchmarks"]] and all(list(m) == ["latency"] for m in parsed.values()),
          "bmf: Bencher's json adapter reads the same %d benchmarks, one latency measure each" % len(parsed))
    check(all(lo <= v <= hi and v == b["real_time"]
              for b in gab["benchmarks"] for v, lo, hi in [parsed[b["name"]]["latency"]]),
          "bmf: value is the median, between the fastest and slowest repetition")

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
