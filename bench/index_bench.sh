#!/usr/bin/env bash
# The bloomfilter index access method against RedisBloom, side by side:
# test-and-add and probe throughput with batches of 1,000 URLs, into a
# filter prefilled with N keys (bench/README.md, "Index vs RedisBloom").
#
#   bash bench/index_bench.sh          as root or a sudoer; prints a markdown
#                                      table, also kept in
#                                      bench/results/index_latest.txt
#
#   BENCH_INDEX_MODE=stored           instead of the index: test-and-add into
#                                     a filter stored in a column, the 1.0
#                                     recipe ("before") and one statement
#                                     around bloom_test_and_add ("after"),
#                                     each against BF.MADD; results in
#                                     bench/results/stored_tna_latest.txt
#   BENCH_INDEX_SIZES="1000000 100000000"  prefilled sizes (default 1000000)
#   BENCH_INDEX_BATCHES=200           timed batches of 1,000 URLs per pass
#   BENCH_INDEX_ROUNDS=5              probe-only passes over all batches, and
#                                     slices the test-and-add batches are cut
#                                     in; medians are reported
#   BENCH_INDEX_PG_PREFILL=build      build: load the table, then CREATE INDEX;
#                                     insert: CREATE INDEX, then load the table
#   BENCH_INDEX_SHARED_BUFFERS=2GB    enough to hold the 100M index
#   BENCH_INDEX_PIN=1                 servers on the last CPU, the client on
#                                     the others (taskset)
#   BENCH_INDEX_PRELOAD=1             shared_preload_libraries = 'bloomfilter':
#                                     the index logs its adds with the
#                                     module's own WAL records (0: generic
#                                     WAL, report in
#                                     bench/results/index_generic_latest.txt)
#   BENCH_INDEX_RELAXED=1             also synchronous_commit = off and
#                                     full_page_writes = off (fsync is off
#                                     always), as issue 48's measurements
#                                     were made; the report's name gets
#                                     _relaxed
#   BENCH_INDEX_HUGE_PAGES=1          huge_pages = on, with vm.nr_hugepages
#                                     raised for the run (and put back);
#                                     the report's name gets _huge
#   BENCH_INDEX_INSTALL=0             skip building and installing bloomfilter
#   BENCH_INDEX_KEEP=1                keep the scratch dir (/tmp/bench-index-*)
#   REDISBLOOM_TARBALL, REDISBLOOM_CACHE  source, and where the built .so is
#                                     kept between runs
#
# Stage 1 (root): installs redis-server, libhiredis-dev and libpq-dev if
# missing, builds and installs bloomfilter (nice 10), builds RedisBloom's
# module from the peers tarball once (plain gcc, see ../shared/peers), and
# compiles bench/index_bench.c.  Stage 2 (the unprivileged test user):
# starts a throwaway PostgreSQL cluster and a redis-server in a scratch
# dir, prefills both with the same keys for each size, and runs
# index_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
. bench/lib.sh

MODE=${BENCH_INDEX_MODE:-index}
case $MODE in
index) RESULTS_FILE=bench/results/index_latest.txt ;;
stored) RESULTS_FILE=bench/results/stored_tna_latest.txt ;;
*) echo "BENCH_INDEX_MODE: index or stored" >&2; exit 2 ;;
esac
SIZES=${BENCH_INDEX_SIZES:-1000000}
BATCHES=${BENCH_INDEX_BATCHES:-200}
ROUNDS=${BENCH_INDEX_ROUNDS:-5}
PG_PREFILL=${BENCH_INDEX_PG_PREFILL:-build}
SHARED_BUFFERS=${BENCH_INDEX_SHARED_BUFFERS:-2GB}
PIN=${BENCH_INDEX_PIN:-0}
PRELOAD=${BENCH_INDEX_PRELOAD:-1}
RELAXED=${BENCH_INDEX_RELAXED:-0}
HUGE=${BENCH_INDEX_HUGE_PAGES:-0}
# without the preload (generic WAL) the index's report is kept apart, and
# so is a relaxed run's
[ "$MODE" != index ] || [ "$PRELOAD" = 1 ] || RESULTS_FILE=bench/results/index_generic_latest.txt
[ "$RELAXED" != 1 ] || RESULTS_FILE=${RESULTS_FILE%_latest.txt}_relaxed_latest.txt
[ "$HUGE" != 1 ] || RESULTS_FILE=${RESULTS_FILE%_latest.txt}_huge_latest.txt
DATA=../shared/data

