#!/usr/bin/env bash
# The tests that run campaigns, replays and workers must leave the source tree as they found it
# (a reproducer qsacheck-failure-worker__...-batch1.json was once found in the repository root):
# `record` lists the outputs qsacheck writes by default (reproducers, temporary files of an atomic
# write) that lie in the source tree outside build folders, before those tests (a CTest fixture's
# setup); `compare` fails naming each one that appeared since (its cleanup, after them). Files a
# person left there before the run are not the tests' doing and are not reported.
# Usage: stray_outputs_test.sh record|compare SOURCE_DIR STATE_FILE
set -u
mode=$1 source=$2 state=$3
list() {
  find "$source" \( -path "$source/.git" -o -path "$source/build*" -o -path "$source/bundle" \) -prune -o \
    -type f \( -name 'qsacheck-failure-*' -o -name 'qsacheck-repro-*' -o -name '*.tmp-??????' \) -print | sort
}
case "$mode" in
  record) list >"$state" ;;
  compare)
    [ -f "$state" ] || { echo "no state file $state: run the fixture's setup first"; exit 1; }
    new=$(list | comm -13 "$state" -)
    if [ -n "$new" ]; then
      echo "FAIL: tests wrote into the source tree (give them --out or a folder of their own):"
      echo "$new"
      exit 1
    fi
    echo "PASS: no qsacheck output appeared in the source tree" ;;
  *) echo "usage: $0 record|compare SOURCE_DIR STATE_FILE"; exit 2 ;;
esac
