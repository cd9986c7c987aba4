#!/usr/bin/env bash
# Runs the built binary on generated corpora and prints, per target, wall
# time (median of RUNS), documents per second and peak memory, so figures
# can be compared before and after a change (docs/performance.md).
#
#   scripts/bench.sh [small|medium|large|all]   (default: all)
#
# Corpora are generated once into $TAINTLINT_BENCH_DIR (default
# ~/.cache/taintlint-bench) by internal/benchgen; same seed, same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
which_sizes=${1:-all}
runs=${RUNS:-5}
cache=${TAINTLINT_BENCH_DIR:-$HOME/.cache/taintlint-bench}
command -v /usr/bin/time >/dev/null || { echo "bench.sh needs /usr/bin/time (apt-get install time)"; exit 2; }
mkdir -p "$cache"
bin="$cache/taintlint"
go build -o "$bin" ./cmd/taintlint
empty="$cache/empty.yaml"; : > "$empty"

# measure LABEL DOCS ARGS...: median wall seconds and max RSS over $runs runs.
measure() {
  local label=$1 docs=$2; shift 2
  local times=() rss=0 out
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$cache/time.out" "$bin" "$@" >/dev/null 2>&1 || true
    out=$(tail -1 "$cache/time.out")
    times+=("${out% *}")
    [ "${out#* }" -gt "$rss" ] && rss=${out#* }
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  awk -v l="$label" -v t="$median" -v d="$docs" -v r="$rss" 'BEGIN {
    dps = (t > 0) ? d / t : 0
    printf "%-34s median %6.3f s  %9.0f docs/s  peak %5.0f MiB\n", l, t, dps, r / 1024 }'
}

corpus() { # corpus SIZE: generate once
  local dir="$cache/$1"
  [ -f "$dir/.done" ] || { rm -rf "$dir"; go run ./internal/benchgen/cmd -size "$1" -out "$dir"; touch "$dir/.done"; }
  echo "$dir"
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version)"
one=$(corpus small)/apps/team-000/file-00000.yaml
measure "pre-commit: one small file" 5 check --config "$empty" --fail-on never "$one"

for size in small medium large; do
  [ "$which_sizes" = all ] || [ "$which_sizes" = "$size" ] || continue
  dir=$(corpus "$size")
  docs=$(cat "$dir"/apps/*/*.yaml | grep -c '^kind:' || true)
  measure "$size: check, all default rules" "$docs" check --config "$empty" --fail-on never --nodes "$dir/cluster" "$dir/apps"
  measure "$size: parse only (--disable all)" "$docs" check --config "$empty" --fail-on never --disable all "$dir/apps"
done
