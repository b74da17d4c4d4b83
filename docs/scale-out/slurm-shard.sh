#!/bin/bash
# One shard of a qsacheck campaign as a Slurm array task: task K of N runs `qsacheck check
# --shard K/N` and writes its report beside the others. slurm-campaign.sh submits N of these and
# the merge. Every task gets one GPU; --jobs gives the CPU reference (the bound of a GPU
# campaign) the task's cores.
#SBATCH --job-name=qsacheck-shard
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
#SBATCH --output=qsacheck-shard-%a.log
set -euo pipefail

: "${QSACHECK:=qsacheck}"               # the qsacheck binary (e.g. bundle/qsacheck)
: "${CAMPAIGN_DIR:?set CAMPAIGN_DIR to a folder every node can write}"
: "${CHECK_ARGS:=--backend cuda --devices 0}"  # the campaign: the same for every shard

shard="${SLURM_ARRAY_TASK_ID:?run this as an array task (sbatch --array=1-N)}"
count="${SLURM_ARRAY_TASK_COUNT:?}"
mkdir -p "$CAMPAIGN_DIR/repro"

# Exit 1 (findings) is the shard's verdict; the merge reads it from the report, so the task ends
# with qsacheck's own code and `afterany` starts the merge whatever it was.
read -r -a check_args <<< "$CHECK_ARGS"
exec "$QSACHECK" check "${check_args[@]}" --shard "$shard/$count" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$CAMPAIGN_DIR/repro" --json "$CAMPAIGN_DIR/shard-$shard.json"
