#!/usr/bin/env bash
# Times knee, check and report, one ldanalyze binary against another, on
# the bench files of ../shared/bench (its generator, seed 1; csv2json for
# the JSON lines): wall time, user+system CPU and peak RSS from GNU time,
# REPEAT rounds with the binaries interleaved in each, each round starting
# at the next binary (so a busy machine slows all of them alike), medians
# printed as a markdown table. Copy a freshly linked binary (cat a > b)
# before timing it: its peak RSS is otherwise ~10 MB higher, from how its
# pages sit in the page cache (BENCHMARKS.md).
#
#   BINS="before=/path/to/old/ldanalyze after=/path/to/new/ldanalyze" scripts/bench-commands.sh
#   SIZES=1000000 FORMATS=csv REPEAT=1 scripts/bench-commands.sh   # quick
#
# Without BINS it builds this checkout as "this". Data, outputs and the raw
# timings (results.tsv) go to $BENCH_DIR (default /tmp/bench); the files are
# made once and reused. Not part of the test suite: speed is measured here,
# never asserted by timed tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
SIZES=${SIZES:-"1000000 10000000"}
FORMATS=${FORMATS:-"csv csv.gz json"}
COMMANDS=${COMMANDS:-"knee check report"}
REPEAT=${REPEAT:-3}
mkdir -p "$BENCH_DIR/bin" "$BENCH_DIR/cmdout"
if [[ -z ${BINS:-} ]]; then
	(cd "$root" && go build -o "$BENCH_DIR/bin/ldanalyze" ./cmd/ldanalyze)
	BINS="this=$BENCH_DIR/bin/ldanalyze"
fi
(cd "$shared/bench/gen" && go build -o "$BENCH_DIR/bin/k6gen" .)
(cd "$shared/bench/csv2json" && go build -o "$BENCH_DIR/bin/csv2json" .)

name() { # rows → k6_1m / k6_10m
	echo "k6_$(($1 / 1000000))m"
}
for n in $SIZES; do
	f=$BENCH_DIR/$(name "$n")
	[[ -s $f.csv ]] || "$BENCH_DIR/bin/k6gen" -rows "$n" -seed 1 -o "$f.csv"
	[[ " $FORMATS " != *" csv.gz "* || -s $f.csv.gz ]] || gzip -6 -k "$f.csv"
	[[ " $FORMATS " != *" json "* || -s $f.json ]] || "$BENCH_DIR/bin/csv2json" -i "$f.csv" -o "$f.json"
done

args() { # command input output-dir
	case $1 in
	knee) echo "knee --window 30s --metric http_req_duration --by name --format csv -o $3/knee.csv $2" ;;
	check) echo "check --format json -o $3/check.json $2" ;;
	report) echo "report -o $3/report.md $2" ;;
	esac
}

tsv=$BENCH_DIR/results.tsv
printf 'bin\tcommand\tfile\trun\twall_s\tcpu_s\tmax_rss_kb\texit\n' >"$tsv"
for run in $(seq "$REPEAT"); do
	for n in $SIZES; do
		for fmt in $FORMATS; do
			in=$BENCH_DIR/$(name "$n").$fmt
			cat "$in" >/dev/null # warm page cache, as the harness does
			for cmd in $COMMANDS; do
				# Each round starts at another binary, so none always runs
				# first (or last) after the page-cache warm-up.
				read -ra bins <<<"$BINS"
				k=$(((run - 1) % ${#bins[@]}))
				for b in "${bins[@]:k}" "${bins[@]:0:k}"; do
					label=${b%%=*} bin=${b#*=}
					out=$BENCH_DIR/cmdout/$label-$cmd
					rm -rf "$out" && mkdir -p "$out"
					t0=$(date +%s%N)
					set +e
					/usr/bin/time -f '%U %S %M' -o "$out/time.txt" "$bin" $(args "$cmd" "$in" "$out") >/dev/null 2>"$out/stderr.txt"
					rc=$?
					set -e
					t1=$(date +%s%N)
					read -r u s m < <(tail -n 1 "$out/time.txt") # GNU time may first say the exit status
					printf '%s\t%s\t%s\t%s\t%.3f\t%.2f\t%s\t%s\n' "$label" "$cmd" "$(basename "$in")" "$run" \
						"$(echo "($t1-$t0)/1000000000" | bc -l)" "$(echo "$u+$s" | bc -l)" "$m" "$rc" >>"$tsv"
				done
			done
		done
	done
done

python3 - "$tsv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
groups = {}
for r in rows:
    groups.setdefault((r["file"], r["command"], r["bin"]), []).append(r)
print("| file | command | binary | median wall s | spread s | median CPU s | peak RSS MB | exit |")
print("|---|---|---|---:|---:|---:|---:|---|")
for (f, c, b), rs in groups.items():
    w = sorted(float(r["wall_s"]) for r in rs)
    cpu = statistics.median(float(r["cpu_s"]) for r in rs)
    rss = statistics.median(int(r["max_rss_kb"]) for r in rs) / 1024
    codes = ",".join(sorted({r["exit"] for r in rs}))
    print(f"| {f} | {c} | {b} | {statistics.median(w):.3f} | {w[0]:.3f}..{w[-1]:.3f} | {cpu:.2f} | {rss:.0f} | {codes} |")
PY
