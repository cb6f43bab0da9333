#!/usr/bin/env bash
# A/B of two builds of the extension on one running server:
#   bench/ab.sh A.so B.so "SELECT ..." [rounds]
# (PGHOST, PGPORT, PGUSER, PGDATABASE in the environment, as for psql; run
# as a user who may write PostgreSQL's pkglibdir.)
# Each round, for A then B: copy that build over bloomfilter.so in
# pkglibdir, start a new psql session (so the backend loads it), run the
# query three times and keep the fastest (the first run also warms the
# caches).  Prints, per build, the minimum and the median of those round
# minima.  The installed bloomfilter.so is put back at the end, whatever
# happens.  Run it on the dev cluster (tools/dev.sh, shared_buffers = 1GB)
# with 7 or 9 rounds.
set -euo pipefail
. "$(dirname "$0")/swap_build.sh"
rounds=${4:-7}

best_of_three() {
	{
		echo "SET max_parallel_workers_per_gather = 0;"
		echo '\timing on'
		for _ in 1 2 3; do echo "$sql;"; done
	} | psql -X -q -o /dev/null 2>&1 | awk '/^Time:/ { print $2 }' | sort -n | head -1
}

for _ in $(seq "$rounds"); do
	for v in A B; do
		use_build $v
		echo "$v $(best_of_three)"
	done
done | sort -k1,1 -k2,2n | awk '
	{ t[$1] = t[$1] " " $2; n[$1]++ }
	END {
		for (v in t) {
			split(substr(t[v], 2), x, " ")
			printf "%s min %.1f median %.1f ms (%d rounds)\n", v, x[1], x[int((n[v] + 1) / 2)], n[v]
		}
	}' | sort
