#!/usr/bin/env bash
# The "Run taintlint" step of action.yml. The inputs arrive as environment
# variables (TAINTLINT_*), never as text pasted into this script, so no input
# can inject a command. It runs taintlint once, records its exit status, the
# number of findings and the SARIF file in $GITHUB_OUTPUT, and exits 0: the
# action uploads the report first and exits with taintlint's status last.
#
# Written for the bash 3.2 of macOS runners: no empty "${array[@]}" under
# set -u, no mapfile.
set -o pipefail

format=${TAINTLINT_FORMAT:-sarif}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
output=${GITHUB_OUTPUT:-/dev/null}

# Paths and nodes are split at white space with globbing off: "*.yaml" stays
# a literal name, as it would be for taintlint itself.
set -f
# shellcheck disable=SC2206 # splitting at white space is the point
paths=(${TAINTLINT_PATHS:-.})
# shellcheck disable=SC2206
nodes=(${TAINTLINT_NODES:-})
set +f
if [ "${#paths[@]}" -eq 0 ]; then
  paths=(.)
fi

common=()
for n in ${nodes[@]+"${nodes[@]}"}; do
  common+=(--nodes "$n")
done
if [ -n "${TAINTLINT_CONFIG:-}" ]; then
  common+=(--config "$TAINTLINT_CONFIG")
fi

report=${TAINTLINT_OUTPUT_FILE:-}
if [ -z "$report" ]; then
  case "$format" in
  sarif | json) report="$tmp/taintlint.$format" ;;
  esac
fi

args=(check --format "$format")
if [ -n "$report" ]; then
  mkdir -p -- "$(dirname -- "$report")"
  args+=(--output "$report")
fi
if [ -n "${TAINTLINT_FAIL_ON:-}" ]; then
  args+=(--fail-on "$TAINTLINT_FAIL_ON")
fi

# "--" ends the flags: a path that starts with "-" is a path.
taintlint "${args[@]}" ${common[@]+"${common[@]}"} -- "${paths[@]}"
code=$?

findings=
if [ "$code" -eq 0 ] || [ "$code" -eq 1 ]; then
  if ! command -v jq >/dev/null 2>&1; then
    echo "::notice title=taintlint::jq is not installed; the findings output is left empty"
  else
    case "$format" in
    sarif)
      findings=$(jq '[.runs[].results[]? | select(((.suppressions // []) | length) == 0)] | length' "$report")
      ;;
    json)
      findings=$(jq '.summary.findings | .error + .warning + .note' "$report")
      ;;
    *)
      # Text and GitHub reports are for people; count with a JSON run.
      findings=$(taintlint check --format json --fail-on never ${common[@]+"${common[@]}"} -- "${paths[@]}" 2>/dev/null |
        jq '.summary.findings | .error + .warning + .note')
      ;;
    esac
  fi
else
  echo "::error title=taintlint::taintlint could not run (exit status $code); the reason is in the log above"
fi

sarif=
if [ "$format" = sarif ] && [ -n "$report" ] && [ -f "$report" ] && [ "$code" -ne 2 ]; then
  sarif=$report
elif [ "${TAINTLINT_UPLOAD_SARIF:-}" = true ] && [ "$format" != sarif ]; then
  echo "::warning title=taintlint::upload-sarif needs format sarif; the $format report was not uploaded"
fi

{
  echo "exit-code=$code"
  echo "findings=$findings"
  echo "sarif-file=$sarif"
} >>"$output"
exit 0
