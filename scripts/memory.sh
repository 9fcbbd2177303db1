#!/usr/bin/env bash
# Peak memory of `ldanalyze knee` as the input grows: rows from 1M to 100M
# (the same 30-minute ramp at 10× and 100× the rate) and run durations from
# 30 minutes to 8 hours, streamed from ../shared/bench's deterministic k6 CSV
# generator through a pipe, so no file is written (100M rows ≈ 9.5 GB).
#
#   scripts/memory.sh                    # the table below
#   ROWS="1000000 10000000" scripts/memory.sh
#   BIG=1 scripts/memory.sh              # adds 1,000M rows (~95 GB) in one stream
#
# Prints one line per run: rows, duration, wall seconds, peak RSS (MB, from
# GNU time, the ldanalyze process alone), and the knee it found. Not part of
# the test suite: memory goals are measured here, never asserted by tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
mkdir -p "$BENCH_DIR/bin"
(cd "$root" && go build -o "$BENCH_DIR/bin/ldanalyze" ./cmd/ldanalyze)
(cd "$shared/bench/gen" && go build -o "$BENCH_DIR/bin/k6gen" .)
ROWS=${ROWS:-"1000000 10000000 100000000"}
DURATIONS=${DURATIONS:-"1800 7200 28800"}
if [[ ${BIG:-0} == 1 ]]; then ROWS="$ROWS 1000000000"; fi

run() { # rows duration
	local t0 t1 rss knee
	t0=$(date +%s%N)
	"$BENCH_DIR/bin/k6gen" -rows "$1" -duration "$2" -seed 1 -o - 2>/dev/null |
		/usr/bin/time -f '%M' -o "$BENCH_DIR/memory.rss" \
			"$BENCH_DIR/bin/ldanalyze" knee --format json - >"$BENCH_DIR/memory.json" 2>"$BENCH_DIR/memory.err"
	t1=$(date +%s%N)
	rss=$(tail -1 "$BENCH_DIR/memory.rss")
	knee=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); k=r.get("knee") or {}; print(k.get("offered","none"))' "$BENCH_DIR/memory.json")
	printf '| %s | %s | %.1f | %.1f | %s |\n' "$1" "$2" "$(echo "($t1-$t0)/1000000000" | bc -l)" "$(echo "$rss/1024" | bc -l)" "$knee"
}

echo '| rows | duration s | wall s | peak RSS MB | knee (it/s) |'
echo '|---:|---:|---:|---:|---:|'
for r in $ROWS; do run "$r" 1800; done
for d in $DURATIONS; do
	[[ $d == 1800 ]] && continue
	run 10000000 "$d"
done
