#!/usr/bin/env python3
"""The CI templates users copy are real (docs/ci.md): the GitHub composite action
(.github/actions/qsacheck/action.yml), its example workflow and the GitLab CI template
(examples/ci/qsacheck.gitlab-ci.yml).

- Parsed with PyYAML; the action is held to GitHub's action-metadata rules (required keys, input
  and output descriptions, composite steps with a shell for every `run:`, known step keys, unique
  ids, every `${{ inputs.X }}` and `steps.ID` declared before use, actions pinned to a version).
- Every qsacheck flag a template uses appears in `qsacheck <command> --help` of this build.
- Every `run:` step runs as the runner runs it (`bash --noprofile --norc -eo pipefail`), its
  inputs substituted, `if:` evaluated, GITHUB_OUTPUT / GITHUB_PATH carried between steps, from a
  package tarball: a passing plugin (exit 0, report, JUnit, upload path), a planted bug (exit 1, a
  reproducer and the replay command, the upload still runs), and the benchmark steps with a
  stand-in `qsacheck bench` that writes a recorded GPU run's record (no GPU here) and a stand-in
  `gh`: two runs of one commit give no github-action-benchmark alert at the template's threshold,
  a +8.7 % slowdown of one benchmark exactly one (and `bench compare` exit 1); no baseline skips
  the comparison. GitLab's scripts run the same cases (`bash -eo pipefail`, a stand-in curl for the
  artifacts API) and leave the files its artifacts and junit report name.
Exit 77 (skipped) without PyYAML.
Usage: ci_templates_test.py SOURCE_DIR QSACHECK PLUGIN.so [--package QSACHECK_TARBALL]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET

SOURCE, QSACHECK, PLUGIN = (os.path.abspath(a) for a in sys.argv[1:4])
PACKAGE = os.path.abspath(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--package" else None
sys.path.insert(0, os.path.join(SOURCE, "records", "tests"))
from consumer_rules import gab_alerts, gab_googlecpp, slowed  # noqa: E402

ACTION = os.path.join(SOURCE, ".github", "actions", "qsacheck", "action.yml")
WORKFLOW = os.path.join(SOURCE, "examples", "ci", "github-workflow.yml")
GITLAB = os.path.join(SOURCE, "examples", "ci", "qsacheck.gitlab-ci.yml")
RUN_1 = os.path.join(SOURCE, "records", "history", "2026-12-02-0138-qsacheck-bench-cuda-1.json")
RUN_2 = os.path.join(SOURCE, "records", "history", "2026-12-02-0138-qsacheck-bench-cuda-2.json")
SLOWED = "BM_StepUpdate/cuda/shape:decode/tokens:1024/requests:256/dtype:bf16"
# A small campaign: the templates are under test, not the kernel.
SMALL = "--workload default --scenarios 1 --steps 60 --batches 50"
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)
    return condition


# ---- GitHub's action-metadata rules ---------------------------------------------------------------

ACTION_KEYS = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
STEP_KEYS = {"id", "if", "name", "uses", "run", "shell", "with", "env", "working-directory", "continue-on-error"}
ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")


def metadata_problems(action):
    problems = []
    problems += ["unknown top-level key " + k for k in set(action) - ACTION_KEYS]
    problems += ["missing " + k for k in ("name", "description", "runs") if k not in action]
    inputs, outputs = action.get("inputs", {}), action.get("outputs", {})
    for name, spec in inputs.items():
        if not ID.match(name) or not isinstance(spec, dict) or "description" not in spec:
            problems.append("input %s: an id with a description" % name)
        elif set(spec) - {"description", "required", "default", "deprecationMessage"}:
            problems.append("input %s: unknown keys %s" % (name, set(spec) - {"description", "required", "default"}))
    for name, spec in outputs.items():
        if not ID.match(name) or set(spec) != {"description", "value"}:
            problems.append("output %s: a composite action's output has a description and a value" % name)
    runs = action.get("runs", {})
    if runs.get("using") != "composite" or not runs.get("steps"):
        problems.append("runs: using composite with steps")
    seen = set()
    for n, step in enumerate(runs.get("steps", [])):
        where = "step %d (%s)" % (n, step.get("name", step.get("id", "")))
        problems += ["%s: unknown key %s" % (where, k) for k in set(step) - STEP_KEYS]
        if ("run" in step) == ("uses" in step):
            problems.append(where + ": exactly one of run and uses")
        if "run" in step and step.get("shell") != "bash":
            problems.append(where + ": a composite run step needs shell (bash)")
        if "uses" in step and not re.match(r"^[\w.-]+/[\w./-]+@v\d+$", step["uses"]):
            problems.append(where + ": uses pinned to a major version: " + step["uses"])
        for text in [json.dumps(step)]:
            for expr in EXPRESSION.findall(text):
                for ref in re.findall(r"inputs\.([\w-]+)", expr):
                    if ref not in inputs:
                        problems.append("%s: inputs.%s is not declared" % (where, ref))
                for ref in re.findall(r"steps\.([\w-]+)\.", expr):
                    if ref not in seen:
                        problems.append("%s: steps.%s is not an earlier step's id" % (where, ref))
            if "if" in step and "${{" in str(step["if"]):
                problems.append(where + ": if takes a bare expression")
        if "id" in step:
            if step["id"] in seen or not ID.match(step["id"]):
                problems.append(where + ": id unique and valid")
            seen.add(step["id"])
    for name, spec in outputs.items():
        for ref in re.findall(r"steps\.([\w-]+)\.", str(spec.get("value"))):
            if ref not in seen:
                problems.append("output %s: steps.%s is not a step id" % (name, ref))
    return problems


# ---- every qsacheck flag a template uses is in --help ----------------------------------------------

def help_text(path):
    return subprocess.run([QSACHECK, *path, "--help"], capture_output=True, text=True, check=True).stdout


def subcommands(path):
    text = help_text(path)
    if "Subcommands:" not in text:
        return set()
    return set(re.findall(r"^  ([a-z][a-z-]*)  ", text.split("Subcommands:", 1)[1], re.M))


def qsacheck_calls(script):
    """(subcommand path, flags) of every qsacheck call in a shell script."""
    script = script.replace("\\\n", " ")
    calls = []
    for line in script.splitlines():
        for m in re.finditer(r"qsacheck\"?((?:\s+[^|;&>]+)*)", line):
            tokens = m.group(1).split()
            path = []
            while tokens and tokens[0] in subcommands(path):
                path.append(tokens.pop(0))
            flags = [t.split("=")[0] for t in tokens if re.match(r"^--?[a-z]", t)]
            if path or flags:
                calls.append((path, flags))
    return calls


def check_flags(what, scripts):
    calls = [c for s in scripts for c in qsacheck_calls(s)]
    missing = []
    for path, flags in calls:
        text = help_text(path)
        missing += ["qsacheck %s %s" % (" ".join(path), f) for f in flags
                    if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(f), text)]
    check(len(calls) >= 3 and not missing,
          "%s: its %d qsacheck calls use only flags of this build's --help%s" %
          (what, len(calls), "; missing: " + ", ".join(missing) if missing else ""))


# ---- a runner for the action's steps ---------------------------------------------------------------

TOKEN = re.compile(r"\s*(?:('(?:[^']|'')*')|([A-Za-z_][\w.-]*\(\))|([A-Za-z_][\w.-]*)|(==|!=|&&|\|\||!|\(|\)))")


def evaluate(expr, ctx):
    """A GitHub expression of the forms the action uses, as Python."""
    out, pos, expr = [], 0, expr.strip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot evaluate: " + expr)
        pos = m.end()
        string, func, path, op = m.groups()
        if string:
            out.append(repr(string[1:-1].replace("''", "'")))
        elif func:
            out.append({"always()": "True", "success()": repr(not ctx["failed"]),
                        "failure()": repr(ctx["failed"])}[func])
        elif path:
            value = ctx
            for part in path.split("."):
                value = value.get(part, "") if isinstance(value, dict) else ""
            out.append(repr(value))
        else:
            out.append({"&&": " and ", "||": " or ", "!": " not "}.get(op, op))
    return eval("".join(out), {"__builtins__": {}})  # noqa: S307 (tokens above only)


def substitute(text, ctx):
    def one(m):
        value = evaluate(m.group(1), ctx)
        return ("true" if value else "false") if isinstance(value, bool) else str(value)
    return EXPRESSION.sub(one, text) if isinstance(text, str) else text


def run_action(action, inputs, work, path_prefix=(), extra_env=None):
    """Runs the action's steps; returns ctx (steps' outcomes and outputs, `with` of each uses step)."""
    specs = action["inputs"]
    given = {k: str(spec.get("default", "")) for k, spec in specs.items()}
    ctx = {"github": {"token": "test-token"}, "steps": {}, "failed": False, "uses": []}
    ctx["inputs"] = {k: substitute(v, ctx) for k, v in given.items()}
    ctx["inputs"].update(inputs)
    files = {n: os.path.join(work, "runner", n) for n in ("output", "path", "summary")}
    os.makedirs(os.path.join(work, "runner", "temp"), exist_ok=True)
    os.makedirs(os.path.join(work, "workspace"), exist_ok=True)
    path = list(path_prefix)
    for n, step in enumerate(action["runs"]["steps"]):
        condition = step.get("if", "success()")
        if not evaluate(condition, ctx):
            if "id" in step:
                ctx["steps"][step["id"]] = {"outcome": "skipped", "outputs": {}}
            continue
        if "uses" in step:
            ctx["uses"].append((step["uses"], {k: substitute(v, ctx) for k, v in step.get("with", {}).items()}))
            continue
        open(files["output"], "w").close()
        open(files["path"], "a").close()
        env = dict(os.environ, RUNNER_TEMP=os.path.join(work, "runner", "temp"), GITHUB_OUTPUT=files["output"],
                   GITHUB_PATH=files["path"], GITHUB_STEP_SUMMARY=files["summary"], GITHUB_REPOSITORY="user/kernel",
                   GITHUB_WORKFLOW_REF="user/kernel/.github/workflows/qsacheck.yml@refs/heads/main", **(extra_env or {}))
        env["PATH"] = os.pathsep.join(path + [env["PATH"]])
        env.update({k: substitute(str(v), ctx) for k, v in step.get("env", {}).items()})
        script = os.path.join(work, "runner", "step-%d.sh" % n)
        with open(script, "w") as f:
            f.write(step["run"])
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=os.path.join(work, "workspace"),
                           env=env, capture_output=True, text=True)
        outputs = dict(line.split("=", 1) for line in open(files["output"]).read().splitlines() if "=" in line)
        path = [p for p in open(files["path"]).read().splitlines() if p] + list(path_prefix)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outcome": "success" if r.returncode == 0 else "failure", "outputs": outputs}
        ctx.setdefault("logs", {})[step.get("id", str(n))] = r.stdout + r.stderr
        if r.returncode != 0:
            ctx["failed"] = True
    ctx["workspace"] = os.path.join(work, "workspace")
    return ctx


# ---- packages and stand-ins ------------------------------------------------------------------------

def tarball(work, name, qsacheck_script=None):
    """A package tarball laid out as cpack's (qsacheck-<version>-Linux/bin/...), from this build."""
    top = os.path.join(work, name, "qsacheck-1.0.0-Linux")
    os.makedirs(os.path.join(top, "bin"))
    if qsacheck_script:
        with open(os.path.join(top, "bin", "qsacheck"), "w") as f:
            f.write(qsacheck_script)
        os.chmod(os.path.join(top, "bin", "qsacheck"), 0o755)
    else:
        shutil.copy(QSACHECK, os.path.join(top, "bin", "qsacheck"))
    path = os.path.join(work, name + ".tar.gz")
    with tarfile.open(path, "w:gz") as t:
        t.add(top, arcname="qsacheck-1.0.0-Linux")
    return path


