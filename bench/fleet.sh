#!/usr/bin/env bash
# A fleet of crawler processes against one server (issue 49): links per
# second and server CPU per 1,000 links for the Scrapy client's modes
# (two-tier, index, replica) and for RedisBloom's BF.MADD, on the same
# link streams, with the answers compared (bench/README.md, "A fleet of
# crawlers"; the driver is bench/fleet.py).
#
#   bash bench/fleet.sh               as root or a sudoer; prints markdown
#                                     tables, also kept in
#                                     bench/results/fleet_latest.txt
#
#   BENCH_FLEET_PROCS=8               crawler processes
#   BENCH_FLEET_LINKS=500000          links a process
#   BENCH_FLEET_PREFILL=1000000       links seen before the run (a crawl
#                                     resumed), added untimed
#   BENCH_FLEET_REPEATS=0.875         fraction of repeats in a stream
#   BENCH_FLEET_MODES="two-tier index replica index+replica hashes redis"
#                                     (index+replica: index mode's tables
#                                     with replica mode's copy in front, a
#                                     variant of the client's code)
#   BENCH_FLEET_SYNC_INTERVAL=2       replica mode's BLOOMFILTER_SYNC_INTERVAL
#   BENCH_FLEET_PRELOAD=0             1: shared_preload_libraries = 'bloomfilter'
#                                     (the index's adds logged with the
#                                     module's own WAL records, not generic WAL)
#   BENCH_FLEET_INSTALL=0             skip building and installing bloomfilter
#   BENCH_FLEET_KEEP=1                keep the scratch dir (/tmp/bench-fleet-*)
#   REDISBLOOM_TARBALL, REDISBLOOM_CACHE  as for index_bench.sh
#
# Stage 1 (root): installs redis-server and Debian's python3-redis,
# -psycopg2, -xxhash and -numpy if missing, builds and installs
# bloomfilter (nice 10), builds RedisBloom once (bench/lib.sh).  Stage 2
# (the unprivileged test user): starts a throwaway cluster with the
# settings every test cluster has (tools/lib.sh's start_cluster: nothing
# tuned for the benchmark) and a redis-server with the module, both on
# unix sockets, and runs bench/fleet.py with Debian's python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
. bench/lib.sh

PROCS=${BENCH_FLEET_PROCS:-8}
LINKS=${BENCH_FLEET_LINKS:-500000}
PREFILL=${BENCH_FLEET_PREFILL:-1000000}
REPEATS=${BENCH_FLEET_REPEATS:-0.875}
MODES=${BENCH_FLEET_MODES:-two-tier index replica index+replica hashes redis}
SYNC=${BENCH_FLEET_SYNC_INTERVAL:-2}
PRELOAD=${BENCH_FLEET_PRELOAD:-0}

if [ "${1:-}" != "--stage2" ]; then
	EXTRA_DEPS="redis-server python3-redis python3-psycopg2 python3-xxhash python3-numpy" ensure_deps
	if [ "${BENCH_FLEET_INSTALL:-1}" = 1 ]; then
		# a build at nice 10: the machine is shared
		nice -n 10 env WERROR=-Werror bash -c '. tools/lib.sh; build_and_install'
	fi
	build_redisbloom
	scratch=$(bench_scratch fleet)
	cp "$RB_CACHE/redisbloom-$RB_VERSION.so" "$scratch/redisbloom.so"
	[ "$(id -u)" != 0 ] || chown -R "$TEST_USER" "$scratch"
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
	log "fleet benchmark in $scratch"
	status=0
	as_user env PROCS="$PROCS" LINKS="$LINKS" PREFILL="$PREFILL" REPEATS="$REPEATS" MODES="$MODES" SYNC="$SYNC" \
		PRELOAD="$PRELOAD" COMMIT="$commit" bash "$PWD/bench/fleet.sh" --stage2 "$scratch" || status=$?
	bench_finish "$scratch" $status bench/results/fleet_latest.txt "${BENCH_FLEET_KEEP:-0}"
fi

# ---- stage 2: unprivileged, in the scratch dir ----
scratch=$2
ensure_deps >/dev/null
REDIS_SOCK=$scratch/redis.sock
stop_all() {
	bench_redis_stop "$scratch"
	stop_cluster
}
trap stop_all EXIT
start_cluster "$scratch"
if [ "$PRELOAD" = 1 ]; then
	bench_psql -c "ALTER SYSTEM SET shared_preload_libraries = 'bloomfilter'"
	"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$scratch/server.log" -w restart >/dev/null
fi
bench_psql -c "CREATE EXTENSION bloomfilter"
bench_redis_start "$scratch" "$scratch"

before=$(uptime)
/usr/bin/python3 bench/fleet.py --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" \
	--redis "$REDIS_SOCK" --modes "$MODES" --procs "$PROCS" --links "$LINKS" --prefill "$PREFILL" --repeats "$REPEATS" \
	--sync-interval "$SYNC" --data ../shared/data >"$scratch/tables.md" 2>"$scratch/fleet.log" ||
	{ cat "$scratch/fleet.log" >&2; exit 1; }
after=$(uptime)
{
	echo "# A fleet of $PROCS crawlers against one server"
	echo
	echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT"
	bench_machine_line
	echo "- PostgreSQL: $("$PG_BINDIR/postgres" --version), start_cluster's settings" \
		"(shared_buffers 256MB, fsync off, jit off), module $([ "$PRELOAD" = 1 ] && echo preloaded || echo "not preloaded (generic WAL)")"
	echo "- Redis: $(redis-server --version | awk '{print $3}' | sed 's/^v=//')," \
		"RedisBloom $RB_VERSION, no persistence, unix socket, python3-redis $(/usr/bin/python3 -c 'import redis; print(redis.__version__)')"
	echo "- client: Debian's $(/usr/bin/python3 --version), psycopg2 $(/usr/bin/python3 -c 'import psycopg2; print(psycopg2.__version__.split()[0])'), batch 1,000, cache 100,000, replica sync every $SYNC s"
	grep '^streams:' "$scratch/fleet.log" | sed 's/^/- /'
	echo "- load before: $before"
	echo "- load after: $after"
	echo
	cat "$scratch/tables.md"
} >"$scratch/results.md"
cat "$scratch/results.md"
