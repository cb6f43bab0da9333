#!/usr/bin/env bash
# The benchmarks at toy scale, so they cannot rot: bench/sql_bench.sh on
# the running throwaway cluster (20k URLs, one round), the core
# microbenchmark and the false-positive measurement.  Asserts only that
# everything runs and the results make sense, never a timing.
set -euo pipefail
out=$(mktemp)
trap 'rm -f "$out" "$out.sq"' EXIT
BENCH_SCALE=0.01 BENCH_RUNS=1 BENCH_DB=bloomfilter_bench_smoke bash bench/sql_bench.sh >"$out" 2>&1 ||
	{ cat "$out"; exit 1; }
# (the type column's width follows the longest type name: squeeze blanks,
# into a file: grep -q closing a pipe early fails the pipe under pipefail)
tr -s ' ' <"$out" >"$out.sq"
for row in 'bloom | probe, scalar subquery' 'bloom | probe, join' \
	'bloom | dedup gate' 'bloom | btree index / filter bytes' \
	'bloom | batch add' 'bloom_std | probe, join' 'bloom_fixed | probe, scalar subquery'; do
	grep -qF " $row" "$out.sq" || { cat "$out"; echo "missing row: $row"; exit 1; }
done
# one filter per group: every aggregate ran and made its 1000 groups
for agg in 'bloom_agg(url, 100, 0.01)' 'bloom_agg(url)' 'counting_bloom_agg(url)' 'cuckoo_agg(url)'; do
	grep -qE "^ $(printf '%s' "$agg" | sed 's/[().,]/\\&/g') +\| +1000 \|" "$out" ||
		{ cat "$out"; echo "missing group-by row: $agg"; exit 1; }
done
"$PG_BINDIR/psql" -X -q -d postgres -c "DROP DATABASE bloomfilter_bench_smoke"
bash bench/micro.sh 0.001 >"$out" 2>&1 || { cat "$out"; exit 1; }
grep -q '^blocked   hit dep' "$out" && grep -q '^standard  miss indep' "$out" &&
	grep -q '^  capacity n: queue grows to n' "$out" &&
	grep -q '^  bloom_agg(x) final: the sorted set into a filter' "$out" ||
	{ cat "$out"; echo "microbenchmark output incomplete"; exit 1; }
# countingbloom's choice of k: it must store smaller than the smallest geometry
bash bench/counting_k.sh 20000 0.01 >"$out" 2>&1 || { cat "$out"; exit 1; }
if grep -q 'counting_k skipped' "$out"; then
	echo "bench smoke: counting_k skipped (no libpgcommon.a)"
else
	awk '/<- counting_new_size/ { chosen = $4 } / smallest/ { smallest = $4 }
		END { if (chosen == "" || smallest == "" || chosen + 0 >= smallest + 0) {
			print "counting_k: chosen geometry stores " chosen " B/element, smallest " smallest; exit 1 } }' "$out" ||
		{ cat "$out"; exit 1; }
fi
# the session cache's benchmark, a second each way: both settings ran
PATH="$PG_BINDIR:$PATH" PGDATABASE=postgres bash bench/session_cache.sh 20000 10 1 >"$out" 2>&1 ||
	{ cat "$out"; exit 1; }
[ "$(grep -c '^cache_on ' "$out")" = 2 ] && [ "$(grep -c '^cache_off ' "$out")" = 2 ] ||
	{ cat "$out"; echo "session_cache.sh output incomplete"; exit 1; }
# the A/B scripts need two builds or a server restart: only their syntax here
for script in bench/ab.sh bench/env_ab.sh bench/mem_ab.sh bench/swap_build.sh; do
	bash -n "$script" || { echo "$script does not parse"; exit 1; }
done
bash bench/fpr.sh 0.02 >"$out" 2>&1 || { cat "$out"; exit 1; }
# every measured rate within a factor 3 of the model (20k probes: loose)
awk -F'\t' '$1 ~ /^bloom_/ && $2 != "target" && $5 > 3 * $6 + 0.002 { print "fpr too high:", $0; bad = 1 }
	END { exit bad }' bench/fpr.dat
rm -f bench/fpr.dat bench/fpr.png
echo "bench smoke: ok"
