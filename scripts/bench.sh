#!/usr/bin/env bash
# Runs the built binary on generated corpora and prints, per target, wall
# time from process start to exit (median of RUNS; date +%s%N around
# /usr/bin/time, which gives peak memory), documents per second and peak
# memory, so figures can be compared before and after a change
# (docs/performance.md).
#
#   scripts/bench.sh [small|medium|large|all|ratios|nodes|peers]   (default: all)
#
# ratios measures the two targets that are ratios (check within 2x of
# parse only on medium; large within 11x of medium) by alternating the two
# commands of each ratio run by run, so both meet the same machine load.
#
# nodes measures the last ratio of ratios alone (the same 10,000 documents
# against 50 nodes and against 5,000, one 18 MB List, both from 50 pools):
# for each binary (and the baseline's, with BASELINE=), the two commands
# alternate run by run, and it prints the median wall time, the median CPU
# time (user+sys, which other load on a shared machine disturbs less),
# the peak memory of each, and the ratios 5,000/50 of both medians.
#
# peers measures issue 18's peer targets on the medium corpus (10,000
# documents and its inventory): taintlint's check (all default rules),
# taintlint's parse only (--disable all), kubeconform's parse only and
# kube-linter's default lint, all on the same files (apps and cluster),
# alternating the commands run by run; it prints each median (wall time,
# the issue's measure, and CPU time, which other load on a shared machine
# disturbs less) and the ratios the issue names. The peers are found through KUBECONFORM=/path and
# KUBE_LINTER=/path and skipped with a message when unset. kubeconform's
# parse only is -ignore-missing-schemas with -schema-location an empty
# local directory: every document is parsed (sigs.k8s.io/yaml into a map),
# no schema exists, so none is validated and none fetched; with the default
# location it would download schemas over HTTP and validate. Every command
# runs under `unshare -n` (no network) when that works, so that no peer can
# reach the network and all pay the same start-up.
#
# BASELINE=<git revision> also builds that revision and runs the two
# binaries alternately, run by run, so both meet the same machine load;
# it then prints the ratio new/baseline of each median. On a shared,
# noisy machine only such ratios mean much.
#
# Corpora are generated once into $TAINTLINT_BENCH_DIR (default
# ~/.cache/taintlint-bench) by internal/benchgen; same seed, same bytes.
# SHAPE=realistic (the default: about 2 KB a document, pools over three
# zones and several instance types) or SHAPE=easy (the short documents and
# one node group a pool of earlier figures).
set -euo pipefail
cd "$(dirname "$0")/.."
which_sizes=${1:-all}
runs=${RUNS:-5}
cache=${TAINTLINT_BENCH_DIR:-$HOME/.cache/taintlint-bench}
command -v /usr/bin/time >/dev/null || { echo "bench.sh needs /usr/bin/time (apt-get install time)"; exit 2; }
mkdir -p "$cache"
bin="$cache/taintlint"
go build -o "$bin" ./cmd/taintlint
bins=("$bin")
if [ -n "${BASELINE:-}" ]; then
  src="$cache/baseline-src"
  rm -rf "$src"; mkdir -p "$src"
  git archive "$BASELINE" | tar -x -C "$src"
  (cd "$src" && go build -o "$cache/taintlint-baseline" ./cmd/taintlint)
  rm -rf "$src"
  bins=("$cache/taintlint-baseline" "$bin")
fi
empty="$cache/empty.yaml"; : > "$empty"

# median TIMES: the median of the numbers in the string TIMES (separated
# by spaces).
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure LABEL DOCS ARGS...: for each binary, median wall seconds and max
# RSS over $runs runs, the binaries alternating run by run.
measure() {
  local label=$1 docs=$2; shift 2
  local -A times=() rss=()
  local b
  for _ in $(seq "$runs"); do
    for b in "${bins[@]}"; do
      local t0 t1 kb
      t0=$(date +%s%N)
      /usr/bin/time -f '%M' -o "$cache/time.out" "$b" "$@" >/dev/null 2>&1 || true
      t1=$(date +%s%N)
      kb=$(tail -1 "$cache/time.out")
      times[$b]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') "
      [ "$kb" -gt "${rss[$b]:-0}" ] && rss[$b]=$kb
    done
  done
  local medians=()
  for b in "${bins[@]}"; do
    local median name=new
    [ "${#bins[@]}" -gt 1 ] && [ "$b" != "$bin" ] && name=baseline
    [ "${#bins[@]}" -eq 1 ] && name=""
    median=$(median "${times[$b]}")
    medians+=("$median")
    awk -v l="$label" -v n="$name" -v t="$median" -v d="$docs" -v r="${rss[$b]}" 'BEGIN {
      dps = (t > 0) ? d / t : 0
      printf "%-34s %-8s median %6.3f s  %9.0f docs/s  peak %5.0f MiB\n", l, n, t, dps, r / 1024 }'
  done
  if [ "${#bins[@]}" -gt 1 ]; then
    awk -v a="${medians[0]}" -v b="${medians[1]}" 'BEGIN { if (a > 0) printf "%-34s          new/baseline wall %.2f\n", "", b / a }'
  fi
}

