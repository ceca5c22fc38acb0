#!/usr/bin/env bash
# tests/soak/fuzz.sh: the long proof of the fuzz targets (`make soak`).
# Builds the libFuzzer binaries (`make fuzz`) and runs each target for
# FUZZ_SECONDS (default 1800, 30 CPU-minutes on one process) under
# `nice -n 19`, from a fresh copy of tests/fuzz/corpus/<target>/ (the
# committed corpus is never written to), with tests/fuzz/<target>.dict when
# there is one. One TAP line per target: `ok` with its executions and final
# coverage, `not ok` on a crash, a leak, a timeout (an input slower than
# FUZZ_TIMEOUT seconds, default 10) or an out-of-memory, with the path of
# the reproducer (replay it with build/asan/tests/replay-<target> FILE or
# build/fuzz/fuzz-<target> FILE). The plan line `1..N` comes last.
#
#   FUZZ_SECONDS   seconds per target (default 1800)
#   FUZZ_TARGETS   the targets to run (default: every tests/fuzz/fuzz-*.c)
#   FUZZ_OUT       where each target's log, grown corpus and reproducers go
#                  (default build/soak/fuzz; <target>/ is emptied first)
#   FUZZ_TIMEOUT   libFuzzer's -timeout per input, seconds (default 10)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
seconds=${FUZZ_SECONDS:-1800}
timeout=${FUZZ_TIMEOUT:-10}
out=${FUZZ_OUT:-build/soak/fuzz}
if [ -n "${FUZZ_TARGETS:-}" ]; then
	read -r -a targets <<<"$FUZZ_TARGETS"
else
	targets=()
	for f in tests/fuzz/fuzz-*.c; do
		t=${f#tests/fuzz/fuzz-}
		t=${t%.c}
		[ "$t" = main ] || targets+=("$t")
	done
fi
n=0
failed=0

result() { # ok|not_ok description [diagnostic lines...]
	local verdict=$1 what=$2
	shift 2
	n=$((n + 1))
	if [ "$verdict" = ok ]; then
		echo "ok $n - $what"
	else
		failed=$((failed + 1))
		echo "not ok $n - $what"
	fi
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/# /'
}

mkdir -p "$out"
if ! nice -n 19 make -s -j2 fuzz >"$out/make.log" 2>&1; then
	result not_ok "make fuzz" "$(tail -20 "$out/make.log")" "log: $out/make.log"
	echo "1..$n"
	exit 1
fi

for t in "${targets[@]}"; do
	bin=build/fuzz/fuzz-$t
	dir=$out/$t
	if [ ! -x "$bin" ] || [ ! -d "tests/fuzz/corpus/$t" ]; then
		result not_ok "fuzz-$t: no binary $bin or no corpus tests/fuzz/corpus/$t"
		continue
	fi
	rm -rf "$dir"
	mkdir -p "$dir/corpus" "$dir/artifacts"
	cp -R "tests/fuzz/corpus/$t/." "$dir/corpus/"
	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
	nice -n 19 "$bin" -max_total_time="$seconds" -timeout="$timeout" \
	    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
	    "${dict[@]}" "$dir/corpus" >"$dir/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$dir/log" | tail -1)
	found=$(find "$dir/artifacts" -type f | sort | head -5)
	what="fuzz-$t: ${seconds}s, ${execs:-?} executions, ${cov:-no coverage line}"
	if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
		result not_ok "$what" "exit $rc; reproducer: ${found:-none written}" \
		    "$(grep -E 'ERROR|runtime error|SUMMARY|ALARM' "$dir/log" | head -5)" \
		    "log: $dir/log"
	else
		result ok "$what"
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
