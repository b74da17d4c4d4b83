#!/usr/bin/env python3
"""Every command, every kind of bad input, as a hostile new user would type them: each
must end in exit 2 with stdout exactly one JSON line {"status": "error", ...} (docs/json-schema.md,
"Errors": every other word goes to stderr), never a crash, and leave nothing in its folder.

Two tables. The first crosses each input a command reads (a file, stdin) with each kind of broken
file (missing, a folder, empty, invalid UTF-8, malformed, NUL bytes, a byte-order mark before
garbage, the wrong JSON type, deep nesting), and each command with each kind of broken option (an
unknown option, an empty value, a number that is not one, an unknown backend, an output in a
missing folder, an output that is the input, `-` where stdout is no documented output). The second
replays the issue's attack classes with fresh variants: outputs that are inputs through links,
names that leave their folder, wrong answers to odd numbers and dates, plugins that are not
libraries, bytes that are not text. Where the contract is not exit 2 (a FIFO output is written in
place; a write error on stdout is exit 3), the case says so.

    exit_2_one_json_line_test.py QSACHECK SOURCE_DIR [--sanitized]

About 400 runs, 8 s. With --sanitized (the ASan build, where each run costs ~10 times more) three
kinds of broken file per reader and every attack class; not the table of broken options, whose
parser runs sanitized over fuzz.fuzz_command_line's corpus.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_runner import CRASH_CODES, Failures, Scratch, check_error_line, run  # noqa: E402


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    qsacheck, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    scratch = Scratch("qsacheck-exit2-")
    failures = Failures()
    try:
        Cases(qsacheck, source, scratch, failures, "--sanitized" in sys.argv[3:]).run_all()
    finally:
        scratch.remove()
    return failures.done("bad inputs")


class Cases:
    def __init__(self, qsacheck, source, scratch, failures, sanitized):
        self.q, self.source, self.scratch, self.failures = qsacheck, source, scratch, failures
        self.sanitized = sanitized
        self.W = scratch.path
        self.recorded = os.path.join(source, "traces", "recorded", "default.scenario")
        self.record = os.path.join(source, "records", "history", "2026-11-30-final-metadata_bench.json")
        self.shard = os.path.join(source, "cli", "tests", "bad_inputs", "merge_rows_near_2pow63", "report.json")
        self.csv_log = os.path.join(source, "traces", "logs", "azure-code-2023-window.csv")
        self.plugin_dir = os.path.dirname(qsacheck)

    # One run: exit 2, one JSON line, nothing left in the run folder (other than what `keep` names).
    def expect_error(self, name, args, field=None, rule=None, stdin=None, env=None, keep=()):
        run_dir = self.scratch.fresh_dir("run")
        started = time.monotonic()
        try:
            result = run(self.q, args, run_dir, stdin=stdin, env=env, timeout=60)
            if time.monotonic() - started > 1:
                print("%.1f s: %s" % (time.monotonic() - started, name))
        except subprocess.TimeoutExpired:
            self.failures.add(name, "still running after 60 s: the bad input was not refused up front")
            return
        ok = check_error_line(self.failures, name, result, field=field, rule=rule)
        left = sorted(set(os.listdir(run_dir)) - set(keep))
        if ok and left:
            self.failures.add(name, "left behind in its folder: %s" % left, result)
            ok = False
        if ok:
            self.failures.passed += 1

    def expect_exit(self, name, args, code, words=None, stdin=None, check=None):
        run_dir = self.scratch.fresh_dir("run")
        result = run(self.q, args, run_dir, stdin=stdin, timeout=60)
        if result["rc"] in CRASH_CODES or result["rc"] != code:
            self.failures.add(name, "expected exit %d" % code, result)
        elif words and words not in result["out"] + result["err"]:
            self.failures.add(name, "does not say %r" % words, result)
        elif check is not None and not check(run_dir):
            self.failures.add(name, "the files afterwards are wrong", result)
        else:
            self.failures.passed += 1

    def run_all(self):
        self.broken_files()
        if not self.sanitized:  # the argument parser runs sanitized in fuzz.fuzz_command_line's corpus
            self.broken_options()
        self.attack_classes()

    # Table 1a: every reader of a file or stdin, every kind of broken file.
    def broken_files(self):
        s = self.scratch
        kinds = {
            "missing": os.path.join(self.W, "no-such-file"),
            "a folder": self.W,
            "empty": s.file("empty", b""),
            "invalid UTF-8": s.file("utf8", b'{"kind": "\xff\xfe"}\n'),
            "malformed": s.file("malformed", b'{"kind": '),
            "NUL bytes": s.file("nul", b"\x00" * 64),
            "BOM before garbage": s.file("bom", b"\xef\xbb\xbf}{"),
            "wrong type": s.file("wrongtype", b"[1, 2, 3]\n"),
            "nested 200 000 deep": s.file("deep", b"[" * 200000 + b"]" * 200000),
        }
        lines = ["empty", "invalid UTF-8", "NUL bytes", "missing", "a folder"]  # for line and list readers
        d = self.scratch.fresh_dir("records")
        readers = [
            ("eval metadata --input", lambda p: ["eval", "metadata", "--input", p], list(kinds)),
            ("eval step --input", lambda p: ["eval", "step", "--input", p], list(kinds)),
            ("replay FILE.json", lambda p: ["replay", p], [k for k in kinds if k not in ("missing", "a folder")]),
            ("replay", lambda p: ["replay", "--json", "out.json", p], list(kinds)),
            ("record-expected", lambda p: ["record-expected", p], list(kinds)),
            ("merge", lambda p: ["merge", p, "--json", "out.json"], list(kinds)),
            ("check --requests", lambda p: ["check", "--requests", p, "--json", "out.json"], list(kinds)),
            ("check --requests-csv", lambda p: ["check", "--requests-csv", p], list(kinds)),
            ("check --allow-excluded", lambda p: ["check", "--allow-excluded", p], ["invalid UTF-8", "NUL bytes",
                                                                                     "missing", "a folder"]),
            # A key that is no gap is exit 1 after the campaign (a listed gap that is not one), by design.
            ("simulate --requests", lambda p: ["simulate", "--requests", p, "out.scenario"], list(kinds)),
            ("input-space --known-gaps", lambda p: ["input-space", "--campaign", "--known-gaps", p],
             ["missing", "a folder"]),
            ("bench compare (baseline)", lambda p: ["bench", "compare", p, self.record], list(kinds)),
            ("bench compare (candidate)", lambda p: ["bench", "compare", self.record, p, "--json", "out.json"],
             list(kinds)),
            ("bench export", lambda p: ["bench", "export", p, "--format", "bencher", "-o", "out.json"], list(kinds)),
            ("bench import --summary", lambda p: ["bench", "import", "--summary", p, "-o", d], lines),
            ("bench import --log", lambda p: ["bench", "import", "--log", p, "--commit", "abc", "-o", d], lines),
            ("report", lambda p: ["report", p, "-o", "report"], list(kinds)),
        ]
        for reader, make, reader_kinds in readers:
            if self.sanitized:
                reader_kinds = [k for k in reader_kinds if k in ("missing", "invalid UTF-8", "nested 200 000 deep")]
            for kind in reader_kinds:
                path = kinds[kind]
                if reader.startswith("replay FILE.json"):
                    path = s.file(os.path.basename(path) + ".json", open(path, "rb").read())
                self.expect_error("%s: %s" % (reader, kind), make(path))
        for kind in ("empty", "invalid UTF-8", "malformed", "NUL bytes", "nested 200 000 deep"):
            self.expect_error("eval metadata on stdin: %s" % kind, ["eval", "metadata"], stdin=kinds[kind])
            self.expect_error("eval step on stdin: %s" % kind, ["eval", "step"], stdin=kinds[kind])

    # Table 1b: every command, every kind of broken option.
    def broken_options(self):
        T = self.recorded
        commands = {
            "check": ["check"],
            "replay": ["replay", T],
            "record-expected": ["record-expected", T],
            "simulate": ["simulate", "out.scenario"],
            "merge": ["merge", self.shard],
            "mutants": ["mutants"],
            "input-space": ["input-space"],
            "backends": ["backends"],
            "eval metadata": ["eval", "metadata"],
            "eval step": ["eval", "step"],
            "eval ring-capacity": ["eval", "ring-capacity", "--compress-ratio", "4", "--num-speculative-tokens", "1",
                                   "--block-size", "64"],
            "bench": ["bench"],
            "bench compare": ["bench", "compare", self.record, self.record],
            "bench export": ["bench", "export", self.record, "--format", "bencher"],
            "bench import": ["bench", "import", "--summary", self.record, "-o", "records"],
            "report": ["report", self.record, "-o", "report"],
        }
        for name, args in commands.items():
            self.expect_error("%s --no-such-option" % name, args + ["--no-such-option"], "arguments", "bad-argument")
            self.expect_error("%s with a stray argument" % name, args[:2] + ["stray-word"] + args[2:]
                              if name.startswith(("eval", "bench")) else args + ["--json", "x.json", "stray"]
                              if name in ("check", "mutants") else args + ["--stray"])
        integers = [("check", "--steps"), ("check", "--seed"), ("check", "--batches"), ("check", "--jobs"),
                    ("check", "--max-findings"), ("mutants", "--steps"), ("mutants", "--seed"),
                    ("simulate", "--steps"), ("simulate", "--seed"), ("simulate", "--head-dim"),
                    ("input-space", "--batches"), ("bench", "--repetitions"), ("bench", "--iterations")]
        for name, option in integers:
            extra = ["--campaign"] if name == "input-space" else []
            for value in ("x", "-1", "1e3", "0x10", "1.5", "nan", "99999999999999999999999"):
                self.expect_error("%s %s %s" % (name, option, value), commands[name] + extra + [option, value], option)
        # Real numbers (1e3 and 0x10 are numbers there); a word that is no number names its option too.
        reals = [("check", "--time-budget"), ("check", "--worker-timeout"), ("replay", "--worker-timeout"),
                 ("bench compare", "--alpha"), ("bench compare", "--threshold"), ("report", "--threshold"),
                 ("report", "--alpha")]
        for name, option in reals:
            for value in ("x", "-1", "nan"):
                self.expect_error("%s %s %s" % (name, option, value), commands[name] + [option, value], option)
        for name, option in [("check", "--json"), ("check", "--junit"), ("check", "--out"), ("check", "--workload"),
                             ("check", "--backend"), ("replay", "--json"), ("replay", "--junit"),
                             ("replay", "--backend"), ("record-expected", "--json"), ("simulate", "--json"),
                             ("simulate", "--workload"), ("merge", "--json"), ("mutants", "--json"),
                             ("mutants", "--workload"), ("backends", "--backend"), ("bench compare", "--json"),
                             ("bench export", "--output"), ("bench", "--out"), ("bench", "--backend"),
                             ("report", "--out-dir"),
                             ("eval metadata", "--input"), ("eval metadata", "--backend")]:
            self.expect_error("%s %s ''" % (name, option), commands[name] + [option, ""], option, "empty-value")
        for name in ("check", "replay", "mutants", "backends", "eval metadata", "eval step", "bench"):
            self.expect_error("%s --backend no-such" % name, commands[name] + ["--backend", "no-such-backend"],
                              "backend")
        missing = os.path.join(self.W, "missing-folder", "x.json")
        for name, option in [("check", "--json"), ("check", "--junit"), ("replay", "--json"), ("replay", "--junit"),
                             ("record-expected", "--json"), ("simulate", "--json"), ("merge", "--json"),
                             ("mutants", "--json"), ("bench compare", "--json"), ("bench export", "--output")]:
            self.expect_error("%s %s in a missing folder" % (name, option), commands[name] + [option, missing],
                              option, "unwritable")
        self.expect_error("simulate into a missing folder", ["simulate", missing], "file", "unwritable")
        self.expect_error("simulate into '-'", ["simulate", "-"], "file", "unwritable")
        self.expect_error("check --junit -", ["check", "--junit", "-"], "--junit", "unwritable")
        self.expect_error("bench -o in a missing folder", ["bench", "-o", missing])
        self.expect_error("report -o under a file", ["report", self.record, "-o", os.path.join(T, "sub")])

    # Table 2: the attack classes, fresh variants.
    def attack_classes(self):
        s, W, T = self.scratch, self.W, self.recorded
        trace = s.file("t.scenario", open(T).read())
        link = os.path.join(W, "link.json")
        if not os.path.lexists(link):
            os.symlink(trace, link)
        hard = os.path.join(W, "hard.scenario")
        if not os.path.exists(hard):
            os.link(trace, hard)
        shard = s.file("shard.json", open(self.shard).read())
        record = s.file("record.json", open(self.record).read())
        measured = s.file("measured.json", open(os.path.join(self.source, "records", "history",
                                                             "2026-12-02-0138-qsacheck-bench-cuda-1.json")).read())
        # Destroyed paths: an output that is an input, through a link, or another output.
        self.expect_error("replay --json a symbolic link to the scenario", ["replay", "--json", link, trace],
                          "--json", "output-is-input")
        self.expect_error("replay --json a hard link of the scenario", ["replay", "--json", hard, trace],
                          "--json", "output-is-input")
        self.expect_error("replay --junit the scenario", ["replay", "--junit", trace, trace], "--junit",
                          "output-is-input")
        self.expect_error("replay --json X --junit X", ["replay", "--json", "x", "--junit", "x", trace], "--junit",
                          "same-output")
        # record-expected rewrites its files, so they are outputs too: the same file twice.
        self.expect_error("record-expected --json the scenario", ["record-expected", "--json", trace, trace], "--json",
                          "same-output")
        self.expect_error("simulate --json the same file as the scenario", ["simulate", "--json", "s", "s"])
        self.expect_error("merge -o the shard", ["merge", shard, "-o", shard], "--json", "output-is-input")
        self.expect_error("merge --junit the shard", ["merge", shard, "--junit", shard], "--junit", "output-is-input")
        self.expect_error("bench export -o the record",
                          ["bench", "export", record, "--format", "bencher", "-o", record],
                          "--output", "output-is-input")
        self.expect_error("bench compare --json the baseline", ["bench", "compare", measured, measured, "--json",
                                                               measured], "--json", "output-is-input")
        self.expect_error("check --json X --junit X", ["check", "--json", "r", "--junit", "r"], "--junit",
                          "same-output")
        self.expect_error("check --json the requests log", ["check", "--requests", s.file("log.csv", open(
            self.csv_log).read()), "--json", os.path.join(W, "log.csv")], "--json", "output-is-input")
        self.expect_error("simulate into the requests log", ["simulate", "--requests", os.path.join(W, "log.csv"),
                                                            os.path.join(W, "log.csv")], "file", "output-is-input")
        # Outputs the write at the end could not make: a loop of links (the rename replaced the
        # link with a file, exit 0), a name past NAME_MAX, a name that only the temporary file's
        # suffix takes past it (the report was lost after the run, exit 0).
        for a, b in (("loop-a", "loop-b"), ("loop-b", "loop-a")):
            if not os.path.lexists(os.path.join(W, a)):
                os.symlink(b, os.path.join(W, a))
        self.expect_error("replay --json a loop of links", ["replay", "--json", os.path.join(W, "loop-a"), trace],
                          "--json", "unwritable")
        if not os.path.islink(os.path.join(W, "loop-a")):
            self.failures.add("replay --json a loop of links", "the link was replaced")
        for length in (300, 250):
            self.expect_error("check --json a name of %d bytes" % length,
                              ["check", "--json", os.path.join(W, "n" * length)], "--json", "unwritable")
        self.expect_error("replay --junit a name under a file", ["replay", "--junit", os.path.join(trace, "x.xml"),
                                                                trace], "--junit", "unwritable")
        # Names that would leave their folder.
        d = self.scratch.fresh_dir("imported")
        summary = os.path.join(self.source, "records", "tests", "fixtures", "2026-11-30-final-summary.txt")
        for name in ("..", "../x", "a/b", "/tmp/x", "x/.."):
            self.expect_error("bench import --name %r" % name, ["bench", "import", "--summary", summary, "--name",
                                                                name, "-o", d], "--name")
        # The second record of an import cannot be written (a folder holds its name): nothing is
        # printed before the JSON line and the first record is not left (it was written, then exit 2).
        d = self.scratch.fresh_dir("imported")
        os.makedirs(os.path.join(d, "x-step_update_bench.json"))
        self.expect_error("bench import, the second record's name taken by a folder",
                          ["bench", "import", "--summary", summary, "--name", "x", "-o", d], "--out-dir", "unwritable")
        if os.path.exists(os.path.join(d, "x-metadata_bench.json")):
            self.failures.add("bench import, the second record's name taken by a folder", "the first record was left")
        # Wrong answers to odd values.
        for option, value in (("--threshold", "inf"), ("--threshold", "-0.5"), ("--alpha", "1"), ("--alpha", "0"),
                              ("--threshold", "1e999")):
            self.expect_error("bench compare %s %s" % (option, value), ["bench", "compare", self.record, self.record,
                                                                         option, value], option)
        for args, field in ((["check", "--seed", "18446744073709551616"], "--seed"),
                            (["check", "--shard", "0/0"], "--shard"), (["check", "--shard", "2/1"], "--shard"),
                            (["check", "--shard", "1/2/3"], "--shard"), (["check", "--time-budget", "inf"],
                                                                           "--time-budget"),
                            (["check", "--devices", "0,0"], "--devices"),
                            (["simulate", "--requests", self.csv_log, "--window", "5:3", "o.scenario"], "--window"),
                            (["bench", "--backend", "reference"], "--backend"),
                            (["bench", "--against", "reference"], "--against")):
            self.expect_error(" ".join(args), args, field)
        for date, why in (("2023-02-29 00:00:00", "not a leap year"), ("2023-04-31 00:00:00", "April has 30 days"),
                          ("2023-13-01 00:00:00", "month 13"), ("2023-11-16 24:00:00", "hour 24")):
            csv = s.file("azure.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n%s,100,10\n" % date)
            self.expect_error("simulate --requests an Azure CSV of %s (%s)" % (date, why),
                              ["simulate", "--requests", csv, "--requests-format", "azure-csv", "o.scenario"])
        csv = s.file("dup.csv", "prompt_tokens,output_tokens,prompt_tokens\n10,1,20\n")
        self.expect_error("check --requests-csv a column named twice", ["check", "--requests-csv", csv])
        # Plugins that are not plugins.
        for what, path in (("/dev/null", "/dev/null"), ("a folder", W), ("a text file", trace),
                           ("a missing file", os.path.join(W, "missing.so")), ("/dev/zero", "/dev/zero")):
            for command in (["backends"], ["check"], ["eval", "metadata"]):
                self.expect_error("%s --backend plugin:%s" % (" ".join(command), what),
                                  command + ["--backend", "plugin:" + path], "backend", "unavailable")
        for broken in ("variant_count", "entry_aborts", "constructor_exits", "inverted_range", "no_entry", "abi"):
            library = os.path.join(self.plugin_dir, "libqsa_test_plugin_broken_%s.so" % broken)
            if os.path.exists(library):
                self.expect_error("backends --backend a plugin with %s" % broken,
                                  ["backends", "--backend", "plugin:" + library], "backend", "unavailable")
        # Bytes that are not text in arguments and the environment.
        self.expect_error("check --workload of invalid UTF-8", ["check", "--workload", "\udcff\udcfe".encode(
            "utf-8", "surrogateescape").decode("utf-8", "surrogateescape")], "workload")
        self.expect_error("a limit variable of letters", ["eval", "metadata"], "QSA_MAX_INPUT_BYTES", "bad-limit",
                          env={"QSA_MAX_INPUT_BYTES": "lots"})
        self.expect_error("a limit variable of 2^63", ["check"], "QSA_MAX_CACHE_BYTES", "bad-limit",
                          env={"QSA_MAX_CACHE_BYTES": "9223372036854775808"})
        self.expect_error("a 100 KB unknown option", ["check", "--" + "x" * 100000])
        # Outputs that are no regular file keep their kind and are written in place (exit 0).
        fifo = os.path.join(W, "fifo")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
        self.expect_exit("replay --json a FIFO is written in place", ["replay", "--json", fifo, trace], 0,
                         check=lambda run_dir: os.path.exists(fifo) and not os.path.isfile(fifo))
        got = reader.communicate(timeout=30)[0]
        if not got.startswith(b"{"):
            self.failures.add("replay --json a FIFO", "the reader of the FIFO got %r" % got[:80])
        # A write error on stdout is never exit 0 (exit 3), and a bad input stays exit 2.
        with open("/dev/full", "w") as full:
            for args, code in ((["input-space"], 3), (["mutants", "--list"], 3), (["backends"], 3),
                               (["eval", "ring-capacity", "--compress-ratio", "4", "--num-speculative-tokens", "1",
                                 "--block-size", "64"], 3), (["replay", "--json", "-", trace], 3),
                               (["eval", "metadata", "--input", os.path.join(W, "missing")], 2)):
                p = subprocess.run([self.q] + args, stdout=full, stderr=subprocess.PIPE, cwd=W, timeout=60)
                if p.returncode != code:
                    self.failures.add("%s > /dev/full" % " ".join(args), "exit %d, expected %d" % (p.returncode, code))
                else:
                    self.failures.passed += 1


if __name__ == "__main__":
    sys.exit(main())
