"""What the hostile-input tests share (standard library only): a scratch folder, running qsacheck
under an optional address-space limit, and the checks every exit-2 answer must pass
(docs/json-schema.md, "Errors"): exit 2, stdout exactly one JSON line {"status": "error", ...}
naming the expected field and rule, prose on stderr, never a signal's exit (134, 137, 139), no
output file left behind.
"""

import json
import os
import shutil
import subprocess
import tempfile

CRASH_CODES = {-6, -9, -11, -7, 134, 137, 139, 135}


class Failures:
    def __init__(self):
        self.lines = []
        self.passed = 0

    def add(self, case, what, result=None):
        text = "FAIL %s: %s" % (case, what)
        if result is not None:
            text += "\n  command: %s\n  exit: %s\n  stdout: %r\n  stderr: %r" % (
                " ".join(result["argv"]), result["rc"], result["out"][:600], result["err"][-600:])
        self.lines.append(text)
        print(text, flush=True)

    def done(self, what):
        print("%d %s checked, %d failures" % (self.passed + len(self.lines), what, len(self.lines)))
        return 1 if self.lines else 0


class Scratch:
    """A temporary folder of the test's own (never the source tree or the current directory)."""

    def __init__(self, prefix):
        self.path = tempfile.mkdtemp(prefix=prefix)

    def file(self, name, data):
        path = os.path.join(self.path, name)
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(path, mode) as f:
            f.write(data)
        return path

    def sparse(self, name, size):
        path = os.path.join(self.path, name)
        with open(path, "wb") as f:
            f.truncate(size)
        return path

    def fresh_dir(self, name):
        path = os.path.join(self.path, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def run(qsacheck, args, cwd, stdin=None, env=None, limit_as=None, timeout=120, stdout_fd=None):
    argv = [qsacheck] + list(args)
    if limit_as is not None:
        argv = ["prlimit", "--as=%d" % limit_as, "--"] + argv
    full_env = dict(os.environ)
    full_env.update(env or {})
    stdin_file = open(stdin, "rb") if isinstance(stdin, str) else subprocess.DEVNULL
    try:
        p = subprocess.run(argv, cwd=cwd, stdin=stdin_file, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=full_env, timeout=timeout)
    finally:
        if stdin_file is not subprocess.DEVNULL:
            stdin_file.close()
    return {"argv": argv, "rc": p.returncode, "out": p.stdout.decode("utf-8", "replace"),
            "err": p.stderr.decode("utf-8", "replace")}


def check_error_line(failures, case, result, field=None, rule=None, not_rule=None):
    """Exit 2 with exactly one JSON error line on stdout (and words on stderr); True when it holds."""
    rc, out = result["rc"], result["out"]
    if rc in CRASH_CODES or rc < 0:
        failures.add(case, "crashed (exit %s)" % rc, result)
        return False
    if rc != 2:
        failures.add(case, "expected exit 2", result)
        return False
    if out.count("\n") != 1 or not out.endswith("\n"):
        failures.add(case, "stdout must be exactly one JSON line", result)
        return False
    try:
        line = json.loads(out)
    except ValueError as e:
        failures.add(case, "stdout is not JSON: %s" % e, result)
        return False
    if not isinstance(line, dict) or line.get("status") != "error":
        failures.add(case, "status must be error", result)
        return False
    if field is not None and line.get("field") != field:
        failures.add(case, "field is %r, expected %r" % (line.get("field"), field), result)
        return False
    if rule is not None and line.get("rule") != rule:
        failures.add(case, "rule is %r, expected %r" % (line.get("rule"), rule), result)
        return False
    if not_rule is not None and line.get("rule") == not_rule:
        failures.add(case, "rule is %r at the limit itself" % not_rule, result)
        return False
    if not result["err"].strip():
        failures.add(case, "stderr must say the error in words", result)
        return False
    return True