# pair LABEL NAME_A NAME_B -- ARGS_A -- ARGS_B: alternate two runs of the
# built binary, run by run; print each median and the ratio B/A.
pair() {
  local label=$1 na=$2 nb=$3; shift 4
  local a=() b=()
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  local ta="" tb="" t0 t1
  for _ in $(seq "$runs"); do
    t0=$(date +%s%N); "$bin" "${a[@]}" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    ta+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') "
    t0=$(date +%s%N); "$bin" "${b[@]}" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    tb+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') "
  done
  local ma mb
  ma=$(median "$ta")
  mb=$(median "$tb")
  awk -v l="$label" -v na="$na" -v nb="$nb" -v a="$ma" -v b="$mb" 'BEGIN {
    printf "%-34s %s median %.3f s, %s median %.3f s: ratio %.2f\n", l, na, a, nb, b, (a > 0) ? b / a : 0 }'
}

shape=${SHAPE:-realistic}
case "$shape" in realistic|easy) ;; *) echo "bench.sh: SHAPE is realistic or easy"; exit 2;; esac
corpus() { # corpus NAME [BENCHGEN FLAGS]: generate once (default flags: -size NAME)
  local name=$1 dir="$cache/$shape-$1"; shift
  [ $# -gt 0 ] || set -- -size "$name"
  [ -f "$dir/.done" ] || { rm -rf "$dir"; go run ./internal/benchgen/cmd -shape "$shape" "$@" -out "$dir" >&2; touch "$dir/.done"; }
  echo "$dir"
}

echo "corpus shape: $shape"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version); runs $runs"
if [ "$which_sizes" = ratios ]; then
  m=$(corpus medium); l=$(corpus large)
  pair "medium: check / parse only" "parse" "check" -- \
    check --config "$empty" --fail-on never --disable all --nodes "$m/cluster" "$m/apps" -- \
    check --config "$empty" --fail-on never --nodes "$m/cluster" "$m/apps"
  pair "large / medium (check)" "medium" "large" -- \
    check --config "$empty" --fail-on never --nodes "$m/cluster" "$m/apps" -- \
    check --config "$empty" --fail-on never --nodes "$l/cluster" "$l/apps"
  # The same 10,000 documents on 50 nodes and on 5,000 nodes, both drawn
  # from the same 50 pools.
  few=$(corpus nodes50 -size medium -nodes 50 -pools 50)
  many=$(corpus nodes5000 -size medium -nodes 5000 -pools 50)
  pair "5,000 nodes / 50 nodes (check)" "50" "5,000" -- \
    check --config "$empty" --fail-on never --nodes "$few/cluster" "$many/apps" -- \
    check --config "$empty" --fail-on never --nodes "$many/cluster" "$many/apps"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
