"""One campaign from Python: `qsacheck check --json -` over a backend name or a kernel class, its
report parsed. The pytest plugin (qsacheck.pytest_plugin) is built on it."""

import json
import os
import subprocess
import sys
import tempfile

from .binary import pasteable, qsacheck_binary, quote_command
from .kernel import spec_of

# Named campaign sizes. "ci": one scenario of 60 steps and 100 generated batches per workload, a
# few seconds for a NumPy kernel (docs/python-quickstart.md states the figures); "default": the
# command's own default campaign (every workload, 1000 steps: minutes for a Python kernel).
PRESETS = {
    "ci": {"scenarios": 1, "steps": 60, "batches": 100},
    "default": {},
}


def worker_backend(kernel, kwargs=None, python=None):
    """The `worker:...` backend that runs a kernel class (a class object or "module:Class")."""
    spec = kernel if isinstance(kernel, str) else spec_of(kernel)
    args = [python or sys.executable, "-m", "qsacheck.run_kernel", spec]
    if kwargs:
        args += ["--kwargs", json.dumps(kwargs, sort_keys=True)]
    return "worker:" + quote_command(args)


class CampaignResult:
    """returncode (0 passed, 1 finding, 2 error, 3 something not run), report (the JSON report, None
    on an error), error (the error line's object), stderr (the table and the worker's output)."""

    def __init__(self, command, returncode, stdout, stderr):
        self.command, self.returncode, self.stderr = command, returncode, stderr
        self.report, self.error = None, None
        try:
            parsed = json.loads(stdout) if stdout.strip() else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("status") == "error":
            self.error = parsed
        else:
            self.report = parsed

    @property
    def findings(self):
        return (self.report or {}).get("findings", [])

    @property
    def passed(self):
        return self.returncode == 0

    def describe(self):
        """The text a failed test shows: each finding, its reproducer and the replay command."""
        if self.error is not None:
            return "qsacheck exit 2: %s (field %s, rule %s)" % (self.error.get("message"), self.error.get("field"),
                                                                 self.error.get("rule"))
        if not self.findings:
            return "qsacheck exit %d\n%s" % (self.returncode, self.stderr[-2000:])
        lines = []
        for f in self.findings:
            lines += ["qsacheck finding (%s, workload %s, seed %s, step %s):" % (f.get("check"), f.get("workload"),
                                                                              f.get("seed"), f.get("step")),
                      "  " + str(f.get("finding")),
                      "reproducer: " + str(f.get("reproducer") or "(none: a fixed example or a generated batch)"),
                      "replay:     " + (pasteable(f["replay"]) if f.get("replay") else "(rerun the campaign)")]
        return "\n".join(lines + ["campaign:   " + quote_command(self.command)])


def run_campaign(backend, workload="default", seed=None, steps=None, scenarios=None, batches=None, tolerance=None,
                 preset="ci", out=None, kernel_kwargs=None, extra_args=(), env=None, timeout=None):
    """Runs `qsacheck check --json -`. backend: a backend name ("reference", "plugin:...",
    "worker:...") or a kernel class / "module:Class" run through qsacheck.run_kernel. The preset
    gives scenarios, steps and batches not given here; out is the reproducers' folder (a new
    temporary one when None)."""
    if not isinstance(backend, str) or (":" in backend and backend.split(":", 1)[0] not in
                                        ("plugin", "worker", "isolated")):
        backend = worker_backend(backend, kernel_kwargs)
    sizes = dict(PRESETS[preset])
    sizes.update({k: v for k, v in (("steps", steps), ("scenarios", scenarios), ("batches", batches)) if v is not None})
    out = out or tempfile.mkdtemp(prefix="qsacheck-")
    command = [qsacheck_binary(), "check", "--backend", backend, "--json", "-", "--out", str(out)]
    if workload is not None:
        command += ["--workload", workload]
    for key in ("scenarios", "steps", "batches"):
        if key in sizes and (workload is not None or key != "scenarios"):
            command += ["--" + key, str(sizes[key])]
    if seed is not None:
        command += ["--seed", str(seed)]
    if tolerance is not None and tolerance != "exact":
        command += ["--float-tolerance", tolerance]
    command += list(extra_args)
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))
    return CampaignResult(command, done.returncode, done.stdout, done.stderr)
