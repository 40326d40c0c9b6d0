#!/bin/sh
# The long run: every entry point for RUNS inputs (default 1,000,000), one process at a time,
# niced; each target's libFuzzer stats and wall time go to LOG.
RUNS=${RUNS:-1000000}
LOG=${LOG:-fuzz/long-run.log}
PY=${PY:-.venv/bin/python}
: > "$LOG"
# cheapest first, so that a run cut short has finished the most entry points
TARGETS=${TARGETS:-"agui_framing harness_framing jsonpatch sse agui_proto harness_proto agui_json harness_json agui_consumer agui_automaton harness_automaton"}
for t in $TARGETS; do
  start=$(date +%s)
  nice -n 19 $PY fuzz/run.py "$t" --engine atheris --runs "$RUNS" > "fuzz/long-run-$t.out" 2>&1
  rc=$?
  end=$(date +%s)
  done_line=$(grep -E "^Done [0-9]+ runs" "fuzz/long-run-$t.out" | tail -1)
  echo "$t rc=$rc wall=$((end - start))s $done_line" >> "$LOG"
done
