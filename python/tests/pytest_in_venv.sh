#!/usr/bin/env bash
# The distribution as a user gets it: a venv over Debian's python3 with
# --system-site-packages (NumPy, pytest, Hypothesis, torch from apt), PIP_NO_INDEX=1 and no
# PYTHONPATH; `pip install` of python/ from the tree and of the wheel `pip wheel` builds; then
# pytest run from inside the venv, so the pytest11 entry point is what loads the plugin: the user's
# file beside the example kernel class (examples/kernels) and the planted-bug tests. Before that,
# from an installed prefix (`cmake --install`): pip takes <prefix>/share/qsacheck/python and the
# package finds qsacheck on PATH and libqsacheck_capi.so in <prefix>/lib/qsacheck.
# Usage: pytest_in_venv.sh PYTHON QSACHECK BUILD_DIR SOURCE_DIR WORK_DIR [PYTEST ARGS...]
set -eu
python=$1 qsacheck=$2 build=$3 source=$4 work=$5
shift 5
for module in venv pytest; do  # Debian's python3-venv, python3-pytest: skipped (77) without them
  "$python" -c "import $module" 2>/dev/null || { echo "no python3-${module} (apt-get install python3-$module)"; exit 77; }
done
unset PYTHONPATH
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 QSACHECK=$qsacheck
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
"$python" -m venv --system-site-packages "$work/prefix-venv"
"$work/prefix-venv/bin/pip" install -q "$work/prefix/share/qsacheck/python"
(cd "$work" && env -u QSACHECK PATH="$work/prefix/bin:$PATH" "$work/prefix-venv/bin/python" -c '
import sys
from qsacheck import qsacheck_binary, reference
assert qsacheck_binary().endswith("prefix/bin/qsacheck"), qsacheck_binary()
assert reference.library_path().startswith(sys.argv[1]), reference.library_path()
assert reference.metadata(reference.spec_examples()[0])["split"]["num_prefills"] == 3' "$work/prefix/lib" 2>&1) || exit 1
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install -q "$source/python"
"$work/venv/bin/pip" wheel -q --no-deps -w "$work/wheel" "$source/python"
"$work/venv/bin/pip" install -q --force-reinstall --no-deps "$work"/wheel/qsacheck-*.whl
cd "$work"  # not the source tree: the installed package is what imports
"$work/venv/bin/python" -c 'import qsacheck, qsacheck_worker, sys; assert "site-packages" in qsacheck.__file__, qsacheck.__file__'
exec "$work/venv/bin/python" -m pytest -p no:cacheprovider -q "$@"
