#!/usr/bin/env bash
# corpus.sh [TAINTLINT]
#
# Runs field-unknown on a pinned corpus of public manifests that real
# clusters run (docs/operators-in-the-wild.md, "field-unknown on the
# corpus"): each project's repository at the commit named below, the
# paths named. It prints, per source, the files and objects read, the
# objects of built-in kinds, the objects of the kinds field-unknown
# checks, and every field-unknown finding (file:line, path, message).
#
# The manifests are fetched from GitHub (codeload tarballs), or, when
# CORPUS_MIRROR names a directory of bare clones named owner+name/repo (as
# the project's agents keep them), read from there with git archive.
# Nothing is written outside CORPUS_DIR (default: a new temporary
# directory, kept for reading the JSON reports).
#
# It then runs every default rule with the inventory CORPUS_NODES
# (default: examples/cluster/nodes.yaml, six nodes) on the same paths and
# prints each finding on a custom resource (an object of a kind not in
# the built-in list below): the operators' pod templates and the pods
# they merge from their placements (docs/custom-resources.md).
#
# TAINTLINT is the binary to run (default: built from this checkout).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="${CORPUS_DIR:-$(mktemp -d)}"
mkdir -p "$work/src" "$work/out"
bin="${1:-}"
if [ -z "$bin" ]; then
  bin="$work/taintlint"
  (cd "$root" && go build -o "$bin" ./cmd/taintlint)
fi
for tool in jq tar; do
  command -v "$tool" >/dev/null || { echo "corpus.sh: needs $tool" >&2; exit 2; }
done

# source repository, commit, flags ("-" for none, or extra check flags
# joined by commas), then the paths read.
corpus='
prometheus-operator/kube-prometheus 4d719f1dea8853540b3823ab1fbe6be74a9953b3 - manifests
rook/rook d0c3b9ce6d64ff0c47074437aab7314b7adf7f2c --kustomize=false deploy/examples
kubernetes/ingress-nginx dbb11b92ddb77bee9c35e462479129354c84f939 --kustomize=false deploy/static/provider
argoproj/argo-cd 37ee0097cf851bc2dd7665fc081bbce61a7e836e - manifests/install.yaml manifests/namespace-install.yaml manifests/core-install.yaml manifests/ha/install.yaml manifests/ha/namespace-install.yaml
kubernetes/examples 279e8e4fe314f6cb7bc55fa3fbc21bbeaa48c0ea --kustomize=false .
metallb/metallb 7938d3f89b8bd808dae2e42d97d6ae7e18e9ed54 - config/manifests
cert-manager/cert-manager 2d0d7f7f74241a9cbf79f0e2a7bb247238ee09fd - deploy/charts/cert-manager
kubernetes-sigs/metrics-server 5ed5d3a2cf940a8c7541cfbac19af822f4c97844 - manifests/overlays/release manifests/overlays/release-ha
longhorn/longhorn bb2f2223a6f7b5d97a98b7e765937fe48a1b96f7 - deploy/longhorn.yaml
elastic/cloud-on-k8s 7b93383d8ec1569ba99bdf9e59ad70a813fe99f8 --kustomize=false config/recipes config/samples
strimzi/strimzi-kafka-operator 8541da1e336bdcda9647aeacfbc2048e57580a52 - packaging/install/cluster-operator packaging/examples
NVIDIA/gpu-operator a22dbf671f2e26f9a1e342f8eea28e196235e110 - deployments/gpu-operator
kubeflow/spark-operator 38082f3318e9d33f3e4a940c7cf165df6e40b422 - examples
'

# builtin lists the kinds of the Kubernetes API itself (core and the
# k8s.io groups), to count the objects of built-in kinds among the
# custom resources.
builtin='Pod PodTemplate ReplicationController Service ServiceAccount ConfigMap Secret Namespace
PersistentVolume PersistentVolumeClaim Endpoints LimitRange ResourceQuota Node Event
Deployment ReplicaSet StatefulSet DaemonSet ControllerRevision Job CronJob
HorizontalPodAutoscaler Ingress IngressClass NetworkPolicy PodDisruptionBudget Role
ClusterRole RoleBinding ClusterRoleBinding StorageClass CSIDriver CSINode
VolumeAttachment PriorityClass RuntimeClass CustomResourceDefinition
MutatingWebhookConfiguration ValidatingWebhookConfiguration ValidatingAdmissionPolicy
ValidatingAdmissionPolicyBinding APIService Lease EndpointSlice
CertificateSigningRequest PodSecurityPolicy FlowSchema PriorityLevelConfiguration'
# checked are the kinds field-unknown checks (k8s/unknown.go builtinKinds).
checked='Pod PodTemplate ReplicationController Deployment ReplicaSet StatefulSet DaemonSet Job CronJob Node RuntimeClass'
tojson() { jq -Rn --arg s "$1" '$s | split("\\s+"; null) | map(select(. != ""))'; }
builtin_json="$(tojson "$builtin")"
checked_json="$(tojson "$checked")"

