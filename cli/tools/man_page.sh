#!/usr/bin/env bash
# Writes qsacheck.1.gz: help2man over `qsacheck --help` and `--version`, with one section per
# command holding that command's --help (the list comes from the command-line definition:
# qsacheck-cli-definition commands). Run at build time by cli/CMakeLists.txt.
# Usage: man_page.sh QSACHECK CLI_DEFINITION OUTPUT.1.gz
set -eu -o pipefail
qsacheck=$1 definition=$2 output=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo "[COMMANDS]"
  "$definition" commands | while read -r path; do
    echo ".SS \"qsacheck $path\""
    echo ".nf"
    # roff: a backslash is \e; a line starting with . or ' would be a request.
    # shellcheck disable=SC2086  # the path's words are the command's words
    "$qsacheck" $path --help | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
    echo ".fi"
  done
  echo "[SEE ALSO]"
  echo "The documentation under /usr/share/doc/qsacheck (or <prefix>/share/doc/qsacheck), README.md first."
} >"$work/commands.h2m"
# SOURCE_DATE_EPOCH keeps the page's date reproducible (the commit's date where given).
help2man --no-info --no-discard-stderr --section 1 --name "checks QSA side-cache kernels against their contract" \
  --include "$work/commands.h2m" --output "$work/qsacheck.1" "$qsacheck"
gzip -9n <"$work/qsacheck.1" >"$output.tmp"
mv "$output.tmp" "$output"