# `qsacheck bench` without a GPU exits 3; this stand-in writes a recorded GPU run's record instead
# and leaves every other command to the real binary.
STANDIN_QSACHECK = r"""#!/bin/bash
if [ "$1" = bench ] && [ "$2" != compare ] && [ "$2" != export ] && [ "$2" != import ]; then
  while [ $# -gt 0 ]; do case "$1" in -o|--out) cp "$QSA_STANDIN_RECORD" "$2"; exit 0 ;; esac; shift; done
  exit 2
fi
exec "%s" "$@"
"""
STANDIN_GH = r"""#!/bin/bash
# gh run list prints the last successful run's id ($QSA_STANDIN_RUN, empty: none); gh run download
# copies $QSA_STANDIN_BASELINE into --dir as the artifact's record.json.
case "$1 $2" in
  "run list") echo "$QSA_STANDIN_RUN" ;;
  "run download")
    while [ $# -gt 0 ]; do case "$1" in --dir) cp "$QSA_STANDIN_BASELINE" "$2/record.json"; exit 0 ;; esac; shift; done
    exit 1 ;;
  *) exit 1 ;;
esac
"""
STANDIN_CURL = r"""#!/bin/bash
# curl for GitLab's job artifacts API: -o FILE gets $QSA_STANDIN_BASELINE, or fails (none yet).
out=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift ;; esac; shift; done
[ -n "$QSA_STANDIN_BASELINE" ] || exit 22
cp "$QSA_STANDIN_BASELINE" "$out"
"""


