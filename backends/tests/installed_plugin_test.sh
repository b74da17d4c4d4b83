#!/usr/bin/env bash
# The installed package as a kernel engineer uses it: `cmake --install` into a temporary prefix,
# the host example plugin built out of tree against find_package(qsacheck), find_package(qsacheck 1)
# without DLPack's package and the ABI version it exports, a C99 compile through pkg-config, then through the installed qsacheck: backends, check (the default campaign at STEPS
# steps per scenario, 100 by default), replay of traces/recorded/, the fuzz corpus replays with
# QSA_FUZZ_BACKEND, check --isolate (the installed qsacheck-worker-host), the installed Python module
# with the NumPy example worker, and `mutants --backend` (every planted variant must be caught).
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

step "find_package(qsacheck 1) without DLPack's package; the ABI version beside the tool's"
mkdir -p "$work/consumer"
cat >"$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES C)
find_package(qsacheck 1 CONFIG REQUIRED)
if(NOT qsacheck_VERSION_MAJOR EQUAL 1 OR NOT qsacheck_PLUGIN_ABI_VERSION MATCHES "^1\\.[0-9]+$")
  message(FATAL_ERROR "version ${qsacheck_VERSION}, ABI ${qsacheck_PLUGIN_ABI_VERSION}")
endif()
add_library(consumer OBJECT c99.c)
target_link_libraries(consumer PRIVATE qsacheck::plugin)
find_package(qsacheck 2 CONFIG QUIET)
if(qsacheck_FOUND)
  message(FATAL_ERROR "find_package(qsacheck 2) accepted version ${qsacheck_VERSION}")
endif()
CMAKE
cp "$work/c99.c" "$work/consumer/"
cmake -S "$work/consumer" -B "$work/consumer/build" --no-warn-unused-cli -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_dlpack=TRUE >/dev/null
cmake --build "$work/consumer/build" >/dev/null
abi=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --variable=abi_version qsacheck)
[[ "$abi" =~ ^1\.[0-9]+$ ]] || { echo "pkg-config abi_version is '$abi'"; exit 1; }
step "the header finds the installed DLPack header, not the system's"
# Into a file first: grep -q ending the pipe early would fail cc with SIGPIPE under pipefail.
cc -std=c99 -H -fsyntax-only $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags qsacheck) \
  "$work/c99.c" 2>"$work/includes.txt"
grep -q "^\.* $work/prefix/.*include/qsacheck/vendor/dlpack/dlpack.h" "$work/includes.txt" ||
  { cat "$work/includes.txt"; echo "dlpack.h is not the installed one"; exit 1; }

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
step "qsacheck mutants --backend $plugin (every planted variant caught)"
"$qsacheck" mutants --backend "$plugin" --steps "$steps"
echo "PASS"
