#!/usr/bin/env bash
# TAP tests (test/t/*.pl) with PostgreSQL::Test::Cluster: each test starts
# its own clusters from the installed binaries.
set -uo pipefail
shopt -s nullglob
tests=(test/t/*.pl)
[ ${#tests[@]} -gt 0 ] || { echo "no TAP tests"; exit 0; }
pgxs=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
export PATH="$PG_BINDIR:$PATH"
export PG_REGRESS="$pgxs/src/test/regress/pg_regress"
# where the tests keep their clusters and logs: TESTDIR up to 15,
# TESTDATADIR and TESTLOGDIR from 16 (absolute, so a server-side COPY into
# a test's tempdir works)
export TESTDIR="$PWD" TESTDATADIR="$PWD/tmp_check" TESTLOGDIR="$PWD/tmp_check/log"
mkdir -p "$TESTLOGDIR"
unset PGPORT PGHOST PGDATA PGUSER
inc=(-I "$pgxs/src/test/perl" -I test)
# PostgreSQL 14 before 14.3 has PostgresNode.pm only: the new names as a shim
[ -f "$pgxs/src/test/perl/PostgreSQL/Test/Cluster.pm" ] || inc+=(-I test/compat)
prove --timer "${inc[@]}" "${tests[@]}"
