"""to_device / from_device on a padded, strided cache view: the same shape, strides and padding on
the device, and every element back in place (docs/worker-protocol.md, "The shared memory")."""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import qsacheck_worker as qw  # noqa: E402

try:
    import torch
except ImportError:  # Debian's python3-torch is optional
    torch = None


@unittest.skipIf(torch is None, "torch is not installed (apt-get install python3-torch)")
class MirrorTest(unittest.TestCase):
    def padded_cache(self):
        # [blocks 3, rows 4, width 5] with row stride 6 and block stride 27: padding between rows
        # and between blocks, as a SPEC 4 cache with packed pages.
        memory = np.arange(3 * 27 + 8, dtype=np.uint16)
        view = np.lib.stride_tricks.as_strided(memory[2:], shape=(3, 4, 5), strides=(27 * 2, 6 * 2, 2))
        return memory, view

    def test_the_device_copy_keeps_shape_strides_and_values(self):
        _, view = self.padded_cache()
        tensor = qw.to_device(view, "cpu")
        self.assertEqual(tuple(tensor.shape), view.shape)
        self.assertEqual(tuple(tensor.stride()), (27, 6, 1))
        np.testing.assert_array_equal(tensor.numpy().view(np.uint16), view)

    def test_writes_come_back_in_place_and_padding_is_kept(self):
        memory, view = self.padded_cache()
        before = memory.copy()
        tensor = qw.to_device(view, "cpu")
        tensor[1, 2, 3] = 7
        qw.from_device(tensor, view)
        expected = before.copy()
        expected[2 + 27 + 2 * 6 + 3] = 7
        np.testing.assert_array_equal(memory, expected)


if __name__ == "__main__":
    unittest.main()