fetch() { # repo commit dest paths...: the top directory of each path
  local repo="$1" commit="$2" dest="$3"
  shift 3
  mkdir -p "$dest"
  local tops=() p
  for p in "$@"; do
    case "$p" in
      .) tops=(.); break ;;
      */*) tops+=("${p%%/*}") ;;
      *) tops+=("$p") ;;
    esac
  done
  local mirror="${CORPUS_MIRROR:-}/${repo/\//+}/repo"
  if [ -n "${CORPUS_MIRROR:-}" ] && [ -d "$mirror" ]; then
    # File by file: a partial clone may lack blobs outside the paths.
    git --git-dir="$mirror" ls-tree -r --name-only "$commit" -- "${tops[@]}" |
      while IFS= read -r f; do
        mkdir -p "$dest/$(dirname "$f")"
        git --git-dir="$mirror" cat-file blob "$commit:$f" >"$dest/$f" 2>/dev/null || rm -f "$dest/$f"
      done
  else
    local pats=()
    for p in "${tops[@]}"; do
      [ "$p" = . ] && { pats=(); break; }
      pats+=("*/$p")
    done
    curl -fsSL "https://codeload.github.com/$repo/tar.gz/$commit" |
      tar -xz -C "$dest" --strip-components=1 --wildcards "${pats[@]}"
  fi
}

printf '| source | commit | files | objects | built-in kinds | kinds field-unknown checks | field-unknown |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
totals=(0 0 0 0 0)
findings="$work/findings.txt"
crs="$work/custom-resources.txt"
nodes="${CORPUS_NODES:-$root/examples/cluster/nodes.yaml}"
: >"$findings"
: >"$crs"
while read -r repo commit flags paths; do
  [ -n "$repo" ] || continue
  name="${repo/\//+}"
  dest="$work/src/$name"
  read -ra ps <<<"$paths"
  if [ ! -d "$dest" ]; then fetch "$repo" "$commit" "$dest.part" "${ps[@]}" && mv "$dest.part" "$dest"; fi
  extra=()
  [ "$flags" = - ] || IFS=, read -ra extra <<<"$flags"
  out="$work/out/$name.json"
  (cd "$dest" && "$bin" check --enable field-unknown --fail-on never --format json "${extra[@]}" "${ps[@]}") >"$out"
  read -r files objects bi ck fu < <(jq -r --argjson b "$builtin_json" --argjson c "$checked_json" '
    [.summary.files, .summary.objects,
     ([.summary.kinds | to_entries[] | select(.key as $k | $b | index($k)) | .value] | add // 0),
     ([.summary.kinds | to_entries[] | select(.key as $k | $c | index($k)) | .value] | add // 0),
     ([.findings[]? | select(.rule == "field-unknown")] | length)] | @tsv' "$out")
  # shellcheck disable=SC2016 # the backticks are Markdown
  printf '| %s %s | `%s` | %s | %s | %s | %s | %s |\n' "$repo" "$paths" "${commit:0:7}" "$files" "$objects" "$bi" "$ck" "$fu"
  jq -r --arg r "$repo" '.findings[]? | select(.rule == "field-unknown") | "\($r) \(.file):\(.line) \(.path): \(.message | split("\n")[0])"' "$out" >>"$findings"
  placed="$work/out/$name.placed.json"
  (cd "$dest" && "$bin" check --fail-on never --format json --nodes "$nodes" "${extra[@]}" "${ps[@]}") >"$placed"
  jq -r --arg r "$repo" --argjson b "$builtin_json" '.findings[]? | select(.object.kind != null and (.object.kind as $k | $b | index($k) | not)) | "\($r) \(.file):\(.line) \(.object.kind)/\(.object.name) \(.rule): \(.message | split("\n")[0])"' "$placed" >>"$crs"
  totals=($((totals[0] + files)) $((totals[1] + objects)) $((totals[2] + bi)) $((totals[3] + ck)) $((totals[4] + fu)))
done <<<"$corpus"
printf '| all | | %s | %s | %s | %s | %s |\n' "${totals[@]}"
printf '\nfield-unknown findings:\n'
if [ -s "$findings" ]; then cat "$findings"; else echo none; fi
printf '\nfindings on custom resources (every default rule, --nodes %s):\n' "${nodes#"$root"/}"
if [ -s "$crs" ]; then cat "$crs"; else echo none; fi
echo "reports: $work/out" >&2
