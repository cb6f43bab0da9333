#!/usr/bin/env bash
# The session cache of stored filters (argcache.c), measured: the time of
# one statement that probes a stored filter with a batch of links,
# statement after statement in one session, with the cache off
# (bloomfilter.session_cache_size = 0: the filter is read from its TOAST
# table by every statement, as before the cache) and on (the default).
#   bench/session_cache.sh [elements] [links] [seconds]
# (defaults 1000000, 1000, 20; PGHOST, PGPORT, PGUSER, PGDATABASE in the
# environment, as for psql and pgbench; it creates the extension if the
# database lacks it.)
# It stores one filter of `elements` URLs at 1% fpr (STORAGE
# external, the form a big filter is stored in), then runs pgbench -n -c 1
# -M prepared on one statement, bloom_contains(f, xs text[]) with a
# 1000-link array (half of them members), for `seconds` each way, and
# prints the median, 10th and 90th percentile time of a statement in
# microseconds, as the client sees it over the socket (from one
# statement's end to the next one's: one client, back to back).
set -euo pipefail
elements=${1:-1000000}
links=${2:-1000}
seconds=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS bench_session_filter;
CREATE TABLE bench_session_filter (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE bench_session_filter ALTER COLUMN f SET STORAGE external;
INSERT INTO bench_session_filter
SELECT 1, bloom_agg('https://example.com/page/' || i, $elements, 0.01)
FROM generate_series(1, $elements) i;
VACUUM ANALYZE bench_session_filter;
SQL
psql -X -At -c "SELECT 'filter: ' || pg_size_pretty(pg_column_size(f)::bigint) FROM bench_session_filter"

# the links: every other one a member
{
	printf "SELECT cardinality(array_positions(bloom_contains(f, ARRAY["
	for i in $(seq 1 "$links"); do
		[ "$i" -gt 1 ] && printf ","
		if [ $((i % 2)) -eq 0 ]; then
			printf "'https://example.com/page/%d'" "$((i * 997 % elements + 1))"
		else
			printf "'https://example.org/new/%d'" "$i"
		fi
	done
	printf "]::text[]), true)) FROM bench_session_filter WHERE id = 1;\n"
} >"$work/probe.sql"

runs=0
run() {
	local name=$1 size=$2
	runs=$((runs + 1))
	(cd "$work" && PGOPTIONS="-c bloomfilter.session_cache_size=$size" \
		pgbench -n -c 1 -M prepared -T "$seconds" -f probe.sql -l --log-prefix="run$runs" >/dev/null)
	# a statement's time: from the end of the one before to its own end
	# (fields 5 and 6 of a pgbench log line; its field 3, the latency, is
	# 0 for some statements: pgbench reads its clock lazily)
	cat "$work/run$runs".* | awk 'NR > 1 { print ($5 - s) * 1000000 + $6 - us } { s = $5; us = $6 }' |
		sort -n | awk -v name="$name" '
		{ x[NR] = $1 }
		END {
			printf "%-14s %7d statements  median %6d us  p10 %6d us  p90 %6d us\n",
				name, NR, x[int((NR + 1) / 2)], x[int(NR * 0.1) + 1], x[int(NR * 0.9)]
		}'
}

run cache_off 0
run cache_on 256MB
run cache_off 0
run cache_on 256MB
psql -X -q -c "DROP TABLE bench_session_filter"
