#!/usr/bin/env bash
# Fuzz every harness (test/fuzz/build.sh) for a while and report.
#   tools/fuzz.sh [-t SECONDS_PER_HARNESS] [-m] [harness ...]
#     -t  time per harness (default 180)
#     -m  afterwards, merge what was found into the seed corpus
#         (test/fuzz/corpus/<harness>, minimized with -merge=1)
# One process per harness, one after another (-jobs is not used: the
# machine is shared).  Work corpora and logs go to test/fuzz/work/.
# Prints per harness: executions, exec/s, coverage (cov = edges,
# ft = features), corpus size, and the execution at which coverage last
# grew (a plateau: nothing new for the rest of the run).  Exits non-zero
# on any crash, leak, timeout or sanitizer report.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=180
merge=no
while getopts "t:m" o; do
	case $o in
	t) secs=$OPTARG ;;
	m) merge=yes ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

if [ -n "${FUZZ_BUILT:-}" ]; then
	mapfile -t all < <(cd test/fuzz/bin && ls fuzz_* 2>/dev/null)
else
	mapfile -t all < <(bash test/fuzz/build.sh) || exit 1
fi
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")
work=test/fuzz/work
mkdir -p "$work"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
printf '%-20s %12s %8s %6s %6s %14s %s\n' harness execs exec/s cov ft corpus "cov last grew at"
for h in "${harnesses[@]}"; do
	seeds=test/fuzz/corpus/$h
	mkdir -p "$work/$h" "$seeds"
	log=$work/$h.log
	test/fuzz/bin/"$h" -max_total_time="$secs" -max_len=8192 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/$h-" \
		"$work/$h" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.*corp: \([^ ]*\).*/\1/p' <<<"$last")
	# the execution at which cov: reached its final value
	grew=$(grep -E '^#[0-9]+.*cov: ' "$log" | awk -v c="$cov" '{for (i=1;i<=NF;i++) if ($i=="cov:" && $(i+1)==c) {print $1; exit}}')
	printf '%-20s %12s %8s %6s %6s %14s %s\n' "$h" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${grew:-?} of ${execs:-?}"
	if [ $rc -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant failed' "$log"; then
		echo "  $h FAILED (exit $rc), see $log:"
		grep -E 'ERROR|runtime error|invariant|SUMMARY|^    #[0-9]' "$log" | head -20 | sed 's/^/    /'
		status=1
	fi
	if [ $merge = yes ] && [ $rc -eq 0 ]; then
		mkdir -p "$work/$h.merged"
		# regress-* inputs (past findings) stay whatever their coverage
		test/fuzz/bin/"$h" -merge=1 -max_len=8192 "$work/$h.merged" "$seeds" "$work/$h" >/dev/null 2>&1 &&
			{ cp "$seeds"/regress-* "$work/$h.merged"/ 2>/dev/null || true; } &&
			rm -rf "$seeds" && mv "$work/$h.merged" "$seeds"
	fi
done
exit $status
