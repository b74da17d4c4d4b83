"""The parsing and alert rules of the dashboards that read benchmark records, written down from
their sources at the commits consumers_test.py cites (Bencher's cpp_google and json adapters,
github-action-benchmark's googlecpp extractor and alert), for consumers_test.py and
cli/tests/ci_templates_test.py."""
import copy
import statistics

NS_PER = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def bencher_cpp_google(doc):
    """Bencher's adapter: name -> latency in ns; raises ValueError where serde would fail."""
    context = doc.get("context")
    if not isinstance(context, dict) or not isinstance(context.get("caches"), list):
        raise ValueError("missing field `caches`")
    if not all(isinstance(c, dict) for c in context["caches"]):
        raise ValueError("caches: invalid type")
    metrics = {}
    for b in doc["benchmarks"]:
        if not isinstance(b.get("name"), str) or not b["name"]:
            raise ValueError("missing field `name`")
        if not isinstance(b.get("real_time"), (int, float)):
            raise ValueError("missing field `real_time`")
        if b.get("time_unit") not in NS_PER:
            raise ValueError("unknown time_unit")
        metrics.setdefault(b["name"], []).append(b["real_time"] * NS_PER[b["time_unit"]])
    return metrics


def bencher_json(doc):
    """Bencher's json adapter (BMF): name -> {measure: (value, lower, upper)}; raises ValueError."""
    if not isinstance(doc, dict) or not doc:
        raise ValueError("not a BMF object")
    out = {}
    for name, measures in doc.items():
        if not 1 <= len(name) <= 1024 or not isinstance(measures, dict) or not measures:
            raise ValueError("bad benchmark " + name)
        for measure, metric in measures.items():
            if not isinstance(metric, dict) or set(metric) - {"value", "lower_value", "upper_value"} or \
                    not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in metric.values()) or \
                    "value" not in metric:
                raise ValueError("bad metric %s/%s" % (name, measure))
            out.setdefault(name, {})[measure] = (metric["value"], metric.get("lower_value"), metric.get("upper_value"))
    return out


def gab_googlecpp(doc):
    return [{"name": b["name"], "value": b["real_time"], "unit": b["time_unit"] + "/iter"} for b in doc["benchmarks"]]


def gab_alerts(current, previous, threshold=1.05):
    alerts = []
    for cur in current:
        prev = next((p for p in previous if p["name"] == cur["name"]), None)
        if prev is None:
            continue
        ratio = 1 if prev["value"] == 0 and cur["value"] == 0 else cur["value"] / prev["value"]
        if ratio > threshold:
            alerts.append((cur["name"], ratio))
    return alerts


def slowed(doc, key_prefix, factor):
    """The record with one benchmark's repetitions (and its aggregates, recomputed) times factor."""
    doc = copy.deepcopy(doc)
    target = next(b["run_name"] for b in doc["benchmarks"] if b["run_name"].startswith(key_prefix))
    reps = [b for b in doc["benchmarks"] if b["run_name"] == target and b["run_type"] == "iteration"]
    for b in reps:
        b["real_time"] *= factor
    times = [b["real_time"] for b in reps]
    for b in doc["benchmarks"]:
        if b["run_name"] == target and b["run_type"] == "aggregate":
            b["real_time"] = {"mean": statistics.mean(times), "median": statistics.median(times),
                              "stddev": statistics.stdev(times),
                              "cv": statistics.stdev(times) / statistics.mean(times)}[b["aggregate_name"]]
    return doc
