#!/usr/bin/env bash
# tests/soak/fuzz.sh: the long proof of the fuzz targets (`make soak`).
# Builds the libFuzzer binaries (`make fuzz`) and runs each target for
# FUZZ_SECONDS of CPU time (default 1800, 30 CPU-minutes) under
# `nice -n 19`: libFuzzer's -max_total_time counts wall-clock seconds, so on
# a busy machine the target runs again, on its grown corpus, for what is
# left, until its CPU time reaches FUZZ_SECONDS. It starts from a fresh
# copy of tests/fuzz/corpus/<target>/ (the
# committed corpus is never written to), with tests/fuzz/<target>.dict when
# there is one. One TAP line per target: `ok` with its executions and final
# coverage, `not ok` on a crash, a leak, a timeout (an input slower than
# FUZZ_TIMEOUT seconds, default 30; a slow unit or a timeout only when
# its CPU time run again is) or an out-of-memory, or a target that stopped
# short of FUZZ_SECONDS, with the path of
# the reproducer (replay it with build/asan/tests/replay-<target> FILE or
# build/fuzz/fuzz-<target> FILE). The plan line `1..N` comes last.
#
#   FUZZ_SECONDS   CPU seconds per target (default 1800)
#   FUZZ_TARGETS   the targets to run (default: every tests/fuzz/fuzz-*.c)
#   FUZZ_OUT       where each target's log, grown corpus and reproducers go
#                  (default build/soak/fuzz; <target>/ is emptied first)
#   FUZZ_TIMEOUT   libFuzzer's -timeout per input, seconds (default 30;
#                  wall-clock, so a busy machine needs room)
#   FUZZ_JOBS      targets fuzzed at once (default: the processors)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
seconds=${FUZZ_SECONDS:-1800}
timeout=${FUZZ_TIMEOUT:-30}
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

# CPU seconds (user + system) of the children waited for so far, in
# $cpu; `times` runs in this shell (a $(...) would ask a subshell).
children_cpu() { # FILE
	times >"$1"
	cpu=$(tail -1 "$1" | awk '{
		s = 0
		for (i = 1; i <= 2; i++) {
			split($i, p, "m")
			s += p[1] * 60 + p[2]
		}
		printf "%d\n", s
	}')
}

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
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed '/^$/d; s/^/# /'
}

mkdir -p "$out"
if ! nice -n 19 make -s -j2 fuzz >"$out/make.log" 2>&1; then
	result not_ok "make fuzz" "$(tail -20 "$out/make.log")" "log: $out/make.log"
	echo "1..$n"
	exit 1
fi

# One target, in a subshell of its own (so `times` counts its fuzzer
# only): its TAP line (without the number) and diagnostics go to
# $out/<target>/tap, the first line "ok" or "not ok".
fuzz_target() {
	local t=$1 bin=build/fuzz/fuzz-$1 dir=$out/$1
	local start used rounds rc prev execs cov found slow f took
	rm -rf "$dir"
	mkdir -p "$dir/corpus" "$dir/artifacts"
	if [ ! -x "$bin" ] || [ ! -d "tests/fuzz/corpus/$t" ]; then
		echo "not ok fuzz-$t: no binary $bin or no corpus tests/fuzz/corpus/$t" >"$dir/tap"
		return
	fi
	cp -R "tests/fuzz/corpus/$t/." "$dir/corpus/"
	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
	children_cpu "$dir/times"
	start=$cpu
	used=0
	rounds=0
	rc=0
	: >"$dir/log"
	while [ "$used" -lt "$seconds" ] && [ "$rounds" -lt 50 ]; do
		nice -n 19 "$bin" -max_total_time=$((seconds - used)) \
		    -timeout="$timeout" -report_slow_units="$timeout" \
		    -print_final_stats=1 \
		    -artifact_prefix="$dir/artifacts/" "${dict[@]}" \
		    "$dir/corpus" >>"$dir/log" 2>&1
		rc=$?
		rounds=$((rounds + 1))
		prev=$used
		children_cpu "$dir/times"
		used=$((cpu - start))
		[ "$rc" -eq 0 ] || break
		[ -z "$(find "$dir/artifacts" -type f ! -name 'slow-unit-*' ! -name 'timeout-*')" ] || break
		[ "$used" -gt "$prev" ] || break # not even a second: stop
	done
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" |
	    awk '{ n += $1 } END { print n + 0 }')
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$dir/log" | tail -1)
	found=$(find "$dir/artifacts" -type f ! -name 'slow-unit-*' ! -name 'timeout-*' | sort | head -5)
	# A slow unit or a timeout is judged by libFuzzer's wall clock, which
	# a busy machine stretches (nice 19): each is run again, and is a
	# finding only when its CPU time then is over a tenth of the timeout
	# (or the run again outlives twice the timeout).
	slow=()
	for f in $(find "$dir/artifacts" -type f \( -name 'slow-unit-*' -o -name 'timeout-*' \) | sort | head -5); do
		took=$(TIMEFORMAT='%U %S'; { time timeout $((2 * timeout)) "$bin" "$f" >/dev/null 2>&1; } 2>&1 | tail -1)
		took=$(echo "$took" | awk '{ printf "%.2f\n", $1 + $2 }')
		if awk -v s="$took" -v t="$timeout" 'BEGIN { exit !(s + 0 > t / 10) }'; then
			found="$found${found:+ }$f"
		fi
		slow+=("${f##*/}: ${took:-?} CPU-s run again")
	done
	# stopped short of its time without a finding: say so, not ok
	short=
	[ "$used" -ge "$seconds" ] || [ -n "$found" ] || [ "$rc" -ne 0 ] ||
	    short="stopped at $used of $seconds CPU-s after $rounds run(s)"
	what="fuzz-$t: ${used} CPU-s in $rounds run(s), $execs executions, ${cov:-no coverage line}"
	{
		if [ -n "$short" ]; then
			echo "not ok $what"
			echo "$short"
			echo "log: $dir/log"
		elif [ "$rc" -ne 0 ] || [ -n "$found" ]; then
			echo "not ok $what"
			echo "exit $rc; reproducer: ${found:-none written}"
			grep -E 'ERROR|runtime error|SUMMARY|ALARM' "$dir/log" | head -5
			echo "log: $dir/log"
		else
			echo "ok $what"
		fi
		[ "${#slow[@]}" -eq 0 ] || printf '%s\n' "${slow[@]}"
	} >"$dir/tap"
}

# FUZZ_JOBS targets at once (default: the number of processors).
jobs=${FUZZ_JOBS:-$(nproc)}
case $jobs in '' | *[!0-9]* | 0) echo "fuzz.sh: FUZZ_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;; esac
running=0
for t in "${targets[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	(fuzz_target "$t") &
	running=$((running + 1))
done
wait
for t in "${targets[@]}"; do
	tap=$out/$t/tap
	if [ ! -s "$tap" ]; then
		result not_ok "fuzz-$t: no result (the target's run died)"
		continue
	fi
	line=$(head -1 "$tap")
	if [ "${line#ok }" != "$line" ]; then
		result ok "${line#ok }" "$(tail -n +2 "$tap")"
	else
		result not_ok "${line#not ok }" "$(tail -n +2 "$tap")"
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
