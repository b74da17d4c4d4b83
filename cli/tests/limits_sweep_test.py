#!/usr/bin/env python3
"""Every command at every documented limit (docs/limits.md, "The limits, one table") under
`prlimit --as`: each input just past its limit must be refused with exit 2 and one JSON line naming
the limit's field and rule, never a crash (134, 137, 139) and never an output file or a reproducer
left behind. Each case's address-space budget is below what the command would need had it
allocated before pricing the input (the text of a 64 MiB file, a dense cache of 2^40 blocks, the
rows of 2^24 tokens), so a command that allocates first dies instead of answering. Where a JSON
reader has the nesting limit, the same input at the limit itself (512) must not be `too-deep`.

    limits_sweep_test.py QSACHECK SOURCE_DIR [--sanitized]

With --sanitized (the ASan build) the test is skipped, exit 77: ASan reserves terabytes of
address space, so no `prlimit --as` leaves it room to start. The bad-input corpus runs the same
refusals there without the limit.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_runner import Failures, Scratch, check_error_line, run  # noqa: E402

MiB = 1 << 20
INPUT_LIMIT = 64 * MiB
# Budgets: SMALL holds qsacheck itself (under 20 MiB of address space) but not the text of one
# input at its 64 MiB limit; LARGE holds a check campaign's threads but not a cache of 2^40 blocks
# or step buffers of 2^20 rows at 64 heads x 512 (194 GiB).
SMALL = 48 * MiB
LARGE = 256 * MiB
# A stream (/dev/zero, a pipe) has no size to price: it is read in 64 KiB pieces until it passes
# the limit, so its budget holds the 64 MiB read (96 MiB at the last doubling of the buffer), and
# a reader without the limit would still die.
STREAM = 128 * MiB

# Commands without a documented size limit of their own, and why (the table of docs/limits.md).
NO_LIMIT = [
    ("backends", "reads no input file; a plugin library is loaded in a probe process (exit 2 on any failure)"),
    ("eval ring-capacity", "integer options only, each in SPEC 1.3's range (swept below as options)"),
    ("bench (run)", "reads no input file; --shapes, --repetitions and --iterations are ranged options (swept below)"),
    ("mutants", "reads no input file; --steps is a ranged option (swept below)"),
    ("input-space (the page)", "prints a fixed page; only --known-gaps reads a file (swept below)"),
]


def nest(depth):
    return "[" * depth + "]" * depth


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    qsacheck, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if "--sanitized" in sys.argv[3:]:
        print("SKIP: prlimit --as cannot run a sanitized qsacheck (ASan reserves terabytes of address space); "
              "the bad-input corpus runs these refusals there without the limit")
        return 77
    scratch = Scratch("qsacheck-limits-")
    failures = Failures()
    try:
        sweep(qsacheck, source, scratch, failures)
    finally:
        scratch.remove()
    print("commands without a documented size limit:")
    for command, why in NO_LIMIT:
        print("  %-24s %s" % (command, why))
    return failures.done("limit cases")


def sweep(qsacheck, source, scratch, failures):
    W = scratch.path
    recorded = os.path.join(source, "traces", "recorded", "default.scenario")
    with open(recorded) as f:
        header_line = f.readline()
        step_line = f.readline()
    header = json.loads(header_line)
    shard_report = os.path.join(source, "cli", "tests", "bad_inputs", "merge_rows_near_2pow63", "report.json")
    bench_record = os.path.join(source, "records", "history", "2026-11-30-final-metadata_bench.json")
    csv_log = os.path.join(source, "traces", "logs", "azure-code-2023-window.csv")

    # Inputs just past the byte limit, made sparse (no disk, no memory).
    big = scratch.sparse("big.json", INPUT_LIMIT + 1)
    big_scenario = scratch.sparse("big.scenario", INPUT_LIMIT + 1)
    big_csv = scratch.sparse("big.csv", INPUT_LIMIT + 1)
    big_jsonl = scratch.sparse("big.jsonl", INPUT_LIMIT + 1)
    big_txt = scratch.sparse("big.txt", INPUT_LIMIT + 1)

    def scenario_with(config_changes=None, step=None):
        h = json.loads(header_line)
        h["config"].update(config_changes or {})
        return json.dumps(h) + "\n" + (step if step is not None else step_line)

    cases = []  # (name, args, field, rule, budget, stdin, env)

    def case(name, args, field, rule, budget=SMALL, stdin=None, env=None):
        cases.append((name, args, field, rule, budget, stdin, env))

    # 1. Bytes of one input: QSA_MAX_INPUT_BYTES, 64 MiB (every reader, a file and a stream).
    case("eval metadata --input, file past 64 MiB", ["eval", "metadata", "--input", big], "input", "too-large")
    case("eval metadata, /dev/zero on stdin", ["eval", "metadata"], "input", "too-large", STREAM,
         stdin="/dev/zero")
    case("eval step --input, file past 64 MiB", ["eval", "step", "--input", big], "input", "too-large")
    case("eval step, /dev/zero on stdin", ["eval", "step"], "input", "too-large", STREAM, stdin="/dev/zero")
    # Scenario files are read a line at a time (a long replay holds one step): the limit is per line.
    case("replay, scenario file past 64 MiB", ["replay", big_scenario, "--json", "out.json"], "line", "too-large")
    case("replay, metadata input past 64 MiB", ["replay", big, "--json", "out.json"], "input", "too-large")
    case("replay, /dev/zero as a file", ["replay", "/dev/zero"], "input", "too-large", STREAM)
    case("record-expected, scenario file past 64 MiB", ["record-expected", big_scenario], "line", "too-large")
    case("merge, report past 64 MiB", ["merge", big, "--json", "out.json"], "input", "too-large")
    case("merge, /dev/zero", ["merge", "/dev/zero", "--json", "out.json"], "input", "too-large",
         STREAM)
    case("check --requests-csv past 64 MiB", ["check", "--requests-csv", big_csv, "--json", "out.json"],
         "input", "too-large")
    case("check --requests (jsonl) past 64 MiB", ["check", "--requests", big_jsonl, "--json", "out.json"],
         "input", "too-large")
    case("check --allow-excluded past 64 MiB", ["check", "--allow-excluded", big_txt, "--json", "out.json"],
         "--allow-excluded", "too-large")
    case("simulate --requests past 64 MiB", ["simulate", "--requests", big_jsonl, "out.scenario"],
         "input", "too-large")
    case("input-space --known-gaps past 64 MiB", ["input-space", "--campaign", "--known-gaps", big_txt],
         "--known-gaps", "too-large")
    case("bench compare, baseline past 64 MiB", ["bench", "compare", big, bench_record], "baseline", "too-large")
    case("bench compare, candidate /dev/zero", ["bench", "compare", bench_record, "/dev/zero", "--json", "out.json"],
         "candidate", "too-large", STREAM)
    case("bench export, record past 64 MiB", ["bench", "export", big, "--format", "bencher", "-o", "out.json"],
         "record", "too-large")
    case("bench import --summary past 64 MiB", ["bench", "import", "--summary", big_txt, "-o", "records"],
         "input", "too-large")
    case("bench import --log past 64 MiB", ["bench", "import", "--log", big_txt, "--commit", "abc", "-o", "records"],
         "input", "too-large")
    case("report, record past 64 MiB", ["report", big, "-o", "report"], "records[0]", "too-large")

    # 2. Nesting, 512 levels: every JSON reader, at 513 (too-deep) and at 512 (some other rule).
    for depth, rule in ((513, "too-deep"), (512, None)):
        d = scratch.file("deep%d.json" % depth, nest(depth))
        s = scratch.file("deep%d.scenario" % depth, header_line + nest(depth) + "\n")
        h = scratch.file("deephead%d.scenario" % depth, nest(depth) + "\n" + step_line)
        l = scratch.file("deep%d.jsonl" % depth, nest(depth) + "\n")
        for name, args, field in (
                ("eval metadata", ["eval", "metadata", "--input", d], "input"),
                ("eval step", ["eval", "step", "--input", d], "input"),
                ("replay metadata input", ["replay", d], "input"),
                ("replay scenario step line", ["replay", s], "line"),
                ("replay scenario header line", ["replay", h], "line"),
                ("record-expected step line", ["record-expected", s], "line"),
                ("merge", ["merge", d], "input"),
                ("check --requests jsonl", ["check", "--requests", l], None),
                ("simulate --requests jsonl", ["simulate", "--requests", l, "out.scenario"], None),
                ("bench compare", ["bench", "compare", d, bench_record], "baseline"),
                ("bench export", ["bench", "export", d, "--format", "bencher"], "record"),
                ("report", ["report", d, "-o", "report"], "records[0]")):
            if rule is None:
                cases.append(("%s nested %d deep (at the limit)" % (name, depth), args, None, ("not", "too-deep"),
                              SMALL, None, None))
            else:
                case("%s nested %d deep" % (name, depth), args, field, rule)
    deep_worker = os.path.join(source, "backends", "tests", "workers", "fault_worker.py")
    case("replay, a worker's hello nested 100 000 deep",
         ["replay", "--backend", "worker:python3 %s deep-hello %s/pids" % (deep_worker, W), recorded],
         "backend", "unavailable", budget=LARGE)

    # 3. Cache bytes, QSA_MAX_CACHE_BYTES (2 GiB): the dense caches and a step's buffers.
    with open(os.path.join(source, "cli", "tests", "bad_inputs", "eval_step_cache_over_limit", "stdin")) as f:
        step_input = json.loads(f.read())
    for key in ("num_compressed_blocks", "num_ring_blocks"):
        doc = dict(step_input)
        doc["num_compressed_blocks"], doc["num_ring_blocks"] = 2, 2
        doc[key] = 1 << 40
        case("eval step, %s 2^40" % key, ["eval", "step", "--input", scratch.file(key + ".json", json.dumps(doc))],
             key, "too-large")
    huge_cache = scratch.file("huge-cache.scenario", scenario_with({"num_compressed_blocks": (1 << 31) - 1}))
    case("replay, a scenario of 2^31 - 1 compressed blocks", ["replay", huge_cache, "--json", "out.json"],
         "config.num_compressed_blocks", "too-large")
    case("record-expected, a scenario of 2^31 - 1 compressed blocks", ["record-expected", huge_cache],
         "config.num_compressed_blocks", "too-large")
    huge_steps = scratch.file("huge-steps.scenario",
                              scenario_with({"max_num_batched_tokens": 1 << 20, "num_heads": 64, "head_dim": 512,
                                             "rotary_dim": 64}))
    case("replay, step buffers of 2^20 rows x 64 heads x 512", ["replay", huge_steps], None, "too-large")
    token_csv = scratch.file("long.csv", "prompt_tokens,output_tokens\n16777216,1\n100,10\n")
    case("check --requests-csv, a 2^24-token request", ["check", "--requests-csv", token_csv, "--json", "out.json"],
         "workload", "too-large", budget=LARGE)
    case("check --requests, step buffers at a 2^20 budget",
         ["check", "--requests", csv_log, "--head-dim", "512", "--query-heads", "64", "--token-budget", "1048576",
          "--json", "out.json"], "workload", "too-large", budget=LARGE)

    # 4. SPEC 1.3: N <= 2^24, NR <= 2^20, C <= 1024, S <= 2^20, R <= 2^20; a step of 2^20 rows.
    base = {"kind": "passthrough", "num_actual_tokens": 0, "query_start_loc": [0, 0], "seq_lens": [0],
            "common_slot_mapping": [], "block_table": [[]]}

    def metadata(name, **changes):
        doc = dict(base)
        doc.update(changes)
        return scratch.file(name, json.dumps(doc))

    n_past = metadata("n.json", num_actual_tokens=(1 << 24) + 1)
    case("eval metadata, N = 2^24 + 1", ["eval", "metadata", "--input", n_past], "num_actual_tokens", "out-of-range")
    nr = (1 << 20) + 1
    nr_past = metadata("nr.json", query_start_loc=[0] * (nr + 1), seq_lens=[0] * nr, block_table=[[]] * nr)
    case("eval metadata, NR = 2^20 + 1", ["eval", "metadata", "--input", nr_past], "query_start_loc", "out-of-range",
         budget=LARGE)
    for field, kind, value in (("compress_ratio", "compressed", 1025), ("storage_block_size", "compressed", nr),
                               ("ring_capacity", "ring", nr), ("request_capacity", "compressed", nr)):
        fields = {"compress_ratio": 4, "storage_block_size": 4} if kind == "compressed" else {}
        fields[field] = value
        doc = metadata("%s.json" % field, kind=kind, **fields)
        case("eval metadata, %s = %d" % (field, value), ["eval", "metadata", "--input", doc], field, "out-of-range")
    case("eval ring-capacity, C = 1025",
         ["eval", "ring-capacity", "--compress-ratio", "1025", "--num-speculative-tokens", "1", "--block-size", "64"],
         "compress_ratio", "out-of-range")
    case("eval ring-capacity, drafts past 2^20",
         ["eval", "ring-capacity", "--compress-ratio", "4", "--num-speculative-tokens", str(nr), "--block-size", "64"],
         "num_speculative_tokens", "out-of-range")
    step = json.loads(step_line)
    half = (1 << 19) + 1  # each chunk within its own range, the two past 2^20 rows together
    step["chunks"] = [dict(chunk, length=half, accepted=half, prompt_len=half) for chunk in step["chunks"][:2]]
    rows_past = scratch.file("rows.scenario", header_line + json.dumps(step) + "\n")
    case("replay, a step of 2^20 + 1 rows", ["replay", rows_past, "--json", "out.json"], "chunks", "too-large")
    case("record-expected, a step of 2^20 + 1 rows", ["record-expected", rows_past], "chunks", "too-large")

    # 5. Request logs: tokens per request [1, 2^24] and the replay's ranged options.
    tokens_csv = scratch.file("tokens.csv", "prompt_tokens,output_tokens\n16777217,1\n")
    case("check --requests-csv, 2^24 + 1 prompt tokens", ["check", "--requests-csv", tokens_csv], None,
         "out-of-range")
    tokens_jsonl = scratch.file("tokens.jsonl", '{"timestamp": 0, "input_length": 16777217, "output_length": 1}\n')
    case("check --requests, 2^24 + 1 input tokens", ["check", "--requests", tokens_jsonl], None, "out-of-range")
    case("simulate --requests, 2^24 + 1 input tokens", ["simulate", "--requests", tokens_jsonl, "out.scenario"], None,
         "out-of-range")
    for option, value in (("--token-budget", "1048577"), ("--max-num-seqs", "65537"), ("--hash-block", "1048577"),
                          ("--time-compression", "1000001"), ("--length-scale", "1048577")):
        case("simulate --requests %s %s" % (option, value),
             ["simulate", "--requests", csv_log, option, value, "out.scenario"], option, "out-of-range")
        case("check --requests %s %s" % (option, value), ["check", "--requests", csv_log, option, value],
             option, "out-of-range")
    case("simulate --window past 2^40",
         ["simulate", "--requests", csv_log, "--window", "0:1099511627777", "o.scenario"],
         "--window", "out-of-range")

    # 6. Counts given as options.
    for args, field in (
            (["check", "--steps", "16777217"], "--steps"),
            (["check", "--workload", "default", "--scenarios", "65537"], "--scenarios"),
            (["check", "--batches", "1073741825"], "--batches"), (["check", "--jobs", "257"], "--jobs"),
            (["check", "--max-findings", "1048577", "--keep-going"], "--max-findings"),
            (["check", "--shard", "1/65537"], "--shard"),
            (["mutants", "--steps", "16777217"], "--steps"),
            (["simulate", "--steps", "1048577", "out.scenario"], "--steps"),
            (["simulate", "--query-heads", "1025", "out.scenario"], "--query-heads"),
            (["simulate", "--drafts", "65", "out.scenario"], "--drafts"),
            (["input-space", "--campaign", "--batches", "1073741825"], "--batches"),
            (["input-space", "--campaign", "--jobs", "257"], "--jobs"),
            (["bench", "--repetitions", "1001"], "--repetitions"),
            (["bench", "--iterations", "100001"], "--iterations")):
        case(" ".join(args), args, field, "out-of-range")
    case("bench --shapes past 2^18 tokens", ["bench", "--shapes", "decode:262145:1"], "shapes", "too-large")

    # 7. A shard's counts, [0, 2^47] (merge).
    with open(shard_report) as f:
        report = json.load(f)
    report["coverage"]["rows"] = (1 << 47) + 1
    case("merge, a count of 2^47 + 1", ["merge", scratch.file("count.json", json.dumps(report)), "--json", "out.json"],
         "coverage.rows", "out-of-range")

    # 8. A worker frame's header, 1 MiB: a worker announcing 4 GiB is refused before it is read.
    greedy = scratch.file("greedy_worker.py",
                          "import sys\nsys.stdin.buffer.read(8)\n"
                          "sys.stdout.buffer.write(b'QSAW\\xff\\xff\\xff\\xff' + b'x' * 65536)\n"
                          "sys.stdout.flush()\nsys.stdin.buffer.read()\n")
    case("replay, a worker announcing a 4 GiB frame", ["replay", "--backend", "worker:python3 " + greedy, recorded],
         "backend", "unavailable", budget=LARGE)

    # 9. Within every limit but past the machine: a budget smaller than the documented peak is
    #    exit 2 out-of-memory, one JSON line alone, never std::terminate (a JSON tree's destructor
    #    allocates while the exception unwinds: exit 134 before) nor a line after the report's.
    case("eval metadata, a legal table of 2^20 empty rows in 64 MiB of address space",
         ["eval", "metadata", "--input", nr_past], "memory", "out-of-memory", budget=64 * MiB)
    gib_cache = scratch.file("gib-cache.scenario", scenario_with({"num_compressed_blocks": 1 << 20}))
    case("replay, a legal scenario of 1 GiB of caches in 256 MiB of address space",
         ["replay", gib_cache, "--json", "out.json"], "memory", "out-of-memory", budget=LARGE)
    case("check --requests-csv, a 2^24-token request under QSA_MAX_CACHE_BYTES=8G in 512 MiB",
         ["check", "--requests-csv", token_csv, "--batches", "0", "--steps", "5", "--json", "out.json"],
         "memory", "out-of-memory", budget=512 * MiB, env={"QSA_MAX_CACHE_BYTES": "8G"})

    for name, args, field, rule, budget, stdin, env in cases:
        run_dir = scratch.fresh_dir("run")
        started = time.monotonic()
        result = run(qsacheck, args, run_dir, stdin=stdin, env=env, limit_as=budget)
        if time.monotonic() - started > 2:
            print("%.1f s: %s" % (time.monotonic() - started, name))
        if isinstance(rule, tuple):
            ok = check_error_line(failures, name, result, not_rule=rule[1])
        else:
            ok = check_error_line(failures, name, result, field=field, rule=rule)
        left = sorted(os.listdir(run_dir))
        if ok and left:
            failures.add(name, "left behind in its folder: %s" % left, result)
            ok = False
        if ok:
            failures.passed += 1

    # After another file's lines, a file whose caches cannot be reserved is stopped before its
    # first step (exit 3) and the replay goes on: stdout is the report, never a JSON error line.
    name = "replay, a file of 1 GiB of caches between two that fit, in 256 MiB"
    run_dir = scratch.fresh_dir("run")
    result = run(qsacheck, ["replay", recorded, gib_cache, recorded, "--json", "out.json"], run_dir, limit_as=LARGE)
    try:
        with open(os.path.join(run_dir, "out.json")) as f:
            files = json.load(f)["files"]
    except (OSError, ValueError, KeyError):
        files = []
    if result["rc"] != 3 or '"status":"error"' in result["out"] or len(files) != 3 or \
            files[1].get("stopped_by") != "out of memory reserving its caches" or not files[2].get("passed"):
        failures.add(name, "expected exit 3, the second file stopped and the third passed", result)
    else:
        failures.passed += 1


if __name__ == "__main__":
    sys.exit(main())
