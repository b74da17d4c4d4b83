"""The distribution's build backend (PEP 517, `requires = []`): builds the wheel and the sdist of
python/ with the standard library alone, so `pip install ./python` needs no package index and no
setuptools of a particular version (docs/decisions.md, "Python distribution"). It knows this tree
only: the two import packages, the metadata and the entry points below.
"""

import base64
import hashlib
import io
import os
import tarfile
import time
import zipfile

NAME = "qsacheck"
VERSION = "1.0.0"
PACKAGES = ("qsacheck", "qsacheck_worker")
SUMMARY = "Check a QSA indexer kernel (NumPy, torch, Triton) against qsacheck's reference: workers, pytest, Hypothesis"
REQUIRES = ("numpy",)
# pytest11 is how pytest finds plugins of installed distributions; the plugin module imports
# nothing heavy, since every pytest run of the environment loads it.
ENTRY_POINTS = "[pytest11]\nqsacheck = qsacheck.pytest_plugin\n"
HERE = os.path.dirname(os.path.abspath(__file__))
SDIST_FILES = ("pyproject.toml", "qsacheck_build.py", "README.md")


def _package_files():
    for package in PACKAGES:
        root = os.path.join(HERE, package)
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if not name.endswith((".pyc", ".pyo")):
                    path = os.path.join(folder, name)
                    yield path, os.path.relpath(path, HERE).replace(os.sep, "/")


def _metadata():
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + VERSION, "Summary: " + SUMMARY,
             "Requires-Python: >=3.9"]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    readme = os.path.join(HERE, "README.md")
    body = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    return "\n".join(lines + ["Description-Content-Type: text/markdown", "", body])


def _dist_info():
    return NAME + "-" + VERSION + ".dist-info"


def _wheel_name():
    return NAME + "-" + VERSION + "-py3-none-any.whl"


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _write_wheel(directory, files):
    """files: [(arcname, bytes)]; adds the dist-info and RECORD."""
    info = _dist_info()
    files = list(files) + [
        (info + "/METADATA", _metadata().encode()),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: qsacheck_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (info + "/entry_points.txt", ENTRY_POINTS.encode()),
        (info + "/top_level.txt", ("\n".join(PACKAGES) + "\n").encode()),
    ]
    record = [_record_line(a, d) for a, d in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    path = os.path.join(directory, _wheel_name())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in files:
            entry = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))  # reproducible
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return os.path.basename(path)


# ---- PEP 517 hooks --------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(arc, open(p, "rb").read()) for p, arc in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a .pth naming this folder, so edits to python/ take effect without reinstalling."""
    return _write_wheel(wheel_directory, [("__editable__.qsacheck.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = NAME + "-" + VERSION
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        members = [(os.path.join(HERE, f), f) for f in SDIST_FILES if os.path.exists(os.path.join(HERE, f))]
        members += list(_package_files())
        for source, arcname in members:
            data = open(source, "rb").read()
            entry = tarfile.TarInfo(base + "/" + arcname)
            entry.size, entry.mtime, entry.mode = len(data), int(time.mktime((2026, 1, 1, 0, 0, 0, 0, 0, 0))), 0o644
            sdist.addfile(entry, io.BytesIO(data))
        pkg_info = _metadata().encode()
        entry = tarfile.TarInfo(base + "/PKG-INFO")
        entry.size, entry.mode = len(pkg_info), 0o644
        sdist.addfile(entry, io.BytesIO(pkg_info))
    return os.path.basename(path)