if [ "${1:-}" != "--stage2" ]; then
	EXTRA_DEPS="redis-server libhiredis-dev libpq-dev" ensure_deps
	if [ "${BENCH_INDEX_INSTALL:-1}" = 1 ]; then
		# a build at nice 10: the machine is shared
		nice -n 10 env WERROR=-Werror bash -c '. tools/lib.sh; build_and_install'
	fi
	build_redisbloom
	scratch=$(bench_scratch index)
	nice -n 10 gcc -O2 -std=gnu11 -Wall -Wextra -I"$("$PG_CONFIG" --includedir)" \
		-o "$scratch/index_bench" bench/index_bench.c -lhiredis -lpq -lxxhash
	# the batches' new half: real URLs, each once (the links in the order a
	# crawler found them, then the packages' home pages)
	gzip -dc "$DATA/doc-links-stream.txt.gz" "$DATA/debian-homepages.txt.gz" | awk '!seen[$0]++' >"$scratch/urls.txt"
	cp "$RB_CACHE/redisbloom-$RB_VERSION.so" "$scratch/redisbloom.so"
	[ "$(id -u)" != 0 ] || chown -R "$TEST_USER" "$scratch"
	log "index benchmark in $scratch"
	status=0
	[ "$HUGE" != 1 ] || hugepages_before=$(bench_hugepages "$SHARED_BUFFERS")
	as_user env MODE="$MODE" SIZES="$SIZES" BATCHES="$BATCHES" ROUNDS="$ROUNDS" PG_PREFILL="$PG_PREFILL" PIN="$PIN" PRELOAD="$PRELOAD" RELAXED="$RELAXED" \
		HUGE="$HUGE" SHARED_BUFFERS="$SHARED_BUFFERS" bash "$PWD/bench/index_bench.sh" --stage2 "$scratch" || status=$?
	[ "$HUGE" != 1 ] || bench_hugepages_restore "$hugepages_before"
	bench_finish "$scratch" $status "$RESULTS_FILE" "${BENCH_INDEX_KEEP:-0}"
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
# the index in shared buffers: time the CPU work, not the page cache; room
# for a 100M prefill's WAL between checkpoints
psql() { bench_psql "$@"; }
bench_server_settings "$SHARED_BUFFERS" "$PRELOAD"
if [ "$RELAXED" = 1 ]; then
	psql -c "ALTER SYSTEM SET synchronous_commit = off" -c "ALTER SYSTEM SET full_page_writes = off"
fi
# huge pages: a probe or an add at 100M keys lands on a page of its own,
# each a TLB miss with 4 kB pages (bench/README.md)
if [ "$HUGE" = 1 ]; then
	psql -c "ALTER SYSTEM SET huge_pages = on"
fi
# BENCH_INDEX_PIN=1: both servers on the last CPU, the client on the
# others, so each request crosses between the same two CPUs on both sides
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then
	server_cpu=$(($(nproc) - 1))
	on_server() { taskset -c "$server_cpu" "$@"; }
	on_client() { taskset -c "0-$((server_cpu - 1))" "$@"; }
else
	on_server() { "$@"; }
	on_client() { "$@"; }
fi
on_server "$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$scratch/server.log" -w restart >/dev/null
psql -c "CREATE EXTENSION bloomfilter"
# pg_prewarm is contrib: where it is missing, reading every page warms the index
prewarm() { psql -c "SELECT pg_prewarm('$1')" >/dev/null; }
psql -c "CREATE EXTENSION pg_prewarm" 2>/dev/null || prewarm() { psql -c "SELECT bloom_index_info('$1')" >/dev/null; }

bench_redis_start "$scratch" "$scratch" on_server

secs() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# key(i) of bench/index_bench.c, 1,000 to a row: one array per row, made a
# row at a time (a GROUP BY over the whole series would hold it all);
# load_sql N hashes: their bloom_hash values into the log of hashes
load_sql() {
	local table=seen_log col=urls key="'https://host' || (i % 100003) || '.example/page/' || i || '.html'"
	if [ "${2:-}" = hashes ]; then
		table=seen_hashes col=hs key="bloom_hash($key)"
	fi
	cat <<SQL
INSERT INTO $table ($col)
SELECT (SELECT array_agg($key)
        FROM generate_series(g * 1000, least(g * 1000 + 999, $1 - 1)) i)
FROM generate_series(0::bigint, ($1 - 1) / 1000) g
SQL
}

