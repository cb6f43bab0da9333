#!/usr/bin/env bash
# Peak memory of a query under two builds of the extension:
#   bench/mem_ab.sh A.so B.so "SELECT ..." [rounds]
# (PGHOST, PGPORT, PGUSER, PGDATABASE in the environment, as for psql; run
# as a user who may write PostgreSQL's pkglibdir and read the server's
# /proc/PID/status.)  Each round, for A then B: copy that build over
# bloomfilter.so in pkglibdir, start a new session, and read its backend's
# VmHWM (peak resident memory) before and after the query; prints the
# growth in MB.  Use a query whose input does not come from shared buffers
# (generate_series, say): pages of shared memory the scan touches count in
# VmHWM too.  The installed bloomfilter.so is put back at the end.
set -euo pipefail
. "$(dirname "$0")/swap_build.sh"
rounds=${4:-2}

peak_growth() {
	psql -X -q -v ON_ERROR_STOP=1 <<SQL | awk '/VmHWM/ { kb[n++] = $2 } END { printf "%.1f\n", (kb[1] - kb[0]) / 1024 }'
SET max_parallel_workers_per_gather = 0;
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\! grep VmHWM /proc/\$BPID/status
\o /dev/null
$sql;
\o
\! grep VmHWM /proc/\$BPID/status
SQL
}

for r in $(seq "$rounds"); do
	for v in A B; do
		use_build $v
		echo "round $r $v: peak grew $(peak_growth) MB"
	done
done
