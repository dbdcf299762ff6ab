#!/usr/bin/env bash
# demo.sh — run by `make demo` once the tools are in bin/. Shows blkreel reading the bundled
# real trace: samples/ext4-loop.blktrace.{0,1}, a per-CPU set captured with the ftrace blk tracer
# (see samples/README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SAMPLE=samples/ext4-loop
PARSE=bin/blkreel-parse
[[ -x $PARSE ]] || { echo "demo: $PARSE is not built (run make)" >&2; exit 1; }
ls "$SAMPLE".blktrace.* >/dev/null 2>&1 || { echo "demo: no $SAMPLE.blktrace.* files" >&2; exit 1; }

echo "== $PARSE --info $SAMPLE   (what the per-CPU set holds: files, CPUs, devices, event counts, span)"
"$PARSE" --info "$SAMPLE"
echo
echo "== $PARSE $SAMPLE | head -n 30   (the first events, merged across CPUs in time order)"
# head closes the pipe early; a SIGPIPE in the parser is expected, not a failure
"$PARSE" "$SAMPLE" | head -n 30 || [[ ${PIPESTATUS[0]} -eq 141 ]]
