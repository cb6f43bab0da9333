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
export TESTDIR="$PWD" PGPORT= PGHOST= PGDATA=
unset PGPORT PGHOST PGDATA PGUSER
prove --timer -I "$pgxs/src/test/perl" -I test "${tests[@]}"
