#!/usr/bin/env python3
"""The JSON schemas of schemas/ against real reports (docs/json-schema.md, "Schemas").

Each command covered is run here (passing and failing, tolerance mode, a request log) and its
--json output validated against its schema (python3-jsonschema, draft 2020-12); then each report
is shown rejected with one field removed, one renamed and one added, at the top and one level
down, and every object of every schema is checked to be closed (additionalProperties false, or a
typed map). Usage: schemas_test.py QSACHECK SOURCE_DIR PLUGIN
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import warnings

try:
    import jsonschema
except ImportError:  # Debian's python3-jsonschema, whatever python3 runs the test
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("no python3-jsonschema (apt-get install python3-jsonschema)")
    sys.exit(77)

warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver: Debian 12's jsonschema 4.10 has no other
QSACHECK, SOURCE, PLUGIN = sys.argv[1:4]  # PLUGIN: a plugin with planted variants (mutants --backend)
SCHEMAS = os.path.join(SOURCE, "schemas")
store = {}
for name in os.listdir(SCHEMAS):
    if name.endswith(".schema.json"):
        with open(os.path.join(SCHEMAS, name)) as f:
            schema = json.load(f)
        store[schema["$id"]] = schema
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def validator(name):
    schema = store["https://qsacheck.invalid/schemas/" + name]
    resolver = jsonschema.RefResolver(schema["$id"], schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def closed(node, where):
    """Every object schema is closed: additionalProperties false, or a typed map."""
    if isinstance(node, dict):
        if "properties" in node and node.get("additionalProperties") is not False:
            check(False, where + ": an object without additionalProperties false")
        if node.get("type") == "object" and "properties" not in node and not isinstance(node.get("additionalProperties"), dict):
            check(False, where + ": an open object")
        for key, value in node.items():
            if key != "if":  # a condition on the object, not an object of its own
                closed(value, where + "/" + key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            closed(value, "%s/%d" % (where, i))


def run(args, cwd, expect):
    r = subprocess.run([QSACHECK] + args, cwd=cwd, capture_output=True, text=True)
    check(r.returncode in expect, "qsacheck %s: exit %d" % (" ".join(args), r.returncode))
    return r


def mutations(report):
    """(what, report) with one field removed, renamed, added: at the top and one level down."""
    out = []
    levels = [("top", report)]
    for key, value in report.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            levels.append((key + "[0]", value[0]))
            break
        if isinstance(value, dict) and value:
            levels.append((key, value))
            break
    for where, obj in levels:
        field = sorted(obj)[0]
        for what in ("removed", "renamed", "added"):
            changed = copy.deepcopy(report)
            target = changed
            if where != "top":
                target = changed[where[:-3]][0] if where.endswith("[0]") else changed[where]
            if what in ("removed", "renamed"):
                value = target.pop(field)
                if what == "renamed":
                    target[field + "_renamed"] = value
            else:
                target["unexpected_field"] = 1
            out.append(("%s: %s %s" % (where, field, what), changed))
    return out


for schema_id, schema in sorted(store.items()):
    closed(schema, os.path.basename(schema_id))

with tempfile.TemporaryDirectory() as work:
    trace = os.path.join(work, "t.scenario")
    with open(os.path.join(SOURCE, "traces", "recorded", "ring-minimum.scenario")) as f, open(trace, "w") as g:
        g.write(f.read())
    history = os.path.join(SOURCE, "records", "history", "2026-12-02-0138-qsacheck-bench-cuda-%d.json")
    streaming = os.path.join(SOURCE, "docs", "examples", "eval-step-streaming.json")
    spec8 = os.path.join(work, "spec8.json")  # SPEC 8's first example
    with open(spec8, "w") as f:
        json.dump({"kind": "compressed", "compress_ratio": 4, "storage_block_size": 16, "num_actual_tokens": 8,
                   "query_start_loc": [0, 3, 3, 8], "seq_lens": [7, 0, 12], "common_slot_mapping": [-1] * 8,
                   "block_table": [[0], [0], [0]]}, f)
    cases = [
        ("replay.schema.json", ["replay", "--json", "r1.json", trace], {0}, "r1.json"),
        ("replay.schema.json", ["replay", "--backend", "bug:pool-wrong-ring-row", "--json", "r2.json", trace], {1}, "r2.json"),
        ("replay.schema.json", ["replay", "--float-tolerance", "row-ulp:2", "--json", "r3.json", trace], {0}, "r3.json"),
        ("record-expected.schema.json", ["record-expected", "--json", "e1.json", trace], {0}, "e1.json"),
        ("simulate.schema.json", ["simulate", "--workload", "default", "--steps", "10", "--json", "s1.json", "s1.scenario"],
         {0}, "s1.json"),
        ("simulate.schema.json", ["simulate", "--requests", os.path.join(SOURCE, "traces", "logs", "azure-code-2023-window.csv"),
                                  "--window", "0:10", "--steps", "3000", "--json", "s2.json", "s2.scenario"], {0, 3}, "s2.json"),
        ("bench-compare.schema.json", ["bench", "compare", history % 1, history % 2, "--json", "c1.json"], {0, 1}, "c1.json"),
        ("check.schema.json", ["check", "--workload", "default", "--scenarios", "1", "--steps", "20", "--batches", "20",
                               "--json", "k1.json", "--out", "."], {0}, "k1.json"),
        ("check.schema.json", ["check", "--backend", "bug:pool-wrong-ring-row", "--keep-going", "--workload", "default",
                               "--scenarios", "2", "--steps", "30", "--batches", "20", "--float-tolerance", "row-ulp:2",
                               "--json", "k2.json", "--out", "."], {1}, "k2.json"),
        ("check.schema.json", ["check", "--requests", os.path.join(SOURCE, "traces", "logs", "azure-code-2023-window.csv"),
                               "--window", "0:5", "--steps", "2000", "--batches", "20", "--json", "k3.json", "--out", "."],
         {0}, "k3.json"),
        ("check.schema.json", ["check", "--workload", "prefix-sharing", "--scenarios", "2", "--steps", "20",
                               "--batches", "20", "--shard", "1/2", "--json", "sh1.json", "--out", "."], {0}, "sh1.json"),
        ("check.schema.json", ["check", "--workload", "prefix-sharing", "--scenarios", "2", "--steps", "20",
                               "--batches", "20", "--shard", "2/2", "--json", "sh2.json", "--out", "."], {0}, "sh2.json"),
        ("check.schema.json", ["merge", "sh1.json", "sh2.json", "-o", "m.json"], {0}, "m.json"),
        ("mutants.schema.json", ["mutants", "--list", "--json", "u1.json"], {0}, "u1.json"),
        ("mutants.schema.json", ["mutants", "--backend", "plugin:" + PLUGIN, "--steps", "20", "--json", "u2.json"], {0},
         "u2.json"),
        ("error.schema.json", ["check", "--steps", "zero"], {2}, None),
        # eval prints its result always (no --json): its stdout is the output.
        ("eval-metadata.schema.json", ["eval", "metadata", "--input", spec8], {0}, None),
        ("eval-step.schema.json", ["eval", "step", "--pooled", "--input", streaming], {0}, None),
        ("eval-step.schema.json", ["eval", "step", "--input", streaming], {0}, None),
        ("eval-ring-capacity.schema.json", ["eval", "ring-capacity", "--compress-ratio", "4", "--num-speculative-tokens",
                                            "3", "--block-size", "16"], {0}, None),
        ("error.schema.json", ["eval", "ring-capacity", "--compress-ratio", "4", "--num-speculative-tokens", "3",
                               "--block-size", "18"], {2}, None),
    ]
    for schema_name, args, expect, out in cases:
        r = run(args, work, expect)
        if out is None:
            report = json.loads(r.stdout.strip().splitlines()[-1])
        else:
            with open(os.path.join(work, out)) as f:
                report = json.load(f)
        v = validator(schema_name)
        errors = [e.message for e in v.iter_errors(report)]
        check(not errors, "%s: %s valid%s" % (schema_name, " ".join(args[:2]), "" if not errors else ": " + errors[0]))
        for what, changed in mutations(report):
            check(not v.is_valid(changed), "%s rejects the report with %s" % (schema_name, what))

    # The sharing figures: a merge carries the sum of its shards', and the schema holds
    # each of them and the log-implied reuse a request-log campaign exercised.
    reports = {}
    for name in ("sh1.json", "sh2.json", "m.json", "k3.json"):
        with open(os.path.join(work, name)) as f:
            reports[name] = json.load(f)
    shards = [reports["sh1.json"]["sharing"], reports["sh2.json"]["sharing"]]
    summed = {k: shards[0][k] + shards[1][k] for k in shards[0] if k != "hit_depth_blocks"}
    depths = {}
    for shard in shards:
        for depth, n in shard["hit_depth_blocks"].items():
            depths[depth] = depths.get(depth, 0) + n
    summed["hit_depth_blocks"] = depths
    check(reports["m.json"]["sharing"] == summed, "merge: sharing is the sum of the shards' sharing")
    check(summed["prefix_hits"] > 0, "the sharded campaign took prefix hits (%d)" % summed["prefix_hits"])
    for report, path in ((reports["m.json"], ("sharing", "evictions")),
                         (reports["k3.json"], ("request_log", "exercised", "log_implied_reused_positions"))):
        changed = copy.deepcopy(report)
        target = changed
        for key in path[:-1]:
            target = target[key]
        target.pop(path[-1])
        check(not validator("check.schema.json").is_valid(changed), "check.schema.json requires " + ".".join(path))

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
