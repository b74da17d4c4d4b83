"""The distribution's parts that need no qsacheck: the in-tree build backend's wheel (entry point,
RECORD hashes, no bytecode), the worker command's quoting as a POSIX shell reads it, how a kernel
class is named for the worker and loaded back, and the binary lookup's errors.
Run: python3 -m unittest discover -s python/tests/package"""

import base64
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import unittest
import zipfile

PYTHON = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, PYTHON)

import qsacheck_build  # noqa: E402
from qsacheck import binary, kernel  # noqa: E402
from qsacheck.campaign import worker_backend  # noqa: E402


class TheBuildBackend(unittest.TestCase):
    def test_the_wheel_holds_both_packages_the_pytest11_entry_point_and_a_valid_record(self):
        with tempfile.TemporaryDirectory() as out:
            name = qsacheck_build.build_wheel(out)
            with zipfile.ZipFile(os.path.join(out, name)) as wheel:
                names = wheel.namelist()
                self.assertIn("qsacheck/pytest_plugin.py", names)
                self.assertIn("qsacheck_worker/server.py", names)
                self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
                info = qsacheck_build._dist_info()
                self.assertIn("[pytest11]\nqsacheck = qsacheck.pytest_plugin",
                              wheel.read(info + "/entry_points.txt").decode())
                for line in wheel.read(info + "/RECORD").decode().splitlines():
                    path, digest, size = line.split(",")
                    if path.endswith("RECORD"):
                        continue
                    data = wheel.read(path)
                    expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual((digest, int(size)), ("sha256=" + expected, len(data)), path)

    def test_the_hooks_ask_for_nothing_from_an_index(self):
        self.assertEqual(qsacheck_build.get_requires_for_build_wheel(), [])
        self.assertEqual(qsacheck_build.get_requires_for_build_sdist(), [])


class TheWorkerCommand(unittest.TestCase):
    def test_quoting_reads_back_the_same_arguments_in_a_posix_shell(self):
        args = ["/opt/my env/bin/python", "-m", "qsacheck.run_kernel", "k.py:K", "--kwargs", '{"bug": "it\'s"}', ""]
        self.assertEqual(shlex.split(binary.quote_command(args)), args)
        self.assertEqual(binary.quote_command(["/a/b", "-m", "x:Y"]), "/a/b -m x:Y")

    def test_a_class_is_named_by_its_file_and_loaded_back_from_any_folder(self):
        with tempfile.TemporaryDirectory() as folder:
            os.makedirs(os.path.join(folder, "pkg"))
            with open(os.path.join(folder, "pkg", "__init__.py"), "w") as f:
                f.write("")
            with open(os.path.join(folder, "pkg", "kernels.py"), "w") as f:
                f.write("from . import helper\nclass K:\n    value = helper.VALUE\n")
            with open(os.path.join(folder, "pkg", "helper.py"), "w") as f:
                f.write("VALUE = 7\n")
            code = ("import sys; sys.path.insert(0, %r); from qsacheck import kernel; "
                    "print(kernel.load(%r).value)" % (PYTHON, os.path.join(folder, "pkg", "kernels.py") + ":K"))
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
            self.assertEqual(done.stdout.strip(), "7", done.stderr)  # relative imports of its package work
        self.assertEqual(kernel.spec_of(TheWorkerCommand), os.path.abspath(__file__) + ":TheWorkerCommand")
        self.assertTrue(worker_backend("m:K", {"bug": "x"}).startswith("worker:" + sys.executable + " -m qsacheck.run_kernel m:K"))

    def test_a_missing_program_names_both_ways_to_give_it(self):
        saved = dict(os.environ)
        try:
            os.environ["QSACHECK"] = "/nonexistent/qsacheck"
            with self.assertRaisesRegex(binary.NotFound, "QSACHECK=/nonexistent/qsacheck is not an executable"):
                binary.qsacheck_binary()
            del os.environ["QSACHECK"]
            os.environ["PATH"] = "/nonexistent"
            with self.assertRaisesRegex(binary.NotFound, "put it on PATH .* or set QSACHECK"):
                binary.qsacheck_binary()
        finally:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    unittest.main()
