#!/bin/bash
# Runs k8s-indexed-job.yaml: the shards' Indexed Job first, the merge Job once every shard ended
# (Kubernetes has no dependency between Jobs). Usage: bash k8s-campaign.sh [NAMESPACE]
# The merge's exit code is the campaign's: 0 passed, 1 a disagreement, 2 a shard missing.
set -euo pipefail

namespace="${1:-default}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
manifest="$here/k8s-indexed-job.yaml"

kubectl -n "$namespace" delete job qsacheck-shards qsacheck-merge --ignore-not-found
# The first document only: the shards.
awk '/^---$/ {exit} {print}' "$manifest" | kubectl -n "$namespace" apply -f -
# Complete, or Failed when a shard crashed: the merge then names the missing shard (exit 2).
kubectl -n "$namespace" wait job/qsacheck-shards --for=condition=Complete --timeout=24h ||
  echo "the shards' Job did not complete; merging what is there"
awk 'seen {print} /^---$/ {seen = 1}' "$manifest" | kubectl -n "$namespace" apply -f -
kubectl -n "$namespace" wait job/qsacheck-merge --for=condition=Complete --timeout=1h || true
kubectl -n "$namespace" logs job/qsacheck-merge
exit_code="$(kubectl -n "$namespace" get pods -l job-name=qsacheck-merge \
  -o jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode}')"
exit "${exit_code:-2}"
