#!/usr/bin/env bash
# Emulates the address-sanitizer libFuzzer build of ClusterFuzzLite and OSS-Fuzz, whose container
# images cannot be fetched here (CI runs it: .ci/run). Lays out SRC, WORK and OUT as the builder
# image does (the repository as Docker's COPY sees it at $SRC/qsacheck, build.sh at $SRC/build.sh),
# sets CC, CXX, CFLAGS, CXXFLAGS and LIB_FUZZING_ENGINE as the image's `compile` script does, hides
# the CUDA toolkit (the images have none), runs build.sh from $SRC/qsacheck, then checks what the
# engines take from $OUT: every compile and link line with the engine's flags and none of the
# project's own; for every fuzz target the fuzzer, its .options, a TARGET_seed_corpus.zip holding
# exactly the committed corpus and reproducers, and one clean run of the fuzzer over that corpus.
# The compile lines differ from every preset's, so ccache, where installed, keeps a rerun cheap.
#
# Usage: .clusterfuzzlite/emulate.sh [ROOT]   (ROOT: build-cflite/ in the repository, emptied first)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
root="${1:-$repo/build-cflite}"
fail() { echo "emulate: FAIL: $*" >&2; exit 1; }
for tool in clang++ zip unzip; do
  command -v "$tool" >/dev/null || fail "$tool is missing (./dev deps installs it)"
done

# ROOT is emptied: only a new or empty folder, or an earlier emulation's.
if [ -d "$root" ] && [ -n "$(ls -A "$root")" ] && [ ! -f "$root/src/build.sh" ]; then
  fail "$root holds files of something else; give a new folder as ROOT"
fi
rm -rf "$root"
mkdir -p "$root/src/qsacheck" "$root/work" "$root/out" "$root/check"
root="$(cd "$root" && pwd)"
# What Docker's COPY would see of a checkout: tracked files and untracked ones git does not ignore.
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
  tar --null -T - --ignore-failed-read -cf -) | tar -xf - -C "$root/src/qsacheck"
cp "$repo/.clusterfuzzlite/build.sh" "$root/src/build.sh"

export SRC="$root/src" WORK="$root/work" OUT="$root/out" CC=clang CXX=clang++
# The image's compile script for SANITIZER=address, FUZZING_ENGINE=libfuzzer: its base CFLAGS, the
# sanitizer's flags and libFuzzer's coverage flags. The engines' CXXFLAGS also carry
# -stdlib=libc++ (their libFuzzer is built against it); Debian's libFuzzer is built against
# libstdc++ and does not link into a libc++ program, so C++ stays on libstdc++ here.
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
if command -v ccache >/dev/null; then
  # Paths relative to ROOT, so a run from another clone hits the same cache entries.
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi
PATH="$(tr ':' '\n' <<< "$PATH" | grep -v cuda | paste -sd:)"
unset CUDACXX CUDA_PATH CUDA_HOME

start=$(date +%s)
# compile runs `bash -eux $SRC/build.sh` from the image's WORKDIR; -x is left out to keep logs short.
(cd "$SRC/qsacheck" && bash -eu "$SRC/build.sh") || fail "build.sh exited $?"
built=$(date +%s)

# Every compile line has the engine's flags, and neither compiling nor linking adds the project's
# own sanitizer set (its -fsanitize=...address,undefined).
build="$WORK/qsacheck-fuzz"
[ -f "$build/compile_commands.json" ] || fail "no $build/compile_commands.json (build.sh builds in \$WORK/qsacheck-fuzz)"
total=$(grep -c '"command":' "$build/compile_commands.json")
engine=$(grep '"command":' "$build/compile_commands.json" | grep -c -- '-fsanitize-address-use-after-scope' || true)
own=$(cat "$build/compile_commands.json" "$build/build.ninja" | grep -c -- 'address,undefined' || true)
if [ "$engine" -ne "$total" ] || [ "$own" -ne 0 ]; then
  fail "of $total compile lines $engine carry \$CXXFLAGS; $own compile or link lines carry the project's own sanitizers ($build)"
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
mapfile -t targets < <("$repo/fuzz/targets.sh" list)
[ ${#targets[@]} -gt 0 ] || fail "no fuzz targets listed"
for target in "${targets[@]}"; do
  bin="$OUT/$target" zip="$OUT/${target}_seed_corpus.zip" check="$root/check/$target"
  [ -x "$bin" ] || fail "$bin missing or not executable"
  [ -f "$OUT/$target.options" ] || fail "$OUT/$target.options missing"
  [ -s "$zip" ] || fail "$zip missing or empty"
  mkdir -p "$check/expected" "$check/corpus"
  "$repo/fuzz/targets.sh" seeds "$target" "$check/expected"
  unzip -q "$zip" -d "$check/corpus"
  diff <(cd "$check/expected" && find . -type f | sort) <(cd "$check/corpus" && find . -type f | sort) >&2 ||
    fail "$zip does not hold exactly fuzz/corpus/$target and fuzz/regressions/$target (less the notes)"
  inputs=$(find "$check/corpus" -type f | wc -l)
  [ "$inputs" -gt 0 ] || fail "$zip holds no input"
  # One pass over the seed corpus with the flags the engines read from TARGET.options and .dict.
  read -ra flags <<< "$("$repo/fuzz/targets.sh" flags "$target" "$OUT")"
  rc=0
  "$bin" "${flags[@]}" -runs=0 "$check/corpus" > "$check/run.log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { tail -n 20 "$check/run.log" >&2; fail "$target exited $rc on its seed corpus (log: $check/run.log)"; }
  echo "emulate: $target: fuzzer, options$([ ! -f "$OUT/$target.dict" ] || echo ", dict"), seed corpus of $inputs inputs, clean run over it"
done
echo "emulate: ${#targets[@]} fuzz targets pass; build.sh $(( built - start )) s, checks $(( $(date +%s) - built )) s"
