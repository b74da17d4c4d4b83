#!/usr/bin/env bash
# The fuzz targets and their one build path, shared by ./dev fuzz and the continuous-fuzzing
# engines' .clusterfuzzlite/build.sh, so the two cannot drift.
#
#   fuzz/targets.sh list                     the fuzz targets (the qsa_add_fuzzer calls of
#                                            fuzz/CMakeLists.txt), one a line
#   fuzz/targets.sh flags TARGET [DIR]       libFuzzer flags of TARGET from DIR/TARGET.options and
#                                            DIR/TARGET.dict (DIR: fuzz/)
#   fuzz/targets.sh seeds TARGET DEST [DIR...]
#                                            copies TARGET's runnable inputs (fuzz/corpus/TARGET,
#                                            fuzz/regressions/TARGET and each DIR; no dotfiles, no
#                                            .note) into DEST
#   fuzz/targets.sh build [--engine] BUILD_DIR TARGET...
#                                            configures the fuzz preset into BUILD_DIR (relative to
#                                            the repository) and builds the targets
#
# build --engine builds as OSS-Fuzz and ClusterFuzzLite do: compilers $CC and $CXX, every sanitizer
# and coverage flag from $CFLAGS and $CXXFLAGS, the fuzzers linked with $LIB_FUZZING_ENGINE, and
# build type None so that the engine's -O1 -gline-tables-only stand. Without it: the preset's
# clang, libFuzzer, ASan and UBSan (QSA_FUZZ_CUDA=1 adds the CUDA backend). Neither needs nvcc.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

die() { echo "fuzz/targets.sh: $*" >&2; exit 2; }

list() {
  local names
  names=$(sed -n 's/^ *qsa_add_fuzzer(NAME \([A-Za-z0-9_]*\) .*/\1/p' "$root/fuzz/CMakeLists.txt")
  [ -n "$names" ] || die "no qsa_add_fuzzer(NAME ...) call found in fuzz/CMakeLists.txt"
  echo "$names"
}

# The [libfuzzer] section of an .options file (the engines' format) as -key=value flags.
flags() {
  local target="${1:?flags needs a TARGET}" dir="${2:-$root/fuzz}"
  local options="$dir/$target.options"
  [ -f "$options" ] || die "no $options (every target has one: its max_len, timeout, ...)"
  awk -F' *= *' '/^\[/ { in_section = ($0 == "[libfuzzer]"); next }
                 in_section && NF == 2 && $1 !~ /^[#;]/ { printf "-%s=%s ", $1, $2 }' "$options"
  [ ! -f "$dir/$target.dict" ] || printf -- '-dict=%s' "$dir/$target.dict"
  echo
}

seeds() {
  local target="${1:?seeds needs a TARGET}" dest="${2:?seeds needs a DEST folder}"
  shift 2
  mkdir -p "$dest"
  local from
  for from in "$root/fuzz/corpus/$target" "$root/fuzz/regressions/$target" "$@"; do
    [ -d "$from" ] || continue
    find "$from" -maxdepth 1 -type f ! -name '.*' ! -name '*.note' -exec cp -t "$dest" {} +
  done
}

build() {
  local args=()
  if [ "${1:-}" = --engine ]; then
    shift
    local v
    for v in CC CXX LIB_FUZZING_ENGINE; do
      [ -n "${!v:-}" ] || die "build --engine: \$$v is not set (the engines set CC, CXX, CFLAGS, CXXFLAGS and LIB_FUZZING_ENGINE)"
    done
    args+=(-DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE=None
           -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}"
           -DQSA_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE")
  elif [ "${QSA_FUZZ_CUDA:-0}" = 1 ]; then
    args+=(-DQSA_ENABLE_CUDA=ON)
  fi
  local dir="${1:?build needs a BUILD_DIR}"
  shift
  [ $# -gt 0 ] || die "build needs at least one TARGET"
  cd "$root"
  cmake --preset fuzz -B "$dir" "${args[@]}" >/dev/null
  cmake --build "$dir" -j "$(nproc)" --target "$@"
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  list|flags|seeds|build) "$cmd" "$@" ;;
  *) die "unknown command '$cmd' (list, flags, seeds, build; see the head of this file)" ;;
esac
