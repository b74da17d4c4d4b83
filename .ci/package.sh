#!/usr/bin/env bash
# The packages as a user gets them: cpack makes the .deb and the .tar.gz from a built
# tree; lintian must report no error on the .deb; `apt-get install ./qsacheck_*.deb` installs it,
# then the host example plugin is built against the installed package (found in /usr, no prefix
# given), checked by the installed qsacheck and its planted variants all caught (`qsacheck mutants
# --backend`), the installed recorded traces replay, the man page
# and the completion are where bash and man look; the package is purged on every exit. The
# tarball is unpacked, moved elsewhere (relocated) and used the same way through its prefix.
# Needs root or sudo (apt-get) and a tree built with the command-line tools (./dev build, any preset
# without sanitizers). Usage: .ci/package.sh [BUILD_DIR]   (default: build)
set -eu -o pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
work=$(mktemp -d)
installed=0
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
cleanup() {
  # The package never outlives the test, whatever failed.
  [ "$installed" = 0 ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq qsacheck >/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
step() { echo "== $* ($SECONDS s)"; }
! dpkg-query -W qsacheck >/dev/null 2>&1 || { echo "package.sh: qsacheck is installed already; not touching it" >&2; exit 2; }

step "cpack: .deb and .tar.gz from $build"
rm -rf "$build/packages"
(cd "$build" && cpack >"$work/cpack.log") || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$build"/packages/qsacheck_*.deb)
tgz=$(ls "$build"/packages/qsacheck-*.tar.gz)
echo "$(basename "$deb") $(du -h "$deb" | cut -f1), $(basename "$tgz") $(du -h "$tgz" | cut -f1)"
dpkg-deb --field "$deb" Version Depends

step "lintian (no errors)"
lintian --fail-on error --suppress-tags-from-file /dev/null "$deb" | tee "$work/lintian.log"

step "apt-get install ./$(basename "$deb")"
cp "$deb" "$work/"
installed=1
(cd "$work" && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "./$(basename "$deb")" >/dev/null)
[ "$(command -v qsacheck)" = /usr/bin/qsacheck ]
qsacheck --version
zcat /usr/share/man/man1/qsacheck.1.gz >"$work/qsacheck.1"  # not piped into grep -q: SIGPIPE under pipefail
grep -q '^\.SS "qsacheck check"' "$work/qsacheck.1"
test -s /usr/share/bash-completion/completions/qsacheck -a -s /usr/share/zsh/vendor-completions/_qsacheck
test -s /usr/share/doc/qsacheck/copyright -a -s /usr/share/doc/qsacheck/docs/spec.md

step "the host example from the installed docs, built against the installed package"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cp -r /usr/share/doc/qsacheck/examples/plugins/host "$work/host-src"
cmake -S "$work/host-src" -B "$work/host" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/host" >/dev/null
plugin="plugin:$work/host/libqsa_example_host.so"
step "qsacheck check --backend $plugin (one scenario, 100 steps)"
mkdir "$work/out"
(cd "$work" && qsacheck check --backend "$plugin" --workload default --scenarios 1 --steps 100 --batches 100 \
  --out "$work/out" >"$work/check.log") || { cat "$work/check.log"; exit 1; }
tail -n 3 "$work/check.log"
# Every planted variant of the example (docs/planted-bugs.md) caught through the installed package;
# one seed (each variant falls within about a second; backends.host_example_variants_caught_at_seeds_1_to_5
# runs seeds 1 to 5 in-tree). mutants exits 0 only when every variant is caught.
step "qsacheck mutants --backend $plugin --seed 1 (every planted variant caught)"
qsacheck mutants --backend "$plugin" --seed 1 >"$work/mutants.log" || { cat "$work/mutants.log"; exit 1; }
tail -n 1 "$work/mutants.log"
step "qsacheck replay of the installed recorded traces"
qsacheck replay /usr/share/qsacheck/traces/recorded/*.scenario | tail -n 2
step "the installed Python module imports"
/usr/bin/python3 -c "import qsacheck_worker; print(qsacheck_worker.__file__)"  # Debian's python3: dist-packages

step "the tarball, unpacked and moved elsewhere (relocatable)"
mkdir -p "$work/unpacked"
tar -xzf "$tgz" -C "$work/unpacked"
mv "$work/unpacked"/qsacheck-* "$work/moved"
prefix="$work/moved"
"$prefix/bin/qsacheck" --version
"$prefix/bin/qsacheck" replay "$prefix"/share/qsacheck/traces/recorded/default.scenario | tail -n 1
cmake -S "$work/host-src" -B "$work/host-tgz" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >/dev/null
grep -q "qsacheck_DIR:PATH=$prefix/" "$work/host-tgz/CMakeCache.txt" || { echo "found a qsacheck outside the tarball"; exit 1; }
cmake --build "$work/host-tgz" >/dev/null
[ "$(realpath "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=includedir qsacheck)")" = "$prefix/include" ]
"$prefix/bin/qsacheck" backends --backend "plugin:$work/host-tgz/libqsa_example_host.so" | tail -n 1

step "the CI templates' steps from this tarball (cli/tests/ci_templates_test.py --package)"
/usr/bin/python3 cli/tests/ci_templates_test.py "$PWD" "$prefix/bin/qsacheck" "$work/host-tgz/libqsa_example_host.so" \
  --package "$tgz" >"$work/ci-templates.log" || { cat "$work/ci-templates.log"; exit 1; }
tail -n 1 "$work/ci-templates.log"

step "purge"
DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq qsacheck >/dev/null
installed=0
[ ! -e /usr/bin/qsacheck ]
echo "PASS ($SECONDS s)"