# ---- mode stored: test-and-add into a filter stored in a column ----
if [ "$MODE" = stored ]; then
	results=$scratch/results.txt
	: >"$results"
	put() { echo "$n $1 $2" >>"$results"; }
	t_start=$(date +%s)
	read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ </proc/stat
	# before: the 1.0-era recipe of the README (enqueue_new_links without
	# the exact tier): lock the row, probe the batch's distinct URLs one
	# bloom_contains(f, x) at a time, write the filter unconditionally
	psql <<'SQL'
CREATE FUNCTION tna_before(links text[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    fresh text[];
BEGIN
    PERFORM 1 FROM url_filter WHERE id = 1 FOR UPDATE;
    SELECT array_agg(l.url) INTO fresh
    FROM (SELECT DISTINCT x AS url FROM unnest(links) AS x) l, url_filter u
    WHERE u.id = 1 AND NOT bloom_contains(u.f, l.url);
    UPDATE url_filter SET f = bloom_add(f, coalesce(fresh, '{}')) WHERE id = 1;
    RETURN coalesce(cardinality(fresh), 0);
END
$$;
SQL
	for n in $SIZES; do
		log "size $n: RedisBloom prefill"
		redis-cli -s "$REDIS_SOCK" FLUSHALL >/dev/null
		on_client "$scratch/index_bench" redis-prefill "$REDIS_SOCK" "$n" | sed "s/^/$n /" >>"$results"

		log "size $n: PostgreSQL prefill (bloom_agg)"
		# the column's storage is the type's default (EXTERNAL)
		psql -c "DROP TABLE IF EXISTS url_filter" -c "CREATE TABLE url_filter (id int PRIMARY KEY, f bloomfilter)"
		t0=$(secs)
		psql -c "INSERT INTO url_filter SELECT 1, bloom_agg('https://host' || (i % 100003) || '.example/page/' || i || '.html', $n, 0.01) FROM generate_series(0::bigint, $n - 1) i"
		t1=$(secs)
		put pg_prefill_s "$(elapsed "$t0" "$t1")"
		psql -c "VACUUM ANALYZE url_filter" -c "CHECKPOINT"
		put pg_bytes "$(psql -Atc "SELECT pg_column_size(f) FROM url_filter WHERE id = 1")"
		put pg_storage "$(psql -Atc "SELECT attstorage FROM pg_attribute WHERE attrelid = 'url_filter'::regclass AND attname = 'f'")"

		log "size $n: $BATCHES batches of 1,000 to each statement, then again with nothing new"
		on_client "$scratch/index_bench" stored "$REDIS_SOCK" "host=$PGHOST port=$PGPORT user=$PGUSER dbname=postgres" \
			"$n" "$BATCHES" "$ROUNDS" "$scratch/urls.txt" | sed "s/^/$n /" >>"$results"
		put pg_table_bytes "$(psql -Atc "SELECT pg_total_relation_size('url_filter')")"
	done
	read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ </proc/stat
	tot=$(((u1 + n1 + s1 + i1 + w1 + q1 + sq1 + st1) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0)))
	{
		echo "stored bloomfilter test-and-add vs RedisBloom BF.MADD, $(date -u '+%Y-%m-%d %H:%M UTC'):" \
			"BENCH_INDEX_MODE=stored BENCH_INDEX_SIZES=\"$SIZES\" BENCH_INDEX_BATCHES=$BATCHES BENCH_INDEX_ROUNDS=$ROUNDS BENCH_INDEX_PIN=$PIN"
		echo
		bench_machine_line
		echo "- PostgreSQL: $("$PG_BINDIR/postgres" --version | sed 's/^postgres (PostgreSQL) //'), bloomfilter" \
			"$(psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")," \
			"shared_buffers = $SHARED_BUFFERS, fsync = off, jit = off, unix socket, libpq, text[] parameter in text form"
		echo "- Redis: $(redis-server --version | awk '{print $3}' | sed 's/^v=//')," \
			"RedisBloom $RB_VERSION (gcc -O3, ../shared/peers/README.md), no persistence, unix socket, hiredis"
		echo "- wall time $(($(date +%s) - t_start)) s; CPU steal $((100 * (st1 - st0) / (tot > 0 ? tot : 1)))%;" \
			"load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo
		awk -v batches="$BATCHES" '
		{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; sizes[++ns] = $1 } }
		function human(n) {
			if (n >= 1e6 && n % 1e6 == 0) return (n / 1e6) "M"
			if (n >= 1e3 && n % 1e3 == 0) return (n / 1e3) "k"
			return n
		}
		function side(s, p, w) {
			return sprintf("%.0f (%.0f-%.0f), %.2f (%.2f-%.2f)", v[s, p "_" w "_ups"], v[s, p "_" w "_ups_min"],
				v[s, p "_" w "_ups_max"], v[s, p "_" w "_ms"], v[s, p "_" w "_ms_min"], v[s, p "_" w "_ms_max"])
		}
		function row(s, p, what) {
			printf "| %s | %s | %s | %s | %.3f (%.3f-%.3f) | %.0f |\n", human(s), what, side(s, p, "redis"), side(s, p, "pg"),
				v[s, p "_ratio"], v[s, p "_ratio_min"], v[s, p "_ratio_max"], v[s, p "_wal_batch"] / 1024
		}
		END {
			print "| size | measure | BF.MADD: URLs/s, ms per batch | PostgreSQL: URLs/s, ms per batch | PG/Redis | WAL kB per batch |"
			print "|---|---|---|---|---|---|"
			for (k = 1; k <= ns; k++) {
				s = sizes[k]
				row(s, "tnab", "before (1.0 recipe), set A: 500 new a batch")
				row(s, "tnaa", "after (bloom_test_and_add), set B: 500 new a batch")
				row(s, "noopb", "before, set A again: nothing new")
				row(s, "noopa", "after, set A again: nothing new")
				printf "| %s | after/before, URLs/s | | %.2f (%.2f-%.2f); nothing new: %.2f (%.2f-%.2f) | | |\n", human(s),
					v[s, "after_before_ratio"], v[s, "after_before_ratio_min"], v[s, "after_before_ratio_max"],
					v[s, "noop_after_before_ratio"], v[s, "noop_after_before_ratio_min"], v[s, "noop_after_before_ratio_max"]
			}
			print ""
			print "Each cell: median over the rounds (least-greatest round). URLs/s over the summed request times of a round; ms: a round'"'"'s median batch."
			print "PG/Redis: median (least-greatest) of the rounds'"'"' throughput ratios, the two sides taking turns batch by batch (below 1: PostgreSQL slower)."
			print "WAL: pg_current_wal_insert_lsn difference over the statement'"'"'s batches / " batches "."
			print ""
			print "Checks (each side should agree up to false positives):"
			print ""
			print "| size | prefill s (Redis, PG) | PG filter bytes, storage | set A new (Redis, before) | set B new (Redis, after) | nothing new: new (Redis, before, after) |"
			print "|---|---|---|---|---|---|"
			for (k = 1; k <= ns; k++) {
				s = sizes[k]
				printf "| %s | %.2f, %.2f | %d, %s | %d, %d | %d, %d | %d, %d, %d |\n", human(s),
					v[s, "redis_prefill_s"], v[s, "pg_prefill_s"], v[s, "pg_bytes"], v[s, "pg_storage"],
					v[s, "tnab_redis_ones"], v[s, "tnab_pg_ones"], v[s, "tnaa_redis_ones"], v[s, "tnaa_pg_ones"],
					v[s, "noopb_redis_ones"] + v[s, "noopa_redis_ones"], v[s, "noopb_pg_ones"], v[s, "noopa_pg_ones"]
			}
		}' "$results"
	} | tee "$scratch/results.md"
	exit 0
