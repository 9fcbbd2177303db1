#!/usr/bin/env bash
# Runs every fuzz target of the module, one after the other, each for
# DURATION, and prints a summary; exits 1 when a target fails (its failing
# input is then saved under the package's testdata/fuzz/NAME/, where `go
# test` replays it from then on: commit it with the fix).
#
#   scripts/fuzz.sh 60s                        # every target, 60 s each
#   PKGS=./pkg/cost scripts/fuzz.sh 10s        # the targets of some packages
#   FUZZ_PARALLEL=1 scripts/fuzz.sh 30s        # one fuzzing worker (default: GOMAXPROCS)
#   FUZZ_MINIMIZE=60s scripts/fuzz.sh 10m      # go test's own minimizing budget
#   FUZZ_FAST=1 scripts/fuzz.sh 20s            # without coverage guidance, much faster here
#
# FUZZ_FAST=1 builds each package's test binary (go test -c, no coverage
# instrumentation) and fuzzes by random mutation in the package's
# directory, so failing inputs land in its testdata/fuzz/ as usual. On this
# project's 2-core machine instrumented fuzzing of the larger packages ran
# about 0 execs/s (FuzzColumnar: 12 in 60 s) while the plain binary ran
# 2,700–63,000 and found seven faults in minutes (stop 35); both are worth
# running.
#
# Targets are found with `go test -list '^Fuzz'` in each package whose
# tests define one; each runs as
#   go test -run '^$' -fuzz '^NAME$' -fuzztime DURATION -fuzzminimizetime 5s PKG
# with its output in $FUZZ_LOG/PKG.NAME.log (default /tmp/ldanalyze-fuzz;
# PKG with / as _). The minimizing budget is 5 s per input instead of go
# test's 60 s: the fuzzer minimizes every new input it keeps, in time
# quadratic in its length, and explores nothing meanwhile, so 60 s of
# minimizing can take a whole run.
#
# A run that fails with only "context deadline exceeded" and no failing
# input is Go's own race at the end of -fuzztime (go.dev/issue/75804, fixed
# in Go 1.27), not a finding: it is run again once, and reported as a flake
# if it happens again.
# The first run of a package builds it with coverage instrumentation, which
# takes a while (cmd/ldanalyze: a minute or more); later runs reuse it.
set -uo pipefail
dur=${1:?usage: scripts/fuzz.sh DURATION, e.g. scripts/fuzz.sh 60s}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
log=${FUZZ_LOG:-/tmp/ldanalyze-fuzz}
mkdir -p "$log"
flags=(-fuzzminimizetime "${FUZZ_MINIMIZE:-5s}")
if [[ -n ${FUZZ_PARALLEL:-} ]]; then flags+=(-parallel "$FUZZ_PARALLEL"); fi

# deadline_flake reports whether log $1 is Go's end-of-fuzztime race: a
# failure saying "context deadline exceeded" with no failing input.
deadline_flake() {
	grep -q 'context deadline exceeded' "$1" && ! grep -q -e 'Failing input written' -e 'panic:' -e '_test\.go:[0-9]*:' "$1"
}

# Packages whose test files define a fuzz target.
mapfile -t pkgs < <(go list -f '{{.ImportPath}} {{.Dir}}' ${PKGS:-./...} | while read -r pkg dir; do
	if grep -qs '^func Fuzz' "$dir"/*_test.go; then echo "$pkg"; fi
done)
if [[ ${#pkgs[@]} -eq 0 ]]; then
	echo "fuzz.sh: no fuzz targets in ${PKGS:-./...}" >&2
	exit 2
fi

results=()
failed=0
total=0
for pkg in "${pkgs[@]}"; do
	if ! names=$(go test -list '^Fuzz' "$pkg" 2>&1); then
		echo "fuzz.sh: listing $pkg failed:" >&2
		echo "$names" >&2
		results+=("FAIL  $pkg (does not build)")
		failed=$((failed + 1))
		continue
	fi
	for name in $(grep '^Fuzz' <<<"$names"); do
		total=$((total + 1))
		short=${pkg#github.com/ldanalyze/ldanalyze/}
		out="$log/${short//\//_}.$name.log"
		printf 'fuzz.sh: %s %s for %s ... ' "$short" "$name" "$dur"
		start=$SECONDS
		if [[ -n ${FUZZ_FAST:-} ]]; then
			bin="$log/${short//\//_}.test"
			dir=$(go list -f '{{.Dir}}' "$pkg")
			go test -c -o "$bin" "$pkg" >"$out" 2>&1 &&
				(cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^$name\$" -test.fuzztime "$dur" -test.fuzzminimizetime "${FUZZ_MINIMIZE:-5s}" \
					-test.fuzzcachedir "$log/cache" ${FUZZ_PARALLEL:+-test.parallel "$FUZZ_PARALLEL"} >>"$out" 2>&1)
		else
			go test -run '^$' -fuzz "^$name\$" -fuzztime "$dur" "${flags[@]}" "$pkg" >"$out" 2>&1
		fi
		rc=$?
		note=
		if [[ $rc -ne 0 && -z ${FUZZ_FAST:-} ]] && deadline_flake "$out"; then
			go test -run '^$' -fuzz "^$name\$" -fuzztime "$dur" "${flags[@]}" "$pkg" >"$out" 2>&1
			rc=$?
			note="  (run twice: go.dev/issue/75804)"
			if [[ $rc -ne 0 ]] && deadline_flake "$out"; then
				rc=0
				note="  (flake: go.dev/issue/75804 twice, no failing input)"
			fi
		fi
		execs=$(grep -o 'execs: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
		line=$(printf '%-20s %-24s %10s execs  %4ds' "$short" "$name" "${execs:-?}" $((SECONDS - start)))
		if [[ $rc -eq 0 ]]; then
			echo ok
			results+=("ok    $line$note")
		else
			echo FAIL
			failed=$((failed + 1))
			results+=("FAIL  $line  (see $out)")
			grep -m 8 -E '^\s+(--- FAIL|.*_test\.go:[0-9]+:|Failing input|go test -run)' "$out" | sed 's/^/      /'
		fi
	done
done

echo
echo "fuzz.sh: $total target(s), $dur each"
printf '%s\n' "${results[@]}"
if [[ $failed -gt 0 ]]; then
	echo "fuzz.sh: $failed failed"
	exit 1
fi
echo "fuzz.sh: all passed"
