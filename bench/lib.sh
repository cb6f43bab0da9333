# What the benchmark drivers that run their own servers share
# (index_bench.sh, index_billion.sh, fleet.sh, index_concurrency.sh, index_fpw.sh,
# crawler_forms.sh): stage 1, as
# root or a sudoer, hands a scratch directory to stage 2, which runs as
# the unprivileged test user, and keeps what it wrote.  Sourced after
# tools/lib.sh.
# shellcheck shell=bash

# A scratch directory under /tmp (bench-PREFIX-*) the test user owns;
# prints its path.
bench_scratch() {
	local scratch
	scratch=$(mktemp -d "/tmp/bench-$1-XXXXXX")
	chmod 755 "$scratch"
	if [ "$(id -u)" = 0 ]; then
		id "$TEST_USER" >/dev/null 2>&1 || useradd --system --shell /bin/bash --home-dir "$scratch" "$TEST_USER"
		chown -R "$TEST_USER" "$scratch"
	fi
	echo "$scratch"
}

# bench_finish SCRATCH STATUS OUT KEEP [HEADER]: stage 1's end.  On
# success stage 2's SCRATCH/results.md goes to OUT (after HEADER and a
# blank line, if given); the scratch directory is removed unless KEEP is 1
# or stage 2 failed.  Exits with STATUS.
bench_finish() {
	local scratch=$1 status=$2 out=$3 keep=$4 header=${5:-}
	if [ "$status" -eq 0 ]; then
		mkdir -p "$(dirname "$out")"
		{
			if [ -n "$header" ]; then
				echo "$header"
				echo
			fi
			cat "$scratch/results.md"
		} >"$out"
		log "results in $out"
	fi
	if [ "$keep" = 1 ] || [ "$status" -ne 0 ]; then
		log "scratch dir kept: $scratch"
	else
		rm -rf "$scratch"
	fi
	exit "$status"
}

# psql on the stage's cluster (database postgres unless -d says otherwise),
# quiet, stopping at the first error
bench_psql() {
	PGOPTIONS="-c client_min_messages=warning" "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d postgres "$@"
}

# bench_server_settings SHARED_BUFFERS PRELOAD: what the index benchmarks
# run under, set for the next restart: the index in shared buffers, no
# checkpoint inside a timed run, serial plans, and (PRELOAD=1) the module
# preloaded, so the index logs its adds with its own WAL records
bench_server_settings() {
	bench_psql -c "ALTER SYSTEM SET shared_buffers = '$1'" \
		-c "ALTER SYSTEM SET maintenance_work_mem = '1GB'" \
		-c "ALTER SYSTEM SET max_wal_size = '16GB'" \
		-c "ALTER SYSTEM SET checkpoint_timeout = '1h'" \
		-c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0"
	if [ "$2" = 1 ]; then
		bench_psql -c "ALTER SYSTEM SET shared_preload_libraries = 'bloomfilter'"
	fi
}

# bench_pgbench_stage1 PREFIX WHAT RESULTS KEEP INSTALL SCRIPT [VAR=VALUE...]:
# stage 1 of a driver that runs pgbench against its own cluster (as root
# or a sudoer): the extension built and installed if INSTALL is 1, then
# SCRIPT --stage2 SCRATCH as the test user with the VAR=VALUE settings,
# then bench_finish.  Exits.
bench_pgbench_stage1() {
	local prefix=$1 what=$2 results=$3 keep=$4 install=$5 script=$6 scratch status=0
	shift 6
	ensure_deps
	if [ "$install" = 1 ]; then
		# a build at nice 10: the machine is shared
		nice -n 10 env WERROR=-Werror bash -c '. tools/lib.sh; build_and_install'
	fi
	[ -x "$PG_BINDIR/pgbench" ] || { log "no pgbench in $PG_BINDIR"; exit 1; }
	scratch=$(bench_scratch "$prefix")
	log "$what in $scratch"
	as_user env "$@" bash "$PWD/$script" --stage2 "$scratch" || status=$?
	bench_finish "$scratch" $status "$results" "$keep"
}

# bench_stage2_cluster SCRATCH SHARED_BUFFERS PRELOAD: stage 2's cluster
# in SCRATCH, stopped when the script exits, restarted with
# bench_server_settings
bench_stage2_cluster() {
	ensure_deps >/dev/null
	trap stop_cluster EXIT
	start_cluster "$1"
	bench_server_settings "$2" "$3"
	"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$1/server.log" -w restart >/dev/null
}

