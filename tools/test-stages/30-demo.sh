#!/usr/bin/env bash
# The demo's SQL (demo/*.sql) end to end on a small stream, in its own
# database on the running throwaway cluster: it must run, and the two-tier
# loop must have enqueued exactly the distinct normalized links, each once.
set -euo pipefail
db=demo_check
PGOPTIONS="-c client_min_messages=warning" "$PG_BINDIR/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
trap '"$PG_BINDIR/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"' EXIT
out=$("$PG_BINDIR/psql" -X -d "$db" -v links=30000 -v batch=5000 -f demo/demo.sql 2>&1) || {
	echo "$out"
	exit 1
}
grep -q 'new links silently dropped' <<<"$out" || { echo "$out"; exit 1; }
check=$("$PG_BINDIR/psql" -X -At -d "$db" <<'SQL'
SELECT (SELECT count(*) FROM seen) = (SELECT count(DISTINCT url_normalize(l)) FROM demo_links(0, 30000) l)
   AND (SELECT count(*) FROM frontier) = (SELECT count(*) FROM seen)
   AND (SELECT count(DISTINCT url) FROM frontier) = (SELECT count(*) FROM seen)
   AND (SELECT bool_and(url_normalize(url) = url) FROM seen)
   AND (SELECT bool_and(bloom_contains(f, s.url)) FROM url_filter, seen s)
   AND (SELECT sum(alone_enqueued) FROM demo_stats) <= (SELECT count(*) FROM seen);
SQL
)
if [ "$check" != t ]; then
	echo "demo: the URL-seen loop did not find exactly the distinct links"
	echo "$out"
	exit 1
fi
echo "demo: ok"
