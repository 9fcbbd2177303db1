#!/usr/bin/env bash
# Times ldanalyze beside the baselines of ../shared/bench (DuckDB, pandas,
# a naive Go reference, cat/zcat floors) on the same synthetic k6 CSVs, in
# one run, and checks that ldanalyze's per-window table agrees with the
# exact Go reference (keys, counts, failed exactly; percentiles within 1 %).
#
#   scripts/bench.sh                       # 1M and 10M rows, 3 runs each
#   SIZES=1000000 REPEAT=1 scripts/bench.sh # quick
#
# Data and results go to $BENCH_DIR (default /tmp/bench); the table is
# printed at the end and kept in $BENCH_DIR/results.md. Record it, with the
# date, in BENCHMARKS.md. Not part of the test suite: speed goals are
# measured here, never asserted by timed tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
export BENCH_DIR
mkdir -p "$BENCH_DIR/bin"
(cd "$root" && go build -o "$BENCH_DIR/bin/ldanalyze" ./cmd/ldanalyze)
export LDANALYZE_CMD="$BENCH_DIR/bin/ldanalyze knee --window 30s --metric http_req_duration --by name --format csv -o {out} {in}"
bash "$shared/bench/run.sh" "$@"
