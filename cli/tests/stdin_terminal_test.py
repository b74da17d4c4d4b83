#!/usr/bin/env python3
"""`qsacheck eval metadata` without --input reads standard input. When that is a terminal it says
so on stderr (otherwise it would wait silently); given EOF at once it answers the empty input as
bad input: exit 2 and one JSON line on stdout. When standard input is not a terminal there is no
such note.

    python3 stdin_terminal_test.py QSACHECK
"""

import json
import os
import pty
import subprocess
import sys

NOTE = "reading the JSON input from standard input"


def run(qsacheck, stdin):
    return subprocess.run([qsacheck, "eval", "metadata"], stdin=stdin, capture_output=True, text=True, timeout=60)


SKIPPED = 77  # CTest's SKIP_RETURN_CODE for this test


def main():
    qsacheck = sys.argv[1]
    try:
        controller, terminal = pty.openpty()
    except OSError as e:  # a container without /dev/ptmx
        print(f"SKIPPED: no pseudo-terminal here ({e})")
        return SKIPPED
    os.write(controller, b"\x04")  # Ctrl-D: the terminal's end of input, read before qsacheck starts
    with os.fdopen(terminal, "rb", buffering=0) as stdin:
        answer = run(qsacheck, stdin)
    os.close(controller)
    failures = []
    if NOTE not in answer.stderr:
        failures.append(f"no note on stderr for a terminal: {answer.stderr!r}")
    if answer.returncode != 2:
        failures.append(f"exit {answer.returncode}, expected 2 for an empty input")
    lines = answer.stdout.splitlines()
    if len(lines) != 1 or json.loads(lines[0]).get("status") != "error":
        failures.append(f"stdout is not one JSON error line: {answer.stdout!r}")
    piped = run(qsacheck, subprocess.DEVNULL)
    if NOTE in piped.stderr:
        failures.append(f"the note appears when standard input is not a terminal: {piped.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("PASS: the terminal note, exit 2 and one JSON line; no note without a terminal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
