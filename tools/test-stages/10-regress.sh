#!/usr/bin/env bash
# pg_regress: sql/*.sql against expected/*.out on the running throwaway cluster
set -uo pipefail
if ! make -s PG_CONFIG="$PG_CONFIG" installcheck; then
	[ -f regression.diffs ] && head -c 20000 regression.diffs
	exit 1
fi
