#!/usr/bin/env bash
# validate-sarif.sh FILE.sarif...
#
# Validates SARIF logs with Microsoft's SARIF multitool, running both the
# SARIF specification rules and GitHub code scanning's ingestion rules, and
# fails unless every file has no error and no warning.
#
# The multitool comes from the npm registry (@microsoft/sarif-multitool, a
# self-contained .NET binary; no .NET install needed). It is installed once
# into $TAINTLINT_TOOLS_CACHE (default: the user cache directory), pinned to
# SARIF_MULTITOOL_VERSION.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 FILE.sarif..." >&2
  exit 2
fi

version="${SARIF_MULTITOOL_VERSION:-5.7.0}"
cache="${TAINTLINT_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/taintlint-tools}/sarif-multitool-$version"

case "$(uname -s)" in
  Linux) platform=linux ;;
  Darwin) platform=darwin ;;
  *) platform=win32 ;;
esac
bin="$cache/node_modules/@microsoft/sarif-multitool-$platform/Sarif.Multitool"
[ "$platform" = win32 ] && bin="$bin.exe"

if [ ! -x "$bin" ]; then
  command -v npm >/dev/null || { echo "$0: npm is needed to install the SARIF multitool" >&2; exit 2; }
  echo "installing @microsoft/sarif-multitool@$version into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error \
    "@microsoft/sarif-multitool@$version" >&2
  # npm may skip the package's postinstall (chmod u+x); do it ourselves.
  chmod u+x "$bin"
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

status=0
for f in "$@"; do
  log="$out/$(basename "$f").validation.sarif"
  # --rule-kind "Sarif;Gh": the specification's rules (SARIFnnnn, and the
  # JSON schema checks JSONnnnn) and GitHub code scanning's (GHnnnn).
  # --level "Error;Warning;Note": report every level, so that notes are
  # visible too; only errors and warnings fail the check. The multitool
  # exits 0 even when it reports errors, so the verdict comes from its
  # output log, which is SARIF itself.
  if ! "$bin" validate --rule-kind "Sarif;Gh" --level "Error;Warning;Note" \
      --output "$log" "$f" >"$out/stdout" 2>&1; then
    cat "$out/stdout" >&2
    echo "$f: the multitool failed" >&2
    status=1
    continue
  fi
  # Errors and warnings in full; notes (advice such as "add code snippets")
  # counted by rule.
  grep -E ': (error|warning) ' "$out/stdout" || true
  counts="$(node -e '
    const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const n = {error: 0, warning: 0, note: 0}, notes = {};
    for (const run of log.runs || [])
      for (const r of run.results || []) {
        const level = r.level || "warning";
        n[level] = (n[level] || 0) + 1;
        if (level === "note") notes[r.ruleId] = (notes[r.ruleId] || 0) + 1;
      }
    const list = Object.keys(notes).sort().map(k => k + " x" + notes[k]).join(", ");
    console.log(n.error, n.warning, n.note, list || "-");
  ' "$log")"
  read -r errors warnings notes notelist <<<"$counts"
  echo "$f: $errors error(s), $warnings warning(s), $notes note(s) ($notelist)"
  if [ "$errors" -ne 0 ] || [ "$warnings" -ne 0 ]; then
    status=1
  fi
done
exit $status
