"""qsacheck_worker.numerics against the reference's conversions (SPEC 6), bit for bit: bf16 of
every bf16 value with each low half of interest (ties both ways, just below and above, NaNs) plus
random binary32 patterns; e4m3 of every bf16 pattern; the value of every e4m3 pattern.

    QSA_NUMERICS_TABLE=build/bin/numerics_table python3 -m unittest discover -s python/tests
"""

import os
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from qsacheck_worker import numerics  # noqa: E402

TABLE = os.environ.get("QSA_NUMERICS_TABLE", "")


def reference(mode, stdin=b""):
    return subprocess.run([TABLE, mode], input=stdin, stdout=subprocess.PIPE, check=True).stdout


@unittest.skipUnless(TABLE, "QSA_NUMERICS_TABLE names the reference's numerics_table program")
class AgainstTheReference(unittest.TestCase):
    def test_bf16_rounds_every_value_like_the_reference(self):
        seed = int.from_bytes(os.urandom(4), "little")
        rng = np.random.default_rng(seed)
        high = np.arange(65536, dtype=np.uint32) << 16
        lows = [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF]
        patterns = np.concatenate([high | low for low in lows] +
                                  [rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)])
        expected = np.frombuffer(reference("bf16", patterns.astype("<u4").tobytes()), dtype="<u2")
        actual = numerics.f32_to_bf16(patterns.view(np.float32))
        wrong = np.nonzero(expected != actual)[0]
        self.assertEqual(len(wrong), 0, "seed %d (replay: set it in this test): first at 0x%08x: expected 0x%04x, "
                         "got 0x%04x" % (seed, patterns[wrong[0]], expected[wrong[0]], actual[wrong[0]])
                         if len(wrong) else "")

    def test_e4m3_of_every_bf16_pattern_matches_the_reference(self):
        expected = np.frombuffer(reference("e4m3"), dtype=np.uint8)
        actual = numerics.e4m3_from_bf16(np.arange(65536, dtype=np.uint16))
        wrong = np.nonzero(expected != actual)[0]
        self.assertEqual(len(wrong), 0, "first at bf16 0x%04x: expected 0x%02x, got 0x%02x"
                         % (wrong[0], expected[wrong[0]], actual[wrong[0]]) if len(wrong) else "")

    def test_e4m3_values_match_the_reference(self):
        expected = np.frombuffer(reference("e4m3-values"), dtype="<f4")
        actual = numerics.e4m3_to_f32(np.arange(256, dtype=np.uint8))
        np.testing.assert_array_equal(expected.view(np.uint32)[~np.isnan(expected)],
                                      actual.view(np.uint32)[~np.isnan(actual)])
        self.assertTrue(np.array_equal(np.isnan(expected), np.isnan(actual)))


class WorkedExamples(unittest.TestCase):
    def test_spec6_examples(self):
        self.assertEqual(int(numerics.f32_to_bf16(np.float32(1.00390625))), 0x3F80)  # a tie goes to even
        self.assertEqual(int(numerics.f32_to_bf16(np.float32(np.nan))), 0x7FFF)
        self.assertEqual(int(numerics.f32_to_bf16(np.float32(np.inf))), 0x7F80)
        self.assertEqual(float(numerics.bf16_to_f32(np.uint16(0x3FC0))), 1.5)
        self.assertEqual(int(numerics.e4m3_from_bf16(numerics.f32_to_bf16(np.float32(1000.0)))), 0x7E)  # saturates
        self.assertEqual(int(numerics.e4m3_from_bf16(numerics.f32_to_bf16(np.float32(-np.inf)))), 0xFE)
        self.assertEqual(int(numerics.e4m3_from_bf16(np.uint16(0x7FC0))), 0x7F)  # NaN


if __name__ == "__main__":
    unittest.main()