def executable(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def reproducers(out):
    return [f for f in os.listdir(out) if f.startswith(("qsacheck-repro-", "qsacheck-failure-"))] if os.path.isdir(out) else []


def threshold_of(ctx):
    gab = [w for u, w in ctx["uses"] if u.startswith("benchmark-action/github-action-benchmark@")]
    if not gab:
        return None, None
    with_ = gab[0]
    return with_, float(with_["alert-threshold"].rstrip("%")) / 100


def github_cases(action, work):
    package = PACKAGE or tarball(work, "package")
    # A passing plugin.
    ctx = run_action(action, {"package": package, "backend": "plugin:" + PLUGIN, "check-args": SMALL},
                     os.path.join(work, "gh-pass"))
    out = os.path.join(ctx["workspace"], "qsacheck-out")
    steps = ctx["steps"]
    check(steps["install"]["outcome"] == "success" and steps["check"]["outcome"] == "success"
          and steps["check"]["outputs"].get("exit-code") == "0",
          "action, passing plugin: install and check succeed, exit-code 0" + ("" if ctx["failed"] else "")
          + ("" if not ctx["failed"] else ": " + str(ctx.get("logs", {}))[-800:]))
    report = json.load(open(os.path.join(out, "report.json"))) if os.path.exists(os.path.join(out, "report.json")) else {}
    check(report.get("passed") is True and ET.parse(os.path.join(out, "junit.xml")).getroot().tag == "testsuites",
          "action, passing plugin: report.json passed, junit.xml parses")
    uploads = [w for u, w in ctx["uses"] if u.startswith("actions/upload-artifact@")]
    check(len(uploads) == 1 and uploads[0]["path"] == "qsacheck-out"
          and {"report.json", "junit.xml", "check.log"} <= set(os.listdir(out)),
          "action, passing plugin: the upload step names the folder holding report, JUnit and log")
    check(steps["bench"]["outcome"] == "skipped" and threshold_of(ctx)[0] is None,
          "action, passing plugin: no benchmark step without bench: 'true'")

    # A planted bug: exit 1, a reproducer and its replay command, the upload still runs.
    ctx = run_action(action, {"package": package, "backend": "plugin:" + PLUGIN + "#k-work-without-minimum",
                              "check-args": SMALL}, os.path.join(work, "gh-fail"))
    out = os.path.join(ctx["workspace"], "qsacheck-out")
    log = ctx["logs"].get("check", "")
    check(ctx["steps"]["check"]["outcome"] == "failure" and ctx["steps"]["check"]["outputs"].get("exit-code") == "1",
          "action, planted bug: the check step fails with exit-code 1 in its outputs")
    check(len(reproducers(out)) >= 1 and "qsacheck replay" in log,
          "action, planted bug: a reproducer (%s) and the replay command" % ", ".join(reproducers(out)))
    check(any(u.startswith("actions/upload-artifact@") for u, _ in ctx["uses"]),
          "action, planted bug: the upload step runs after the failure")

    # The benchmark steps: a stand-in bench (no GPU), the baseline from a stand-in gh.
    standin = tarball(work, "standin", STANDIN_QSACHECK % QSACHECK)
    gh_dir = os.path.join(work, "standin-bin")
    executable(gh_dir, "gh", STANDIN_GH)
    slow = os.path.join(work, "slow.json")
    with open(slow, "w") as f:
        json.dump(slowed(json.load(open(RUN_1)), SLOWED + "/", 1.087), f)
    bench_inputs = {"package": standin, "backend": "plugin:" + PLUGIN, "check-args": SMALL, "bench": "true",
                    "bench-backend": "cuda"}
    for name, candidate, env, expect_alerts, expect_compare in (
            ("noise (two runs of one commit)", RUN_2, {"QSA_STANDIN_RUN": "42", "QSA_STANDIN_BASELINE": RUN_1}, 0, "success"),
            ("+8.7 % on one benchmark", slow, {"QSA_STANDIN_RUN": "42", "QSA_STANDIN_BASELINE": RUN_1}, 1, "failure")):
        ctx = run_action(action, bench_inputs, os.path.join(work, "gh-bench-" + str(expect_alerts)), [gh_dir],
                         dict(env, QSA_STANDIN_RECORD=candidate))
        steps = ctx["steps"]
        bench_dir = os.path.join(ctx["workspace"], "qsacheck-out", "bench")
        with_, threshold = threshold_of(ctx)
        ok = steps["bench"]["outcome"] == "success" and steps["baseline"]["outputs"].get("found") == "true"
        if not check(ok and with_ is not None and with_["tool"] == "googlecpp" and threshold == 1.05,
                     "action, bench, %s: record, exports and the baseline from gh; github-action-benchmark "
                     "(googlecpp, alert-threshold %s) is fed" % (name, with_ and with_["alert-threshold"])):
            print(ctx.get("logs"))
            continue
        current = json.load(open(os.path.join(ctx["workspace"], with_["output-file-path"])))
        # github-action-benchmark's previous data is the baseline run's export, as its own run fed it.
        base_export = os.path.join(work, "base-export.json")
        subprocess.run([QSACHECK, "bench", "export", RUN_1, "--format", "github-action-benchmark", "-o", base_export],
                       check=True)
        alerts = gab_alerts(gab_googlecpp(current), gab_googlecpp(json.load(open(base_export))), threshold)
        check(len(alerts) == expect_alerts and (expect_alerts == 0 or alerts[0][0] == SLOWED),
              "action, bench, %s: %d github-action-benchmark alert(s) at %s (%s)" %
              (name, len(alerts), with_["alert-threshold"], ", ".join("%s %.3f" % a for a in alerts)))
        check(steps["compare"]["outcome"] == expect_compare and os.path.exists(os.path.join(bench_dir, "compare.json"))
              and os.path.exists(os.path.join(bench_dir, "bmf.json")),
              "action, bench, %s: bench compare %s, compare.json and the Bencher file written" %
              (name, "passes" if expect_compare == "success" else "fails (exit 1)"))
    ctx = run_action(action, bench_inputs, os.path.join(work, "gh-bench-first"), [gh_dir],
                     {"QSA_STANDIN_RUN": "", "QSA_STANDIN_BASELINE": RUN_1, "QSA_STANDIN_RECORD": RUN_2})
    check(ctx["steps"]["baseline"]["outputs"].get("found") == "false" and ctx["steps"]["compare"]["outcome"] == "skipped"
          and not ctx["failed"],
          "action, bench, first run (no successful run on main): the comparison is skipped, the job passes")


# ---- GitLab ------------------------------------------------------------------------------------------

def gitlab_job(doc, name):
    job = dict(doc[name])
    while "extends" in job:
        parent = dict(doc[job.pop("extends")])
        parent.update(job)
        job = parent
    return job


def expand(text, env):
    return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), text)


