#!/usr/bin/env bash
# A/B of a server environment variable on the builds:
#   bench/env_ab.sh PGDATA 'VAR=value' [rounds]
# e.g.  bench/env_ab.sh /tmp/bloomfilter-dev/pgdata 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1' 7
# Restarts the server in PGDATA (pg_ctl, as the directory's owner) four
# times, alternately without and with VAR=value in its environment, and
# each time runs every query below "rounds" times, round-robin, after one
# warm-up round; prints the minimum / median of each query per start.
# PGHOST, PGPORT, PGUSER and PGDATABASE as for psql: a database with the
# bench data (bench/setup.sql: table urls of 2M URLs) and the hll
# extension.  Serial plans.  The server is left running without VAR.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PGDATA 'VAR=value' [rounds]" >&2; exit 2; }
pgdata=$1 assign=$2 rounds=${3:-7}
bindir=$(pg_config --bindir)
owner=$(stat -c %U "$pgdata")
as_owner() {
	if [ "$(id -un)" = "$owner" ]; then "$@"; else runuser -u "$owner" -- "$@"; fi
}
n=$(psql -X -At -c "SELECT count(*) FROM urls")
names=(hll scan "bloom sized" "bloom auto" "counting sized" "counting auto" "cuckoo sized" "cuckoo auto")
queries=(
	"SELECT hll_add_agg(hll_hash_text(url)) IS NULL FROM urls"
	"SELECT count(*) FROM urls WHERE octet_length(url) > 0"
	"SELECT bloom_agg(url, $n, 0.01) IS NULL FROM urls"
	"SELECT bloom_agg(url) IS NULL FROM urls"
	"SELECT counting_bloom_agg(url, $n, 0.01) IS NULL FROM urls"
	"SELECT counting_bloom_agg(url) IS NULL FROM urls"
	"SELECT cuckoo_agg(url, $n, 0.01) IS NULL FROM urls"
	"SELECT cuckoo_agg(url) IS NULL FROM urls"
)

start() {
	as_owner "$bindir/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null
	if [ -n "$1" ]; then
		as_owner env "$1" "$bindir/pg_ctl" -D "$pgdata" -w start -l "$pgdata/env_ab.log" >/dev/null
	else
		as_owner "$bindir/pg_ctl" -D "$pgdata" -w start -l "$pgdata/env_ab.log" >/dev/null
	fi
}

times() {
	{
		echo "SET max_parallel_workers_per_gather = 0;"
		echo '\timing on'
		for _ in $(seq "$1"); do
			for q in "${queries[@]}"; do echo "$q;"; done
		done
	} | psql -X -q -o /dev/null 2>&1 | awk '/^Time:/ { print $2 }'
}

trap 'start ""' EXIT
for mode in without with without with; do
	if [ "$mode" = with ]; then start "$assign"; else start ""; fi
	times 1 >/dev/null
	times "$rounds" | awk -v mode="$mode" -v rounds="$rounds" -v list="$(IFS='|'; echo "${names[*]}")" '
		{ v[NR - 1] = $1 }
		END {
			nq = split(list, name, "|")
			printf "%-8s", mode
			for (q = 1; q <= nq; q++) {
				k = 0
				for (i = q - 1; i < NR; i += nq) {
					# insertion sort (POSIX awk has no asort)
					for (j = k; j > 0 && x[j - 1] > v[i] + 0; j--) x[j] = x[j - 1]
					x[j] = v[i] + 0
					k++
				}
				printf " | %s %.1f/%.1f", name[q], x[0], x[int((k - 1) / 2)]
			}
			printf "\n"
		}'
done
