#!/usr/bin/env bash
# Times ldanalyze beside the baselines of ../shared/bench (DuckDB, pandas,
# a naive Go reference, cat/zcat floors) on the same synthetic k6 CSVs, in
# one run, and checks that ldanalyze's per-window table agrees with the
# exact Go reference (keys, counts, failed exactly; percentiles within 1 %).
#
#   scripts/bench.sh                        # 1M and 10M rows, 3 runs each
#   SIZES=1000000 REPEAT=1 scripts/bench.sh # quick
#
#   scripts/bench.sh formats                # every input format (below)
#   ROWS=3000000 REPEAT=5 scripts/bench.sh formats
#
# The formats mode times, on one generated run (ROWS rows, default 3M),
# every input ldanalyze reads and every tool to compare it with, in
# interleaved rounds (tool after tool, REPEAT rounds), and prints medians:
# the Go reference on the CSV and the .gz, DuckDB's read_csv and read_json
# (../shared/bench/baselines/duckdb_windows*.mjs), pigz -dc, and ldanalyze's
# knee on the CSV, the .gz, the k6 JSON lines (../shared/bench/csv2json)
# and the Parquet that `ldanalyze convert` writes, convert itself (to
# Parquet; peak RSS beside), and knee on the same ROWS rows spread over
# 24 hours instead of 30 minutes (k6gen -duration 86400: a soak's length). BASE=path/to/ldanalyze adds an older
# build's knee and convert for comparison (copy it the same way). Every
# knee and DuckDB table is checked against the Go reference with
# compare.py. CPU is user+sys from GNU time: on a shared machine it moves
# less than wall time, so both are printed.
#
# Data and results go to $BENCH_DIR (default /tmp/bench); the table is
# printed at the end (formats mode: $BENCH_DIR/formats.md). Record it, with
# the date, in BENCHMARKS.md. Not part of the test suite: speed goals are
# measured here, never asserted by timed tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
export BENCH_DIR
mkdir -p "$BENCH_DIR/bin"
# Run a copy of the freshly linked binary: a new link sits in the page
# cache in large folios and maps ~6 MB more RSS than a copy of it does, which
# would blur the peak-RSS column.
(cd "$root" && go build -o "$BENCH_DIR/bin/ldanalyze.link" ./cmd/ldanalyze)
cat "$BENCH_DIR/bin/ldanalyze.link" >"$BENCH_DIR/bin/ldanalyze.tmp" && chmod +x "$BENCH_DIR/bin/ldanalyze.tmp" && mv "$BENCH_DIR/bin/ldanalyze.tmp" "$BENCH_DIR/bin/ldanalyze"
if [[ ${1:-} != formats ]]; then
	export LDANALYZE_CMD="$BENCH_DIR/bin/ldanalyze knee --window 30s --metric http_req_duration --by name --format csv -o {out} {in}"
	bash "$shared/bench/run.sh" "$@"
	exit
fi

# ---------------------------------------------------------------- formats
ROWS=${ROWS:-3000000}
REPEAT=${REPEAT:-5}
SEED=${SEED:-1}
bin=$BENCH_DIR/bin
out=$BENCH_DIR/formats
mkdir -p "$out"
(cd "$shared/bench/gen" && go build -o "$bin/k6gen" .)
(cd "$shared/bench/goref" && go build -o "$bin/goref" .)
(cd "$shared/bench/csv2json" && go build -o "$bin/csv2json" .)
label=$(awk -v n="$ROWS" 'BEGIN{ if (n % 1000000 == 0) printf "%dm", n/1000000; else if (n % 1000 == 0) printf "%dk", n/1000; else print n }')
f=$BENCH_DIR/k6_$label.csv
if [[ ! -s $f || $(cat "$f.meta" 2>/dev/null) != "rows=$ROWS seed=$SEED" ]]; then
	"$bin/k6gen" -rows "$ROWS" -seed "$SEED" -o "$f"
	echo "rows=$ROWS seed=$SEED" >"$f.meta"
	rm -f "$f.gz" "${f%.csv}.json" "${f%.csv}.parquet"
fi
f24=${f%.csv}_24h.csv
if [[ ! -s $f24 || $(cat "$f24.meta" 2>/dev/null) != "rows=$ROWS seed=$SEED duration=86400" ]]; then
	"$bin/k6gen" -rows "$ROWS" -seed "$SEED" -duration 86400 -o "$f24"
	echo "rows=$ROWS seed=$SEED duration=86400" >"$f24.meta"
fi
GZ=gzip
command -v pigz >/dev/null && GZ=pigz
[[ -s $f.gz ]] || $GZ -6 -c "$f" >"$f.gz"
js=${f%.csv}.json
[[ -s $js ]] || "$bin/csv2json" -i "$f" -o "$js"
pq=${f%.csv}.parquet
"$bin/ldanalyze" convert "$f" -o "$pq" >/dev/null
duck=$BENCH_DIR/node
if [[ ! -d $duck/node_modules/@duckdb/node-api ]]; then
	mkdir -p "$duck" && (cd "$duck" && { [[ -f package.json ]] || npm init -y >/dev/null; } && npm install @duckdb/node-api >npm.log 2>&1) || true
fi
export DUCKDB_NODE_DIR=$duck