# bench_hugepages SHARED_BUFFERS (as root): reserve enough 2 MB huge
# pages for a server with those shared buffers (vm.nr_hugepages, with a
# margin for PostgreSQL's other shared memory), printing the count there
# was before, for bench_hugepages_restore COUNT once the server is down
bench_hugepages() {
	local mb before
	mb=$(echo "$1" | awk '/GB$/ { print $0 * 1024; next } /MB$/ { print $0 + 0; next } { exit 1 }') ||
		{ echo "bench_hugepages: give shared_buffers in MB or GB, not $1" >&2; return 2; }
	before=$(cat /proc/sys/vm/nr_hugepages)
	echo $((mb / 2 * 115 / 100 + 64)) >/proc/sys/vm/nr_hugepages
	echo "$before"
}

bench_hugepages_restore() {
	echo "$1" >/proc/sys/vm/nr_hugepages
}

# bench_redis_start SCRATCH DIR [PREFIX...]: a redis-server with
# RedisBloom (SCRATCH/redisbloom.so) on the unix socket SCRATCH/redis.sock,
# its data in DIR, started through PREFIX (a taskset, say); returns once it
# answers.  bench_redis_stop SCRATCH stops it, if it runs.
bench_redis_start() {
	local scratch=$1 dir=$2
	shift 2
	"$@" redis-server --port 0 --unixsocket "$scratch/redis.sock" --dir "$dir" --save '' --appendonly no \
		--loadmodule "$scratch/redisbloom.so" --daemonize yes --pidfile "$scratch/redis.pid" \
		--logfile "$scratch/redis.log"
	for _ in $(seq 50); do redis-cli -s "$scratch/redis.sock" PING >/dev/null 2>&1 && break; sleep 0.1; done
}

bench_redis_stop() {
	[ -f "$1/redis.pid" ] && kill "$(cat "$1/redis.pid")" 2>/dev/null
	rm -f "$1/redis.pid"
}

# the machine, for a report's header: "- machine: CPU, N cores, M GB RAM"
bench_machine_line() {
	echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores," \
		"$(free -g | awk '/^Mem:/ {print $2}') GB RAM"
}

# RedisBloom, the peer of the index benchmarks (index_bench.sh,
# index_billion.sh): its version, the source in ../shared/peers, and
# where the built module is kept between runs
RB_VERSION=2.8.20
RB_TARBALL=${REDISBLOOM_TARBALL:-../shared/peers/redisbloom-$RB_VERSION.tar.xz}
RB_CACHE=${REDISBLOOM_CACHE:-/var/cache/bloomfilter/redisbloom}

# RedisBloom's own build downloads its toolchain (deps/readies): build the
# module's sources with plain gcc, as ../shared/peers/README.md describes
build_redisbloom() {
	local so=$RB_CACHE/redisbloom-$RB_VERSION.so src f
	[ -f "$so" ] && return 0
	[ -f "$RB_TARBALL" ] || { log "no RedisBloom source at $RB_TARBALL"; exit 1; }
	log "building RedisBloom $RB_VERSION into $so"
	src=$(mktemp -d /tmp/bench-index-rb.XXXXXX)
	tar -xJf "$RB_TARBALL" -C "$src"
	(
		cd "$src/redisbloom-$RB_VERSION"
		mkdir -p deps/readies/cetara/diag obj
		touch deps/readies/cetara/diag/gdb.h
		# the module's sources, as its Makefile lists them, and t-digest's
		for f in deps/bloom/bloom.c deps/murmur2/MurmurHash2.c deps/rmutil/util.c \
			src/rebloom.c src/sb.c src/cf.c src/rm_topk.c src/rm_tdigest.c src/topk.c \
			src/rm_cms.c src/cms.c deps/t-digest-c/src/tdigest.c; do
			nice -n 10 gcc -fPIC -O3 -std=gnu99 -fno-strict-aliasing -fcommon -D_GNU_SOURCE \
				-DREDIS_MODULE_TARGET -DREDISMODULE_SDK_RLEC -I. -Isrc -Ideps/RedisModulesSDK \
				-Ideps -Ideps/murmur2 -Ideps/t-digest-c/src -c "$f" -o "obj/$(basename "$f" .c).o"
		done
		nice -n 10 gcc -shared -o redisbloom.so obj/*.o -lm
		as_root mkdir -p "$RB_CACHE"
		as_root install -m 755 redisbloom.so "$so"
	)
	rm -rf "$src"
}