def run_gitlab(doc, name, variables, work, path_prefix=(), extra_env=None):
    job = gitlab_job(doc, name)
    project = os.path.join(work, "project")
    os.makedirs(project)
    env = dict(os.environ, CI_PROJECT_DIR=project, CI_API_V4_URL="https://gitlab.example/api/v4", CI_PROJECT_ID="7",
               CI_DEFAULT_BRANCH="main", CI_JOB_NAME=name.lstrip("."), CI_JOB_TOKEN="token", **(extra_env or {}))
    env.update({k: str(v) for k, v in doc["variables"].items()})
    env.update(variables)
    env["PATH"] = os.pathsep.join(list(path_prefix) + [env["PATH"]])
    script = os.path.join(work, "job.sh")
    with open(script, "w") as f:
        f.write("\n".join(job.get("before_script", []) + job["script"]) + "\n")
    r = subprocess.run(["bash", "-eo", "pipefail", script], cwd=project, env=env, capture_output=True, text=True)
    return job, r, project, env


def gitlab_cases(doc, work):
    package = PACKAGE or tarball(work, "gl-package")
    check(doc[".qsacheck-check"]["artifacts"]["reports"]["junit"] == "$QSACHECK_OUT/junit.xml"
          and doc[".qsacheck-check"]["artifacts"]["when"] == "always",
          "gitlab: .qsacheck-check keeps junit.xml as artifacts:reports:junit, when: always")
    for label, backend, rc in (("passing plugin", "plugin:" + PLUGIN, 0),
                               ("planted bug", "plugin:" + PLUGIN + "#k-work-without-minimum", 1)):
        job, r, project, env = run_gitlab(doc, ".qsacheck-check", {
            "QSACHECK_PACKAGE": package, "QSACHECK_BACKEND": backend, "QSACHECK_CHECK_ARGS": SMALL},
            os.path.join(work, "gl-" + str(rc)))
        junit = os.path.join(project, expand(job["artifacts"]["reports"]["junit"], env))
        paths = [os.path.join(project, expand(p, env)) for p in job["artifacts"]["paths"]]
        out = paths[0]
        check(r.returncode == rc and os.path.exists(junit) and os.path.exists(os.path.join(out, "report.json"))
              and (rc == 0 or (reproducers(out) and "qsacheck replay" in r.stdout)),
              "gitlab, %s: the job exits %d, the junit report and artifacts exist%s" %
              (label, r.returncode, "" if rc == 0 else ", with a reproducer") + ("" if r.returncode == rc else ": " + r.stderr[-500:]))
    standin = tarball(work, "gl-standin", STANDIN_QSACHECK % QSACHECK)
    curl_dir = os.path.join(work, "gl-standin-bin")
    executable(curl_dir, "curl", STANDIN_CURL)
    for label, baseline, rc in (("a baseline", RUN_1, 0), ("no baseline yet", "", 0)):
        job, r, project, env = run_gitlab(doc, ".qsacheck-bench", {
            "QSACHECK_PACKAGE": standin, "QSACHECK_BACKEND": "cuda"}, os.path.join(work, "gl-bench-" + str(bool(baseline))),
            [curl_dir], {"QSA_STANDIN_RECORD": RUN_2, "QSA_STANDIN_BASELINE": baseline})
        bench = os.path.join(project, expand(job["artifacts"]["paths"][0], env))
        check(r.returncode == rc and os.path.exists(os.path.join(bench, "github-action-benchmark.json"))
              and os.path.exists(os.path.join(bench, "compare.json")) == bool(baseline),
              "gitlab, bench with %s: record and exports kept, compared %s" %
              (label, "against it" if baseline else "with nothing") + ("" if r.returncode == rc else ": " + r.stderr[-500:]))


