#!/usr/bin/env bash
# ClusterFuzzLite / OSS-Fuzz build script. The engine's builder image (Dockerfile beside this file)
# runs it from $SRC/qsacheck with its CC, CXX, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, SRC, WORK and
# OUT. It builds every fuzz target through fuzz/targets.sh (the build path of ./dev fuzz) and puts
# into $OUT, per target: the fuzzer, TARGET_seed_corpus.zip (the committed corpus and reproducers),
# TARGET.options, and TARGET.dict where there is one. .clusterfuzzlite/emulate.sh runs it in CI.
set -euo pipefail
: "${SRC:?is not set (the engines set SRC, WORK and OUT)}" "${WORK:?is not set}" "${OUT:?is not set}"
repo="$SRC/qsacheck"
[ -x "$repo/fuzz/targets.sh" ] || { echo "build.sh: no $repo/fuzz/targets.sh (the Dockerfile copies the repository there)" >&2; exit 1; }

mapfile -t targets < <("$repo/fuzz/targets.sh" list)
[ ${#targets[@]} -gt 0 ] || exit 1  # targets.sh said why
build="$WORK/qsacheck-fuzz"
"$repo/fuzz/targets.sh" build --engine "$build" "${targets[@]}"

for target in "${targets[@]}"; do
  cp "$build/bin/$target" "$OUT/"
  cp "$repo/fuzz/$target.options" "$OUT/"
  [ ! -f "$repo/fuzz/$target.dict" ] || cp "$repo/fuzz/$target.dict" "$OUT/"
  # Flat, one copy of each input (corpus and reproducers are named by content hash).
  seeds="$WORK/seeds/$target"
  rm -rf "$seeds" "$OUT/${target}_seed_corpus.zip"
  "$repo/fuzz/targets.sh" seeds "$target" "$seeds"
  if [ -n "$(ls -A "$seeds")" ]; then
    (cd "$seeds" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  else
    echo "build.sh: $target has no committed inputs; no seed corpus" >&2
  fi
done
echo "build.sh: ${targets[*]} in $OUT"