if [ "$which_sizes" = nodes ]; then
  few=$(corpus nodes50 -size medium -nodes 50 -pools 50)
  many=$(corpus nodes5000 -size medium -nodes 5000 -pools 50)
  declare -A wall=() cpu=() rss=()
  for _ in $(seq "$runs"); do
    for b in "${bins[@]}"; do
      for n in 50 5000; do
        inv=$few/cluster
        [ "$n" = 5000 ] && inv=$many/cluster
        t0=$(date +%s%N)
        /usr/bin/time -f '%U %S %M' -o "$cache/time.out" "$b" check --config "$empty" --fail-on never --nodes "$inv" "$many/apps" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        read -r u s kb < <(tail -1 "$cache/time.out")
        wall[$b/$n]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') "
        cpu[$b/$n]+="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') "
        [ "$kb" -gt "${rss[$b/$n]:-0}" ] && rss[$b/$n]=$kb
      done
    done
  done
  for b in "${bins[@]}"; do
    name=new
    [ "${#bins[@]}" -gt 1 ] && [ "$b" != "$bin" ] && name=baseline
    [ "${#bins[@]}" -eq 1 ] && name=""
    awk -v l="5,000 nodes / 50 nodes (check)" -v n="$name" \
      -v wa="$(median "${wall[$b/50]}")" -v wb="$(median "${wall[$b/5000]}")" \
      -v ca="$(median "${cpu[$b/50]}")" -v cb="$(median "${cpu[$b/5000]}")" \
      -v ra="${rss[$b/50]}" -v rb="${rss[$b/5000]}" 'BEGIN {
      printf "%-34s %-8s 50: wall %.3f s, cpu %.2f s, peak %.0f MiB; 5,000: wall %.3f s, cpu %.2f s, peak %.0f MiB: ratio wall %.2f, cpu %.2f\n",
        l, n, wa, ca, ra / 1024, wb, cb, rb / 1024, (wa > 0) ? wb / wa : 0, (ca > 0) ? cb / ca : 0 }'
  done
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
if [ "$which_sizes" = peers ]; then
  m=$(corpus medium)
  docs=$(cat "$m"/apps/*/*.yaml | grep -c '^kind:' || true)
  noschemas="$cache/no-schemas"
  rm -rf "$noschemas"; mkdir -p "$noschemas"
  netless=()
  if unshare -n true 2>/dev/null; then
    netless=(unshare -n)
  else
    echo "note: unshare -n does not work here; the commands run with the machine's network (kubeconform's schema location is local, so it opens no connection)"
  fi
  # peer_cmd NAME: sets cmd to the command line NAME stands for.
  peer_cmd() {
    case $1 in
      check) cmd=("$bin" check --config "$empty" --fail-on never --nodes "$m/cluster" "$m/apps") ;;
      parse) cmd=("$bin" check --config "$empty" --fail-on never --disable all --nodes "$m/cluster" "$m/apps") ;;
      kubeconform) cmd=("$KUBECONFORM" -ignore-missing-schemas -schema-location "$noschemas/{{ .ResourceKind }}.json" -summary "$m/cluster" "$m/apps") ;;
      kubelinter) cmd=("$KUBE_LINTER" lint "$m/cluster" "$m/apps") ;;
    esac
  }
  names=(check parse)
  if [ -n "${KUBECONFORM:-}" ] && [ -x "$KUBECONFORM" ]; then
    names+=(kubeconform)
  else
    echo "kubeconform: skipped (set KUBECONFORM=/path/to/kubeconform)"
  fi
  if [ -n "${KUBE_LINTER:-}" ] && [ -x "$KUBE_LINTER" ]; then
    names+=(kubelinter)
  else
    echo "kube-linter: skipped (set KUBE_LINTER=/path/to/kube-linter)"
  fi
  # Wall time (the issue's measure) and CPU time (user + system, which
  # other load on a shared machine disturbs less), per run.
  declare -A ptimes=() pcpu=() pmedian=() pcpumedian=()
  cmd=()
  for _ in $(seq "$runs"); do
    for n in "${names[@]}"; do
      t0=$(date +%s%N)
      peer_cmd "$n"
      /usr/bin/time -f '%U %S' -o "$cache/time.out" "${netless[@]}" "${cmd[@]}" >"$cache/peers-$n.out" 2>&1 || true
      t1=$(date +%s%N)
      ptimes[$n]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') "
      pcpu[$n]+="$(tail -1 "$cache/time.out" | awk '{ printf "%.2f", $1 + $2 }') "
    done
  done
  echo "medium corpus: $docs documents in $m/apps, inventory $m/cluster"
  for n in "${names[@]}"; do
    pmedian[$n]=$(median "${ptimes[$n]}")
    pcpumedian[$n]=$(median "${pcpu[$n]}")
    awk -v l="$n" -v t="${pmedian[$n]}" -v c="${pcpumedian[$n]}" -v d="$docs" -v all="${ptimes[$n]}" 'BEGIN {
      printf "%-12s median %6.3f s  %7.0f docs/s  cpu %6.2f s  (wall runs: %s)\n", l, t, (t > 0) ? d / t : 0, c, all }'
  done
  # What the peers did on the last run, so their figures can be trusted:
  # kubeconform's summary (every document skipped, none an error) and the
  # last line of kube-linter's report.
  [ -z "${pmedian[kubeconform]:-}" ] || echo "kubeconform said: $(grep -a 'Summary' "$cache/peers-kubeconform.out" | tail -1)"
  [ -z "${pmedian[kubelinter]:-}" ] || echo "kube-linter said: $(tail -1 "$cache/peers-kubelinter.out")"
  ratio() { # ratio LABEL A B TARGET: the wall and CPU ratios of medians A/B
    [ -n "${pmedian[$2]:-}" ] && [ -n "${pmedian[$3]:-}" ] || return 0
    awk -v l="$1" -v a="${pmedian[$2]}" -v b="${pmedian[$3]}" -v ca="${pcpumedian[$2]}" -v cb="${pcpumedian[$3]}" -v t="$4" 'BEGIN {
      printf "%-46s wall %.2f  cpu %.2f  (target %s)\n", l, (b > 0) ? a / b : 0, (cb > 0) ? ca / cb : 0, t }'
  }
  ratio "check / taintlint parse only" check parse "at most 1.5"
  ratio "kubeconform parse only / taintlint check" kubeconform check "at least 2"
  ratio "kube-linter / taintlint check" kubelinter check "at least 3"
  ratio "kubeconform parse only / taintlint parse only" kubeconform parse "none"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
one=$(corpus small)/apps/team-000/file-00000.yaml
measure "pre-commit: one small file" 5 check --config "$empty" --fail-on never "$one"

for size in small medium large; do
  [ "$which_sizes" = all ] || [ "$which_sizes" = "$size" ] || continue
  dir=$(corpus "$size")
  docs=$(cat "$dir"/apps/*/*.yaml | grep -c '^kind:' || true)
  measure "$size: check, all default rules" "$docs" check --config "$empty" --fail-on never --nodes "$dir/cluster" "$dir/apps"
  # The same files as the check (the inventory too), no rule.
  measure "$size: parse only (--disable all)" "$docs" check --config "$empty" --fail-on never --disable all --nodes "$dir/cluster" "$dir/apps"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