fi

results=$scratch/results.txt
: >"$results"
# one "size name value" line of the results
put() { echo "$n $1 $2" >>"$results"; }
t_start=$(date +%s)
read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ </proc/stat
# prefill_log N WHAT TABLE INDEX INDEX_SQL: one log and its index, timed
# as PG_PREFILL says; puts WHAT's figures
prefill_log() {
	local n=$1 what=$2 table=$3 index=$4 index_sql=$5 t0 t1 t2
	t0=$(secs)
	if [ "$PG_PREFILL" = insert ]; then
		psql -c "$index_sql"
		t1=$(secs)
		psql -c "$(load_sql "$n" "$what")"
		t2=$(secs)
		put "${what}_pg_index_s" "$(elapsed "$t0" "$t1")"
		put "${what}_pg_load_s" "$(elapsed "$t1" "$t2")"
	else
		psql -c "$(load_sql "$n" "$what")"
		t1=$(secs)
		psql -c "$index_sql"
		t2=$(secs)
		put "${what}_pg_load_s" "$(elapsed "$t0" "$t1")"
		put "${what}_pg_index_s" "$(elapsed "$t1" "$t2")"
	fi
	put "${what}_pg_prefill_s" "$(elapsed "$t0" "$t2")"
	# not timed: hint bits and statistics, the index into shared buffers
	psql -c "VACUUM ANALYZE $table"
	prewarm "$index"
}

