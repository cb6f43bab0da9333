#!/usr/bin/env bash
# make bench: every benchmark of bench/README.md on a throwaway cluster.
#   - installs what it needs (postgresql-15-hll for the hll peer, gnuplot-nox)
#   - builds and installs bloomfilter (into $BLOOMFILTER_PGROOT if set, and
#     copies hll there too), starts a throwaway cluster as an unprivileged user
#   - bench/sql_bench.sh: the SQL comparisons, medians and ratios
#   - bench/micro.c: ns per hash / probe (hot, cold) / add, per layout
#   - bench/fpr.c + fpr.gp: measured vs theoretical false-positive rate
# Writes bench/results/latest.txt and bench/fpr.png.
#   BENCH_SCALE=1 (2M URLs, 100M-capacity cold filter), BENCH_RUNS=5
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh

if [ "${1:-}" != "--stage2" ]; then
	EXTRA_DEPS="postgresql-$PG_MAJOR-hll gnuplot-nox" ensure_deps
	build_and_install
	if [ -n "${BLOOMFILTER_PGROOT:-}" ]; then
		# the private root was copied before hll was installed, maybe
		r=$BLOOMFILTER_PGROOT
		cp /usr/lib/postgresql/"$PG_MAJOR"/lib/hll.so "$r/usr/lib/postgresql/$PG_MAJOR/lib/"
		cp /usr/share/postgresql/"$PG_MAJOR"/extension/hll* "$r/usr/share/postgresql/$PG_MAJOR/extension/"
	fi
	scratch=$(make_scratch)
	log "benchmarks in $scratch"
	status=0
	as_user env BENCH_SCALE="${BENCH_SCALE:-1}" BENCH_RUNS="${BENCH_RUNS:-5}" \
		bash "$scratch/main/bench/run.sh" --stage2 "$scratch" || status=$?
	if [ $status -eq 0 ]; then
		mkdir -p bench/results
		cp "$scratch/main/bench/results/latest.txt" bench/results/latest.txt
		[ -f "$scratch/main/bench/fpr.png" ] && cp "$scratch/main/bench/fpr.png" bench/fpr.png
		rm -rf "$scratch"
		log "results in bench/results/latest.txt, plot in bench/fpr.png"
	else
		log "benchmark output kept in $scratch"
	fi
	exit $status
fi

# ---- stage 2: unprivileged, in the scratch copy ----
scratch=$2
cd "$scratch/main"
ensure_deps >/dev/null
trap stop_cluster EXIT
start_cluster "$scratch"
# room for every table in shared buffers: time the CPU work, not the page cache
"$PG_BINDIR/psql" -X -q -d postgres -c "ALTER SYSTEM SET shared_buffers = '1GB'"
"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$scratch/server.log" -w restart >/dev/null
scale=${BENCH_SCALE:-1}
mkdir -p bench/results
out=bench/results/latest.txt
t0=$(date +%s)
# CPU time the hypervisor gave to others (steal) and load: a shared VM
# makes every figure here slower, memory-bound ones most
read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ </proc/stat
{
	echo "bloomfilter benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), BENCH_SCALE=$scale BENCH_RUNS=${BENCH_RUNS:-5}"
	echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores," \
		"$(free -g | awk '/^Mem:/ {print $2}') GB RAM, load $(cut -d' ' -f1-3 /proc/loadavg)"
	caches=$(lscpu | awk -F: '/L1d|L2|L3/ {gsub(/^ +/, "", $2); printf "%s %s; ", $1, $2}')
	# some VMs give lscpu no cache lines; glibc's view (from cpuid) then
	[ -n "$caches" ] || caches=$(getconf -a 2>/dev/null | awk '
		$1 == "LEVEL1_DCACHE_SIZE" && $2 > 0 { printf "L1d %d KiB; ", $2 / 1024 }
		$1 == "LEVEL2_CACHE_SIZE" && $2 > 0 { printf "L2 %d KiB; ", $2 / 1024 }
		$1 == "LEVEL3_CACHE_SIZE" && $2 > 0 { printf "L3 %d KiB (as cpuid reports it); ", $2 / 1024 }')
	echo "caches: $caches"
	echo "PostgreSQL: $("$PG_BINDIR/postgres" --version)"
	# a kernel memory monitor (DAMON, kdamond) with a pageout scheme unmaps
	# pages it finds idle, shared buffers too: a table idle for seconds is
	# then page-faulted back in by the next query over it (seen: a 98 ms
	# scan took 191 ms after 30 s idle, and the run's medians doubled)
	for d in /sys/kernel/mm/damon/admin/kdamonds/*/state; do
		if [ -r "$d" ] && [ "$(cat "$d")" = on ]; then
			echo "warning: DAMON is on (${d%/state}): figures after an idle spell come out slower"
		fi
	done
	echo
	echo "== SQL (bench/sql_bench.sh) =="
	bash bench/sql_bench.sh
	echo
	echo "== C core (bench/micro.c) =="
	bash bench/micro.sh "$scale"
	echo
	echo "== countingbloom: stored size by number of hashes (bench/counting_k.c) =="
	bash bench/counting_k.sh
	echo
	echo "== false-positive rate (bench/fpr.c, plotted in bench/fpr.png) =="
	bash bench/fpr.sh "$scale"
	echo
	read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ </proc/stat
	tot=$(((u1 + n1 + s1 + i1 + w1 + q1 + sq1 + st1) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0)))
	echo "total wall time: $(($(date +%s) - t0)) s; CPU steal during the run: $((100 * (st1 - st0) / (tot > 0 ? tot : 1)))%;" \
		"load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$out"
