#!/usr/bin/env python3
"""The scale-out scripts of docs/scale-out/ are real: shellcheck passes on the shell scripts and
on the Kubernetes manifest's container commands, and slurm-campaign.sh runs end to end with a
stand-in `sbatch` (array tasks run one after the other, then the merge) on a small reference
campaign, giving a merged report of every job. Exit 77 (skipped) without shellcheck or PyYAML.
Usage: scale_out_scripts_test.py SOURCE_DIR QSACHECK"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

FAKE_SBATCH = r"""#!/bin/bash
# Stand-in for Slurm's sbatch: an array job's tasks run in turn, a --wrap job runs at once.
set -u
array="" wrap="" script=""
for arg in "$@"; do
  case "$arg" in
    --array=*) array="${arg#--array=}" ;;
    --wrap=*) wrap="${arg#--wrap=}" ;;
    --*) ;;
    *) script="$arg" ;;
  esac
done
if [ -n "$wrap" ]; then bash -c "$wrap" > "$SBATCH_LOG_DIR/merge.log" 2>&1; echo $? > "$SBATCH_LOG_DIR/merge.rc"; echo 2; exit 0; fi
last="${array#*-}"
for k in $(seq 1 "$last"); do
  SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_COUNT=$last bash "$script" > "$SBATCH_LOG_DIR/shard-$k.log" 2>&1
done
echo 1
"""


def main():
    source, qsacheck = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    folder = os.path.join(source, "docs", "scale-out")
    if shutil.which("shellcheck") is None:
        print("shellcheck is not installed (apt-get install shellcheck): skipped")
        return 77
    try:
        import yaml
    except ImportError:
        print("PyYAML is not installed (apt-get install python3-yaml): skipped")
        return 77
    scripts = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".sh"))
    assert len(scripts) >= 3, scripts
    work = tempfile.mkdtemp(prefix="qsacheck-scale-out-")
    commands = []
    for n, document in enumerate(yaml.safe_load_all(open(os.path.join(folder, "k8s-indexed-job.yaml")))):
        for container in document["spec"]["template"]["spec"]["containers"]:
            path = os.path.join(work, f"k8s-{n}-{container['name']}.sh")
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + container["args"][0] + "\n")
            commands.append(path)
    lint = subprocess.run(["shellcheck", "-x", *scripts, *commands], capture_output=True, text=True)
    if lint.returncode != 0:
        print(lint.stdout + lint.stderr)
        print("FAIL: shellcheck")
        return 1

    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    sbatch = os.path.join(bin_dir, "sbatch")
    with open(sbatch, "w") as f:
        f.write(FAKE_SBATCH)
    os.chmod(sbatch, stat.S_IRWXU)
    campaign = os.path.join(work, "campaign")
    env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], QSACHECK=qsacheck, CAMPAIGN_DIR=campaign,
               SBATCH_LOG_DIR=work, CHECK_ARGS="--backend reference --steps 5 --batches 5")
    run = subprocess.run(["bash", os.path.join(folder, "slurm-campaign.sh"), "3"], env=env, capture_output=True,
                         text=True, cwd=work)
    logs = "".join(open(os.path.join(work, f)).read() for f in sorted(os.listdir(work)) if f.endswith(".log"))
    if run.returncode != 0 or open(os.path.join(work, "merge.rc")).read().strip() != "0":
        print(run.stdout + run.stderr + logs)
        print("FAIL: slurm-campaign.sh with a stand-in sbatch")
        return 1
    merged = json.load(open(os.path.join(campaign, "campaign.json")))
    shards = [entry["shard"] for entry in merged["run"]["merged_from"]]
    if shards != [1, 2, 3] or len(merged["jobs"]) != merged["campaign"]["jobs_total"] or merged["exit_code"] != 0:
        print(json.dumps(merged)[:2000])
        print("FAIL: the merged report should hold shards 1-3 and every job")
        return 1
    print(f"ok: shellcheck on {len(scripts)} scripts and {len(commands)} container commands; "
          f"slurm-campaign.sh ran 3 shards and merged {len(merged['jobs'])} jobs")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
