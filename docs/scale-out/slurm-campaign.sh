#!/bin/bash
# Runs a qsacheck campaign as N Slurm array tasks (slurm-shard.sh) and merges their reports once
# all have ended. Usage: CAMPAIGN_DIR=/shared/qsacheck/run1 bash slurm-campaign.sh [N]
# The merged report lands in $CAMPAIGN_DIR/campaign.json; the merge's log in qsacheck-merge.log
# (exit 1 there: a disagreement, with the reproducers listed; 2: a shard is missing).
set -euo pipefail

shards="${1:-4}"
: "${QSACHECK:=qsacheck}"
: "${CAMPAIGN_DIR:?set CAMPAIGN_DIR to a folder every node can write}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export QSACHECK CAMPAIGN_DIR

array_job="$(sbatch --parsable --array="1-$shards" --export=ALL "$here/slurm-shard.sh")"
# afterany: the merge runs even when shards exit 1 (findings) and reports a shard that died (2).
sbatch --parsable --dependency="afterany:$array_job" --job-name=qsacheck-merge --output=qsacheck-merge.log \
  --export=ALL --wrap="\"$QSACHECK\" merge \"$CAMPAIGN_DIR\"/shard-*.json --json \"$CAMPAIGN_DIR/campaign.json\""
echo "submitted shards as job $array_job; the merge waits for them"