# a log's sizes: its index's (and stages), the table's with its TOAST
log_sizes() {
	local what=$1 table=$2 index=$3 when=$4
	put "${what}_pg_bytes$when" "$(psql -Atc "SELECT pg_relation_size('$index')")"
	put "${what}_pg_stages$when" "$(psql -Atc "SELECT bloom_index_info('$index')->>'stages'")"
	put "${what}_pg_table_bytes$when" "$(psql -Atc "SELECT pg_table_size('$table')")"
}

for n in $SIZES; do
	log "size $n: RedisBloom prefill (twice: bf for the log of URLs, bfh for the log of hashes)"
	redis-cli -s "$REDIS_SOCK" FLUSHALL >/dev/null
	on_client "$scratch/index_bench" redis-prefill "$REDIS_SOCK" "$n" | sed "s/^/$n /" >>"$results"
	on_client "$scratch/index_bench" redis-prefill "$REDIS_SOCK" "$n" bfh | sed "s/^/$n /" >>"$results"

	log "size $n: PostgreSQL prefill ($PG_PREFILL), the log of URLs and the log of hashes"
	psql -c "DROP TABLE IF EXISTS seen_log, seen_hashes" -c "CREATE TABLE seen_log (urls text[])" \
		-c "ALTER TABLE seen_log ALTER urls SET COMPRESSION lz4" \
		-c "CREATE TABLE seen_hashes (hs bigint[]) WITH (toast_tuple_target = 8160)"
	prefill_log "$n" urls seen_log seen_log_urls \
		"CREATE INDEX seen_log_urls ON seen_log USING bloomfilter (urls) WITH (capacity = $n, fpr = 0.01)"
	prefill_log "$n" hashes seen_hashes seen_hashes_f \
		"CREATE INDEX seen_hashes_f ON seen_hashes USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = $n, fpr = 0.01)"
	# the same bits from the hashes as from the URLs
	put same_bits "$(psql -Atc "SELECT bytea(bloom_index_snapshot('seen_log_urls')) = bytea(bloom_index_snapshot('seen_hashes_f'))")"
	# a checkpoint now, so none falls inside the timed passes (each index
	# page's first change after it is then logged whole: at 10M, 129 kB of
	# WAL a test-and-add batch against 114 kB without it)
	psql -c "CHECKPOINT"
	log_sizes urls seen_log seen_log_urls ""
	log_sizes hashes seen_hashes seen_hashes_f ""

	log "size $n: $BATCHES batches of 1,000, $ROUNDS probe rounds"
	on_client "$scratch/index_bench" run "$REDIS_SOCK" "host=$PGHOST port=$PGPORT user=$PGUSER dbname=postgres" \
		"$n" "$BATCHES" "$ROUNDS" "$scratch/urls.txt" | sed "s/^/$n /" >>"$results"
	log_sizes urls seen_log seen_log_urls _after
	log_sizes hashes seen_hashes seen_hashes_f _after
	psql -c "DROP TABLE seen_log, seen_hashes"
done
read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ </proc/stat
tot=$(((u1 + n1 + s1 + i1 + w1 + q1 + sq1 + st1) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0)))

