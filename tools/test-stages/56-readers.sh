#!/usr/bin/env bash
# The readers of the bloomfilter format (clients/c, clients/python,
# clients/js; doc/format.md): the shared test vectors still match the
# server, each reader's own tests load them, the JavaScript reader answers
# in a real browser (Debian's headless Chromium), and each reader answers
# exactly as the server on the same 1M URLs (real ones from ../shared/data
# or the project's sample, the rest synthetic, half of them added):
# against bloom_contains on a blocked and on a standard value, and against
# bloom_index_contains through the index's snapshot.  Any disagreement
# fails.  nodejs, chromium, python3-xxhash and python3-numpy are
# installed by make test's root set-up (tools/lib.sh, READER_TEST_DEPS).
# Only PostgreSQL 15 (Debian's): the readers read bytes, not a server.
set -euo pipefail
. tools/lib.sh
only_on_debian_pg readers
py=/usr/bin/python3
for need in node chromium; do
	command -v "$need" >/dev/null || {
		echo "readers: $need is not installed (make test installs it)"
		exit 1
	}
done
"$py" -c 'import xxhash, numpy' || {
	echo "readers: python3-xxhash and python3-numpy are not installed (make test installs them)"
	exit 1
}
start=$(date +%s)
db=readers_check
tmp=$(mktemp -d)
psql_db() { PGOPTIONS="-c client_min_messages=warning" "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
cleanup() {
	rm -rf "$tmp"
	"$PG_BINDIR/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"
}
PGOPTIONS="-c client_min_messages=warning" "$PG_BINDIR/psql" -X -q -d postgres \
	-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
trap cleanup EXIT
psql_db -c "CREATE EXTENSION bloomfilter"
export HOME=$tmp PATH=$PG_BINDIR:$PATH

# ---- the vectors, and each reader's own tests ----
echo "readers: test vectors against the server"
PGDATABASE=$db bash clients/check-test-vectors.sh
echo "readers: C"
bash clients/c/check.sh
echo "readers: Python"
(cd clients/python && PYTHONPATH=src PYTHONDONTWRITEBYTECODE=1 \
	BLOOMFILTER_TEST_DSN="host=$PGHOST port=$PGPORT user=$PGUSER dbname=$db" \
	"$py" -m unittest tests.test_reader)
echo "readers: JavaScript under Node ($(node --version))"
(cd clients/js && node --test test/*.test.mjs && node test/xxh3_crosscheck.mjs 4 3000)
echo "readers: JavaScript in headless Chromium"
node clients/js/test/browser.mjs

# ---- the differential test ----
real=../shared/data/doc-links-stream.txt.gz
[ -f "$real" ] || real=data/urls-sample.txt.gz
other=../shared/data/debian-homepages.txt.gz
[ -f "$other" ] || other=
# (tab-separated, CSV quoting off: the URLs' bytes exactly, except the
# few lines with a tab or a control character, which no URL has)
{
	zcat "$real" | sed 's/^/1\t/'
	[ -z "$other" ] || zcat "$other" | sed 's/^/0\t/'
} | LC_ALL=C grep -av $'[\x01-\x08\x0b-\x1f\x7f]' | LC_ALL=C awk -F'\t' 'NF == 2' >"$tmp/real.tsv"
psql_db <<SQL
CREATE TABLE real_urls (added int, url text);
\copy real_urls FROM '$tmp/real.tsv' (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
-- 1M probes: the real URLs (a stream with repeats, some not added), then
-- synthetic ones, every other one added; ids keep the order of the file;
-- the standard value and the index are made small so that they grow stages
CREATE TABLE probes (id bigserial PRIMARY KEY, url text NOT NULL, added bool NOT NULL);
INSERT INTO probes (url, added) SELECT url, added = 1 FROM real_urls;
INSERT INTO probes (url, added)
SELECT 'https://www.site' || (g % 9973) || '.example/' ||
	   CASE WHEN g % 3 = 0 THEN 'wiki/Page_' ELSE 'p/' END || g ||
	   CASE WHEN g % 5 = 0 THEN '?q=' || md5(g::text) ELSE '' END, g % 2 = 0
FROM generate_series(1, 1000000 - (SELECT count(*) FROM real_urls)) g;
CREATE TABLE seen AS SELECT DISTINCT url FROM probes WHERE added;
CREATE TABLE filters AS
SELECT 'blocked' AS name, bloom_agg(url, 600000, 0.01) AS f FROM seen
UNION ALL
SELECT 'standard', bloom_add(bloom_create(150000, 0.01, 'standard'), ARRAY(SELECT url FROM seen));
CREATE INDEX seen_f ON seen USING bloomfilter (url) WITH (capacity = 150000, fpr = 0.01);
SQL
# unaligned psql output: each URL's bytes as stored (COPY's text format
# would escape backslashes)
psql_db -At -c "SELECT url FROM probes ORDER BY id" >"$tmp/probes.txt"
for name in blocked standard; do
	psql_db -At -c "SELECT bloom_contains((SELECT f FROM filters WHERE name = '$name'), url)::int
		FROM probes ORDER BY id" >"$tmp/$name.expected"
done
psql_db -At -c "SELECT bloom_index_contains('seen_f', url)::int FROM probes ORDER BY id" >"$tmp/index.expected"
# the values' bytes, as a client gets them (f::bytea)
for name in blocked standard; do
	psql_db -At -c "SELECT encode(f::bytea, 'hex') FROM filters WHERE name = '$name'" |
		"$py" -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' >"$tmp/$name.bin"
done
psql_db -At -c "SELECT encode(bloom_index_snapshot('seen_f')::bytea, 'hex')" |
	"$py" -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' >"$tmp/index.bin"
n=$(wc -l <"$tmp/probes.txt")
added=$(psql_db -At -c "SELECT count(*) FROM probes WHERE added")
[ "$n" -eq 1000000 ] || { echo "readers: $n probes, not 1000000"; exit 1; }
# the server itself: no false negatives, a rate near its target
psql_db -At -c "SELECT count(*) FILTER (WHERE added AND NOT bloom_contains(f, url)),
	round(avg((bloom_contains(f, url))::int) FILTER (WHERE NOT added), 4)
	FROM probes, filters WHERE name = 'blocked'" | {
	IFS='|' read -r fn rate
	echo "readers: server: $fn false negatives over $added added, rate $rate over the rest"
	[ "$fn" = 0 ]
}

failed=0
for reader in c python js; do
	for name in blocked standard index; do
		case $reader in
		c) cmd=(clients/c/bfprobe "$tmp/$name.bin" "$tmp/probes.txt") ;;
		python) cmd=(env PYTHONPATH=clients/python/src PYTHONDONTWRITEBYTECODE=1 "$py" -m bloomfilter_reader.probe "$tmp/$name.bin" "$tmp/probes.txt") ;;
		js) cmd=(node clients/js/bin/bfprobe.mjs "$tmp/$name.bin" "$tmp/probes.txt") ;;
		esac
		t0=$(date +%s%N)
		"${cmd[@]}" >"$tmp/$reader.$name.out"
		ms=$((($(date +%s%N) - t0) / 1000000))
		differ=$(paste -d' ' "$tmp/$name.expected" "$tmp/$reader.$name.out" | awk '$1 != $2' | wc -l)
		lines=$(wc -l <"$tmp/$reader.$name.out")
		printf 'readers: %-6s %-8s %d answers, %d disagree with the server (%d ms)\n' \
			"$reader" "$name" "$lines" "$differ" "$ms"
		if [ "$differ" != 0 ] || [ "$lines" != "$n" ]; then
			failed=1
		fi
	done
done
echo "readers: stage took $(($(date +%s) - start)) s"
[ $failed = 0 ]
