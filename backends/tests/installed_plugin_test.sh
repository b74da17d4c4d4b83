#!/usr/bin/env bash
# The installed package as a kernel engineer uses it: `cmake --install` into a temporary prefix,
# the host example plugin built out of tree against find_package(qsacheck), a C99 compile through
# pkg-config, then through the installed qsacheck: backends, check (the default campaign at STEPS
# steps per scenario, 100 by default), replay of traces/recorded/, the fuzz corpus replays with
# QSA_FUZZ_BACKEND, check --isolate (the installed qsacheck-worker-host), the installed Python module
# with the NumPy example worker, and `mutants --backend` (both planted variants must be caught).
# Usage: installed_plugin_test.sh BUILD_DIR SOURCE_DIR FUZZ_METADATA FUZZ_SCENARIO [STEPS [NUMPY_PYTHON]]
set -eu -o pipefail
build=$1 source=$2 fuzz_metadata=$3 fuzz_scenario=$4 steps=${5:-100} python=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "== $*"; }

step "cmake --install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
step "the host example, out of tree against the installed package"
cmake -S "$source/examples/plugins/host" -B "$work/host" "${generator[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/host" >/dev/null
plugin="plugin:$work/host/libqsa_example_host.so"
qsacheck="$work/prefix/bin/qsacheck"

step "the header is C99 through pkg-config"
printf '#include <qsacheck/plugin.h>\nstatic QsaPluginEntry entry;\nint main(void) { return entry != 0; }\n' \
  >"$work/c99.c"
cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags qsacheck) "$work/c99.c"

step "qsacheck backends --backend $plugin"
"$qsacheck" backends --backend "$plugin"
step "qsacheck check (default campaign, $steps steps per scenario)"
"$qsacheck" check --backend "$plugin" --steps "$steps" --out "$work"
step "qsacheck replay of traces/recorded"
for trace in "$source"/traces/recorded/*.scenario; do "$qsacheck" replay --backend "$plugin" "$trace"; done
step "fuzz corpus and regression replays with QSA_FUZZ_BACKEND=$plugin"
for target in "$fuzz_metadata" "$fuzz_scenario"; do
  name=$(basename "$target")
  QSA_FUZZ_BACKEND="$plugin" "$target" "$source/fuzz/corpus/$name" "$source/fuzz/regressions/$name" 2>&1 |
    grep -E "checked against|no finding|finding"
done
step "qsacheck check --isolate (the plugin inside the installed qsacheck-worker-host)"
"$qsacheck" check --isolate --backend "$plugin" --workload default --scenarios 1 --steps "$steps" --batches 100 \
  --out "$work"
if [ -n "$python" ]; then
  step "the installed Python module: the NumPy example worker"
  PYTHONPATH="$work/prefix/lib/python3/dist-packages" "$python" -c "import qsacheck_worker, sys; \
assert qsacheck_worker.__file__.startswith(sys.argv[1]), qsacheck_worker.__file__" "$work/prefix"
  PYTHONPATH="$work/prefix/lib/python3/dist-packages" "$qsacheck" check \
    --backend worker:"$python $source/examples/workers/numpy/qsa_numpy_worker.py" --workload default --scenarios 1 \
    --steps "$steps" --batches 100 --out "$work"
else
  step "no python3 with NumPy here: the installed module is checked by python.* where NumPy is"
fi
step "qsacheck mutants --backend $plugin (both planted variants caught)"
"$qsacheck" mutants --backend "$plugin" --steps "$steps"
echo "PASS"