{
	echo "bloomfilter index vs RedisBloom, $(date -u '+%Y-%m-%d %H:%M UTC'):" \
		"BENCH_INDEX_SIZES=\"$SIZES\" BENCH_INDEX_BATCHES=$BATCHES BENCH_INDEX_ROUNDS=$ROUNDS BENCH_INDEX_PG_PREFILL=$PG_PREFILL BENCH_INDEX_PIN=$PIN"
	echo
	bench_machine_line
	echo "- PostgreSQL: $("$PG_BINDIR/postgres" --version | sed 's/^postgres (PostgreSQL) //'), bloomfilter" \
		"$(psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")," \
		"shared_buffers = $SHARED_BUFFERS, fsync = off, jit = off, unix socket, libpq, parameters in text form (set H: bigint[] in binary)"
	echo "- synchronous_commit = $(psql -Atc "SHOW synchronous_commit"), full_page_writes = $(psql -Atc "SHOW full_page_writes")," \
		"huge_pages = $(psql -Atc "SHOW huge_pages") (Redis: its default, disable-thp yes)"
	echo "- index WAL: $(psql -Atc "SELECT CASE WHEN current_setting('bloomfilter.wal_rmgr_id', true) IS NOT NULL AND current_setting('bloomfilter.index_wal') = 'auto' THEN 'the module''s own records (preloaded)' ELSE 'generic WAL' END")"
	echo "- Redis: $(redis-server --version | awk '{print $3}' | sed 's/^v=//')," \
		"RedisBloom $RB_VERSION (gcc -O3, ../shared/peers/README.md), no persistence, unix socket, hiredis"
	echo "- wall time $(($(date +%s) - t_start)) s; CPU steal $((100 * (st1 - st0) / (tot > 0 ? tot : 1)))%;" \
		"load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	awk -v batches="$BATCHES" -v prefill="$PG_PREFILL" '
	{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; sizes[++ns] = $1 } }
	function mb(b) { return sprintf("%.1f", b / 1048576) }
	function rate(u) { return sprintf("%.0f", u) }
	function r(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
	function human(n) {
		if (n >= 1e6 && n % 1e6 == 0) return (n / 1e6) "M"
		if (n >= 1e3 && n % 1e3 == 0) return (n / 1e3) "k"
		return n
	}
	function pass(s, p, what) {
		printf "| %s | %s, URLs/s (ms per batch) | %s (%.2f) | %s (%.2f) | %.2f (%.2f-%.2f) |\n", human(s), what,
			rate(v[s, p "_redis_ups"]), v[s, p "_redis_ms"], rate(v[s, p "_pg_ups"]), v[s, p "_pg_ms"],
			v[s, p "_ratio"], v[s, p "_ratio_min"], v[s, p "_ratio_max"]
	}
	function prefill_how(s, w) {
		if (prefill == "insert")
			return sprintf("empty index %.2f + table through it %.2f", v[s, w "_pg_index_s"], v[s, w "_pg_load_s"])
		return sprintf("table %.2f + index %.2f", v[s, w "_pg_load_s"], v[s, w "_pg_index_s"])
	}
	function sizes_row(s, w, key, what) {
		printf "| %s | %s: filter MB, stages: prefilled -> after the adds | %s, %d -> %s, %d | %s, %d -> %s, %d | %s |\n",
			human(s), what,
			mb(v[s, key "redis_bytes"]), v[s, key "redis_stages"], mb(v[s, key "redis_bytes_after"]), v[s, key "redis_stages_after"],
			mb(v[s, w "_pg_bytes"]), v[s, w "_pg_stages"], mb(v[s, w "_pg_bytes_after"]), v[s, w "_pg_stages_after"],
			r(v[s, w "_pg_bytes"], v[s, key "redis_bytes"])
	}
	END {
		print "| size | measure | RedisBloom | bloomfilter index | PG/Redis |"
		print "|---|---|---|---|---|"
		for (k = 1; k <= ns; k++) {
			s = sizes[k]
			printf "| %s | prefill, s | %.2f (BF.MADD of 1,000, 16 in flight) | log of URLs %.2f (%s); log of hashes %.2f (%s) | %s |\n",
				human(s), v[s, "redis_prefill_s"], v[s, "urls_pg_prefill_s"], prefill_how(s, "urls"),
				v[s, "hashes_pg_prefill_s"], prefill_how(s, "hashes"),
				r(v[s, "urls_pg_prefill_s"], v[s, "redis_prefill_s"])
			sizes_row(s, "urls", "", "log of URLs")
			sizes_row(s, "hashes", "bfh_", "log of hashes")
			pass(s, "probe", "probe 1,000: BF.MEXISTS / bloom_index_contains(idx, text[])")
			pass(s, "tna1", "test-and-add 1,000, set A: BF.MADD / per-item probe statement")
			pass(s, "tna1x", "the same statement with a LIKE for the probe, set I: BF.MADD / its SQL alone, no probe")
			pass(s, "tna2", "test-and-add 1,000, set B: BF.MADD / array probe statement")
			pass(s, "tna3", "test-and-add 1,000, set C: BF.MADD / bloom_index_absent, log of URLs")
			pass(s, "tna4", "test-and-add 1,000, set D: BF.MADD / bloom_index_absent, log of hashes, client hashes, bigint[] as text")
			pass(s, "tna4b", "test-and-add 1,000, set H: BF.MADD / bloom_index_absent, log of hashes, client hashes, bigint[] binary")
			pass(s, "tna5", "test-and-add 1,000, set E: BF.MADD / bloom_index_absent, log of hashes, server hashes")
			pass(s, "ins", "log 1,000, set F: BF.MADD / INSERT of one row of URLs, no test")
			pass(s, "insh", "log 1,000, set G: BF.MADD / INSERT of one row of hashes, bigint[] binary, no test")
		}
		print ""
		print "URLs/s and ms: medians over the rounds. PG/Redis: for the URLs/s rows, the median (least-greatest) of the throughput ratios of the rounds,"
		print "the two sides taking turns batch by batch (below 1: PostgreSQL slower); for the others, the ratio of time or size."
		print "Sets A-C, F and I against Redis key bf (and the log of URLs), D, E, G and H against key bfh (and the log of hashes); each prefilled with the same N keys."
		print ""
		print "Checks (each side should agree up to false positives):"
		print ""
		print "| size | probe: members found of " 500 * batches " (Redis, PG) | new (Redis, PG): set A | I | B | C | D | H | E | hashes and URLs give the same bits |"
		print "|---|---|---|---|---|---|---|---|---|---|"
		for (k = 1; k <= ns; k++) {
			s = sizes[k]
			printf "| %s | %d, %d | %d, %d | %d, %d | %d, %d | %d, %d | %d, %d | %d, %d | %d, %d | %s |\n", human(s),
				v[s, "probe_redis_ones"], v[s, "probe_pg_ones"], v[s, "tna1_redis_ones"], v[s, "tna1_pg_ones"],
				v[s, "tna1x_redis_ones"], v[s, "tna1x_pg_ones"],
				v[s, "tna2_redis_ones"], v[s, "tna2_pg_ones"], v[s, "tna3_redis_ones"], v[s, "tna3_pg_ones"],
				v[s, "tna4_redis_ones"], v[s, "tna4_pg_ones"], v[s, "tna4b_redis_ones"], v[s, "tna4b_pg_ones"],
				v[s, "tna5_redis_ones"], v[s, "tna5_pg_ones"],
				v[s, "same_bits"] == "t" ? "yes" : "NO"
		}
		print ""
		print "WAL and disk, PostgreSQL:"
		print ""
		print "| size | WAL kB a batch: set A | I | B | C | D | H | E | F | G | log of URLs: table MB (bytes a key), before -> after | log of hashes: the same |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (k = 1; k <= ns; k++) {
			s = sizes[k]
			printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s (%.1f) -> %s | %s (%.1f) -> %s |\n", human(s),
				v[s, "tna1_wal_batch"] / 1024, v[s, "tna1x_wal_batch"] / 1024, v[s, "tna2_wal_batch"] / 1024, v[s, "tna3_wal_batch"] / 1024,
				v[s, "tna4_wal_batch"] / 1024, v[s, "tna4b_wal_batch"] / 1024, v[s, "tna5_wal_batch"] / 1024,
				v[s, "ins_wal_batch"] / 1024, v[s, "insh_wal_batch"] / 1024,
				mb(v[s, "urls_pg_table_bytes"]), v[s, "urls_pg_table_bytes"] / s, mb(v[s, "urls_pg_table_bytes_after"]),
				mb(v[s, "hashes_pg_table_bytes"]), v[s, "hashes_pg_table_bytes"] / s, mb(v[s, "hashes_pg_table_bytes_after"])
		}
	}' "$results"
} | tee "$scratch/results.md"

# every prefilled key answers "seen" on both sides (a false negative fails
# the run), and the log of hashes has the bits of the log of URLs
awk -v want=$((500 * BATCHES)) '$2 ~ /^probe_(redis|pg)_ones$/ && $3 < want { bad = 1; print "false negatives: " $0 > "/dev/stderr" }
	$2 == "same_bits" && $3 != "t" { bad = 1; print "the log of hashes has other bits than the log of URLs: " $0 > "/dev/stderr" }
	END { exit bad }' "$results"