knee="knee --window 30s --metric http_req_duration --by name --format csv -o"
tools=(
	"goref_csv|$bin/goref -o $out/goref_csv.csv $f"
	"goref_gz|$bin/goref -o $out/goref_gz.csv $f.gz"
	"pigz|sh -c '$GZ -dc $f.gz >/dev/null'"
	"duckdb_csv|node $shared/bench/baselines/duckdb_windows.mjs $f $out/duckdb_csv.csv"
	"duckdb_json|node $shared/bench/baselines/duckdb_windows_json.mjs $js $out/duckdb_json.csv"
	"knee_csv|$bin/ldanalyze $knee $out/knee_csv.csv $f"
	"knee_gz|$bin/ldanalyze $knee $out/knee_gz.csv $f.gz"
	"knee_json|$bin/ldanalyze $knee $out/knee_json.csv $js"
	"knee_parquet|$bin/ldanalyze $knee $out/knee_parquet.csv $pq"
	"goref_csv_24h|$bin/goref -o $out/goref_csv_24h.csv $f24"
	"knee_csv_24h|$bin/ldanalyze $knee $out/knee_csv_24h.csv $f24"
	"convert|$bin/ldanalyze convert $f -o $out/convert.parquet"
)
if [[ -n ${BASE:-} ]]; then
	tools+=(
		"base_knee_csv|$BASE $knee $out/base_knee_csv.csv $f"
		"base_knee_gz|$BASE $knee $out/base_knee_gz.csv $f.gz"
		"base_knee_json|$BASE $knee $out/base_knee_json.csv $js"
		"base_knee_parquet|$BASE $knee $out/base_knee_parquet.csv $pq"
		"base_knee_csv_24h|$BASE $knee $out/base_knee_csv_24h.csv $f24"
		"base_convert|$BASE convert $f -o $out/base_convert.parquet"
	)
fi
res=$out/results.tsv
: >"$res"
cat "$f" "$f.gz" "$js" "$pq" "$f24" >/dev/null # warm the page cache
for round in $(seq 1 "$REPEAT"); do
	for t in "${tools[@]}"; do
		name=${t%%|*} cmd=${t#*|}
		s=$(date +%s%N)
		if ! /usr/bin/time -f '%U %S %M' -o "$out/time.txt" bash -c "$cmd" >/dev/null 2>"$out/err.txt"; then
			echo "[bench] $name failed: $(tail -c 300 "$out/err.txt")" >&2
			continue
		fi
		e=$(date +%s%N)
		read -r u sy m <"$out/time.txt"
		printf '%s\t%s\t%.4f\t%.3f\t%d\n' "$name" "$round" "$(echo "($e-$s)/1000000000" | bc -l)" "$(echo "$u+$sy" | bc -l)" "$m" >>"$res"
	done
done
{
	echo "Verification against the Go reference (compare.py; ldanalyze: rtol 0.01, groups >= 100):"
	for o in knee_csv knee_gz knee_json knee_parquet base_knee_csv base_knee_json base_knee_parquet; do
		[[ -s $out/$o.csv ]] || continue
		echo -n "$o: "
		python3 "$shared/bench/baselines/compare.py" "$out/goref_csv.csv" "$out/$o.csv" --rtol 0.01 --min-count 100 | head -1
	done
	for o in knee_csv_24h base_knee_csv_24h; do
		[[ -s $out/$o.csv ]] || continue
		echo -n "$o: "
		python3 "$shared/bench/baselines/compare.py" "$out/goref_csv_24h.csv" "$out/$o.csv" --rtol 0.01 --min-count 100 | head -1
	done
	for o in duckdb_csv duckdb_json; do
		[[ -s $out/$o.csv ]] || continue
		echo -n "$o: "
		python3 "$shared/bench/baselines/compare.py" "$out/goref_csv.csv" "$out/$o.csv" | head -1
	done
	echo
	echo "$ROWS rows ($(du -m "$f" | cut -f1) MB CSV, $(du -m "$f.gz" | cut -f1) MB .gz, $(du -m "$js" | cut -f1) MB JSON, $(du -m "$pq" | cut -f1) MB Parquet), $REPEAT interleaved rounds, medians:"
	echo
	python3 - "$res" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = {}
for name, _, wall, cpu, rss in rows:
    by.setdefault(name, []).append((float(wall), float(cpu), int(rss)))
med = {n: (statistics.median(w for w, _, _ in v), statistics.median(c for _, c, _ in v)) for n, v in by.items()}
print("| tool | median wall s | spread s | median CPU s (user+sys) | peak RSS MB |")
print("|---|---:|---:|---:|---:|")
for n, v in by.items():
    ws = sorted(w for w, _, _ in v)
    print(f"| {n} | {med[n][0]:.3f} | {ws[0]:.3f}..{ws[-1]:.3f} | {med[n][1]:.2f} | {statistics.median(r for _, _, r in v) / 1024:.0f} |")
def ratio(a, b):
    if a in med and b in med:
        print(f"| {a} / {b} | {med[a][0] / med[b][0]:.2f} | | {med[a][1] / med[b][1]:.2f} | |")
print()
print("| ratio | wall | | CPU | |")
print("|---|---:|---:|---:|---:|")
for a, b in [("knee_csv_24h", "knee_csv"), ("base_knee_csv_24h", "base_knee_csv"), ("knee_json", "knee_csv"), ("knee_json", "duckdb_json"), ("knee_parquet", "knee_csv"), ("convert", "knee_csv"),
             ("knee_csv", "goref_csv"), ("knee_gz", "goref_gz"), ("knee_gz", "pigz"), ("knee_csv", "duckdb_csv"),
             ("base_knee_json", "base_knee_csv"), ("base_knee_parquet", "base_knee_csv"), ("base_convert", "base_knee_csv"),
             ("base_knee_csv", "goref_csv"), ("base_knee_gz", "goref_gz")]:
    ratio(a, b)
EOF
} | tee "$BENCH_DIR/formats.md"
