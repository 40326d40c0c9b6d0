#!/bin/sh
# The long run: every entry point for RUNS inputs (default 1,000,000), one process at a time,
# niced; each target's libFuzzer stats and wall time go to LOG.
RUNS=${RUNS:-1000000}
LOG=${LOG:-fuzz/long-run.log}
PY=${PY:-.venv/bin/python}
: > "$LOG"
for t in $($PY -c "import sys; sys.path.insert(0, 'fuzz'); from targets import TARGETS; print(' '.join(sorted(TARGETS)))"); do
  start=$(date +%s)
  nice -n 19 $PY fuzz/run.py "$t" --engine atheris --runs "$RUNS" > "fuzz/long-run-$t.out" 2>&1
  rc=$?
  end=$(date +%s)
  done_line=$(grep -E "^Done [0-9]+ runs" "fuzz/long-run-$t.out" | tail -1)
  echo "$t rc=$rc wall=$((end - start))s $done_line" >> "$LOG"
done