def main():
    try:
        import yaml
    except ImportError:
        print("PyYAML is not installed (apt-get install python3-yaml): skipped")
        return 77
    action = yaml.safe_load(open(ACTION))
    workflow = yaml.safe_load(open(WORKFLOW))
    gitlab = yaml.safe_load(open(GITLAB))
    problems = metadata_problems(action)
    check(not problems, "action.yml follows the action-metadata rules" + ("; ".join([""] + problems)))
    uses = [s["uses"] for job in workflow["jobs"].values() for s in job["steps"] if "uses" in s]
    check(any(u.endswith("/.github/actions/qsacheck@v1") for u in uses)
          and all(set(s.get("with", {})) <= set(action["inputs"])
                  for job in workflow["jobs"].values() for s in job["steps"] if "qsacheck@" in s.get("uses", "")),
          "the example workflow uses the action with declared inputs only")
    check_flags("action.yml", [s["run"] for s in action["runs"]["steps"] if "run" in s])
    check_flags("qsacheck.gitlab-ci.yml", ["\n".join(gitlab_job(gitlab, j).get("before_script", []) + gitlab_job(gitlab, j)["script"])
                                           for j in (".qsacheck-check", ".qsacheck-bench")])
    with tempfile.TemporaryDirectory(prefix="qsacheck-ci-templates-") as work:
        github_cases(action, work)
        gitlab_cases(gitlab, work)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
