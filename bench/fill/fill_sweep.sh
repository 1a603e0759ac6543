#!/bin/sh
# Runs BUILD_DIR/bench/fill over dims x backends x threads, REPS times, rotating the backend order each repetition
# (the machine is shared: alternate variants so slow phases hit all of them). Quality is computed on the
# first repetition only (it does not depend on timing). One key=value line per run, plus the load average.
#   bench/fill/fill_sweep.sh BUILD_DIR [REPS] > runs.txt
set -eu
BIN="${1:-build/release}/bench/fill"
REPS="${2:-3}"
rep=1
while [ "$rep" -le "$REPS" ]; do
  case $((rep % 3)) in
    1) order="vm vector suballoc" ;;
    2) order="suballoc vm vector" ;;
    0) order="vector suballoc vm" ;;
  esac
  quality="--no-quality"
  [ "$rep" -eq 1 ] && quality=""
  for dim in 2 3; do
    for threads in 1 2; do
      for backend in $order; do
        line=$("$BIN" --dim "$dim" --threads "$threads" --backend "$backend" $quality)
        echo "rep=$rep load1=$(cut -d' ' -f1 /proc/loadavg) $line"
      done
    done
  done
  rep=$((rep + 1))
done
