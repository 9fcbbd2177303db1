#!/usr/bin/env bash
# Time and peak memory of `knee --by name` and `report` on a run whose name
# tag has very many distinct values (a URL with an id in it): a 400-s
# open-model ramp from 500 to 2,500 requests/s (~600,000 requests), one
# request in three to a name of its own (NAMES distinct, default 200,000),
# the others to 20 endpoints. The file is written once to $CARD_DIR
# (~150 MB) and kept for reruns.
#
#   scripts/cardinality.sh               # NAMES=200000
#   NAMES=1000000 scripts/cardinality.sh
#
# Prints one line per command: wall seconds, peak RSS (MB, GNU time, the
# ldanalyze process alone) and the exit code. Goal (issue 21): under 60 s
# and 256 MB each. Not part of the test suite: speed and memory are
# measured here, never asserted by tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
NAMES=${NAMES:-200000}
CARD_DIR=${CARD_DIR:-/tmp/ldanalyze-cardinality}
mkdir -p "$CARD_DIR"
bin=$CARD_DIR/ldanalyze
(cd "$root" && go build -o "$bin" ./cmd/ldanalyze)
csv=$CARD_DIR/names-$NAMES.csv
if [[ ! -s $csv ]]; then
	awk -v names="$NAMES" 'BEGIN {
		print "metric_name,timestamp,metric_value,expected_response,name,status,scenario"
		t0 = 1796004000; uniq = 0; n = 0
		# requests per second so that one in three of the total is NAMES
		total = names * 3.01; secs = 400
		for (s = 0; s < secs; s++) {
			ts = t0 + s
			rate = int((500 + s * 5) * total / (secs * 1500))
			printf "vus,%d,%d,,,,ramp\n", ts, 1 + rate / 50
			for (i = 0; i < rate; i++) {
				n++
				if (n % 3 == 0 && uniq < names) { uniq++; name = "/item/" uniq } else { name = "/api/" (n % 20) }
				lat = 5 + (n % 13) + (rate > 2000 ? (rate - 2000) / 10 : 0)
				st = 200; ok = "true"; f = 0
				if (n % 97 == 0) { st = 503; ok = "false"; f = 1 }
				printf "http_reqs,%d,1,%s,%s,%d,ramp\n", ts, ok, name, st
				printf "http_req_duration,%d,%d,%s,%s,%d,ramp\n", ts, lat, ok, name, st
				printf "http_req_failed,%d,%d,%s,%s,%d,ramp\n", ts, f, ok, name, st
				printf "iterations,%d,1,,,,ramp\n", ts
			}
		}
	}' >"$csv.tmp"
	mv "$csv.tmp" "$csv"
fi
printf 'input: %s (%s rows, %s distinct /item names)\n' "$csv" "$(($(wc -l <"$csv") - 1))" "$NAMES"

measure() { # label, command...
	local label=$1 rc=0
	shift
	/usr/bin/time -v -o "$CARD_DIR/time.txt" "$@" >"$CARD_DIR/out.txt" 2>"$CARD_DIR/err.txt" || rc=$?
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$CARD_DIR/time.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$CARD_DIR/time.txt")
	printf '%-22s wall %s  peak RSS %s MB  exit %d\n' "$label" "$wall" "$rss" "$rc"
	grep -m 3 -i 'kept\|other\|error' "$CARD_DIR/err.txt" "$CARD_DIR/out.txt" | sed 's/^/    /' || true
}

measure "knee --by name" "$bin" knee --by name --format csv "$csv"
measure "knee --by name json" "$bin" knee --by name --format json "$csv"
rm -rf "$CARD_DIR/report"
measure "report" "$bin" report "$csv" -o "$CARD_DIR/report/report.md"
