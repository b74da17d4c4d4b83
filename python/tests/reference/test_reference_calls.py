"""qsacheck.reference (libqsacheck_capi.so through ctypes) against `qsacheck eval`: byte-equal
output on SPEC 8's examples, 300 batches of the project's generator, the worked step example
(bf16 and fp8, with and without --pooled), the first 20 steps of every recorded trace and every `eval metadata` / `eval step` bad input of
cli/tests/bad_inputs (the error line); the comparison's readable diff.
Run: QSACHECK=build/bin/qsacheck python3 -m unittest discover -s python/tests/reference"""

import json
import os
import subprocess
import sys
import unittest

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "python"))

import numpy as np  # noqa: E402

from qsacheck import qsacheck_binary, reference  # noqa: E402


def qsacheck_eval(what, text, *flags):
    done = subprocess.run([qsacheck_binary(), "eval", what, *flags], input=text, capture_output=True, text=True)
    return done.returncode, done.stdout


class ReferenceCallsMatchQsacheckEval(unittest.TestCase):
    def assert_metadata_same(self, batch):
        text = json.dumps(batch)
        code, printed = qsacheck_eval("metadata", text)
        self.assertEqual(code, 0, printed)
        self.assertEqual(reference.metadata_json(text), printed)

    def test_spec_8_examples(self):
        examples = reference.spec_examples()
        self.assertEqual(len(examples), 4)
        for batch in examples:
            self.assert_metadata_same(batch)

    def test_300_generated_batches_in_one_qsacheck_run_each(self):
        kinds = ("compressed", "ring", "passthrough")
        shapes = set()
        for seed in range(300):
            batch = reference.generated_batch(seed, kinds[seed % 3], max_tokens=256)
            shapes.add(batch["shape"])
            self.assert_metadata_same(batch["input"])
        self.assertGreaterEqual(len(shapes), 8, shapes)  # the generator's shape families, not one

    def test_the_worked_step_example_in_both_dtypes(self):
        with open(os.path.join(SOURCE, "docs", "examples", "eval-step-streaming.json")) as f:
            case = json.load(f)
        for dtype in ("bf16", "fp8_e4m3"):
            case["store_dtype"] = dtype
            text = json.dumps(case)
            for flags in ((), ("--pooled",)):
                code, printed = qsacheck_eval("step", text, *flags)
                self.assertEqual(code, 0, printed)
                self.assertEqual(reference.step_json(text, pooled=bool(flags)), printed)
            out = reference.step(text)
            self.assertEqual(out["q_out"].dtype, np.uint8 if dtype == "fp8_e4m3" else np.uint16)

    def test_the_first_20_steps_of_every_recorded_trace(self):
        folder = os.path.join(SOURCE, "traces", "recorded")
        traces = sorted(f for f in os.listdir(folder) if f.endswith(".scenario"))
        self.assertGreaterEqual(len(traces), 8)
        for name in traces:
            cases = reference.scenario_steps(os.path.join(folder, name), 20)
            self.assertEqual(len(cases), 20, name)
            for step, case in enumerate(cases):
                text = json.dumps(case)
                code, printed = qsacheck_eval("step", text)
                self.assertEqual(code, 0, "%s step %d: %s" % (name, step, printed))
                self.assertEqual(reference.step_json(text), printed, "%s step %d" % (name, step))

    def test_bad_inputs_give_qsacheck_s_error_line(self):
        folder = os.path.join(SOURCE, "cli", "tests", "bad_inputs")
        checked = 0
        for name in sorted(os.listdir(folder)):
            case = os.path.join(folder, name)
            if not os.path.isdir(case) or sorted(os.listdir(case)) != ["args", "expect.json", "stdin"]:
                continue  # the README, or a case with its own environment (a lowered limit, say)
            with open(os.path.join(case, "args")) as f:
                args = f.read().split()
            with open(os.path.join(case, "expect.json")) as f:
                expect = json.load(f)
            if "env" in expect or expect.get("exit") != 2:
                continue  # a lowered limit (the library reads the environment once), or a case that passes
            if args not in (["eval", "metadata"], ["eval", "step"]):
                continue
            with open(os.path.join(case, "stdin"), errors="replace") as f:
                text = f.read()
            code, printed = qsacheck_eval(args[1], text)
            self.assertEqual(code, 2, name)
            call = reference.metadata_json if args[1] == "metadata" else reference.step_json
            with self.assertRaises(reference.ReferenceError) as refused:
                call(text)
            self.assertEqual(refused.exception.error, json.loads(printed), name)
            checked += 1
        self.assertGreater(checked, 10)

    def test_comparison_diff_names_the_first_element(self):
        expected = (np.arange(64, dtype=np.uint16) + 16000).reshape(2, 32)
        actual = expected.copy()
        actual[1, 3] += 2
        self.assertFalse(reference.compare_rows(expected, actual))
        self.assertTrue(reference.compare_rows(expected, actual, "row-ulp:2"))
        diff = reference.compare_rows(expected, actual, "row-ulp:1", name="q_out").diff
        self.assertIn("q_out: 1 elements beyond 1 row-ulps; first at row 1, element 3", diff)
        with self.assertRaisesRegex(AssertionError, r"slot_mapping: 1 elements differ; first at \(2,\)"):
            reference.assert_equal(np.array([1, 2, 3]), np.array([1, 2, 4]), "slot_mapping")


if __name__ == "__main__":
    unittest.main()
