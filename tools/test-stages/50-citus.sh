#!/usr/bin/env bash
# The extension on Citus (test/citus/*.pl): a coordinator and two workers
# started by PostgreSQL::Test::Cluster (stopped at the end, pass or fail),
# with the real URLs of ../shared/data.  Citus itself is built by
# tools/citus-build.sh, as root, before the stages run: make test starts
# it in the background and BLOOMFILTER_CITUS_STATUS names the directory
# where it leaves its exit status and log.  Only PostgreSQL 15 (Debian's):
# the Citus source is the newest release for 15.
set -uo pipefail
shopt -s nullglob
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ "$major" != 15 ]; then
	echo "citus: only on PostgreSQL 15 (Citus 13.2 is built for Debian's), not $major"
	exit 0
fi
shared=${BLOOMFILTER_SHARED:-../shared}
status=${BLOOMFILTER_CITUS_STATUS:-}
if [ -n "$status" ]; then
	waited=0
	while [ ! -f "$status/rc" ]; do
		[ $waited -lt 1800 ] || { echo "citus: no build after ${waited} s"; cat "$status/log"; exit 1; }
		[ $waited -gt 0 ] || echo "citus: waiting for tools/citus-build.sh"
		sleep 5
		waited=$((waited + 5))
	done
	[ $waited -eq 0 ] || echo "citus: waited ${waited} s for the Citus build"
	case $(cat "$status/rc") in
	0) ;;
	3) echo "citus: SKIPPED, no $shared beside the clone (the Citus source is there only)"; exit 0 ;;
	*) echo "citus: tools/citus-build.sh failed"; cat "$status/log"; exit 1 ;;
	esac
elif [ ! -d "$shared" ]; then
	echo "citus: SKIPPED, no $shared beside the clone (the Citus source is there only)"
	exit 0
fi
if [ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	echo "citus: not installed in $("$PG_CONFIG" --pkglibdir): run tools/citus-build.sh as root"
	exit 1
fi
tests=(test/citus/*.pl)
pgxs=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
export PATH="$PG_BINDIR:$PATH"
export PG_REGRESS="$pgxs/src/test/regress/pg_regress"
# (PostgreSQL 15 keeps clusters and logs under $TESTDIR/tmp_check)
export TESTDIR="$PWD" TESTDATADIR="$PWD/tmp_check" TESTLOGDIR="$PWD/tmp_check/log"
export BLOOMFILTER_SHARED=$shared
mkdir -p "$TESTLOGDIR"
unset PGPORT PGHOST PGDATA PGUSER
start=$(date +%s)
prove --timer -I "$pgxs/src/test/perl" -I test "${tests[@]}"
rc=$?
echo "citus: stage took $(($(date +%s) - start)) s"
if [ $rc -ne 0 ]; then
	# the servers log every statement: their ends only
	for f in "$TESTLOGDIR"/0*.log; do
		echo "---- $f (last 15 lines)"
		tail -n 15 "$f"
	done
	for f in "$TESTLOGDIR"/regress_log_*; do
		echo "---- $f (last 60 lines)"
		tail -n 60 "$f"
	done
fi
exit $rc
