#!/usr/bin/env bash
# Compares the objects taintlint checks in each Helm chart and each
# kustomization under the given directories with the objects the upstream
# tools give for them (tools/countoracle: Helm's and Kustomize's own code),
# one row each: the directory, the tool's count (or its refusal) and
# taintlint's count and parse-errors. Used for docs/reading-in-the-wild.md.
#
#   scripts/counts.sh DIR...
#
# Charts are rendered with their default values; a kustomization is built
# alone, as `kubectl kustomize DIR` builds it, so a kustomization that
# another includes is counted in both rows. No network: remote bases are
# refused by both (taintlint says so in a notice).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/taintlint" ./cmd/taintlint
(cd tools/countoracle && go build -o "$tmp/countoracle" .)
cd "$OLDPWD"
printf '| %s | %s | %s | %s |\n' "directory" "upstream tool" "taintlint objects" "parse-errors"
printf '| --- | --- | --- | --- |\n'
for top in "$@"; do
  {
    find "$top" -name Chart.yaml -not -path '*/charts/*/charts/*' -not -path '*/templates/*' -printf 'helm %h\n'
    find "$top" \( -name kustomization.yaml -o -name kustomization.yml -o -name Kustomization \) -printf 'kustomize %h\n'
  } | sort -u -k2 | while read -r tool dir; do
    # A chart vendored in another's charts/ is rendered with its parent.
    case "$dir" in */charts/*/charts/*) continue ;; esac
    want=$(timeout 120 "$tmp/countoracle" "$tool" "$dir" 2>/dev/null | head -1 | cut -d' ' -f1-12 || true)
    got=$("$tmp/taintlint" check --format json --fail-on never --config /dev/null "$dir" 2>/dev/null |
      jq -r --arg src "$tool" '"\(.summary.sources[$src] // 0) | \([.findings[] | select(.rule == "parse-error")] | length)"')
    printf '| %s | %s: %s | %s |\n' "$dir" "$tool" "${want:-no output}" "$got"
  done
done
