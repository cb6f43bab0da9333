#!/usr/bin/env bash
# Check that a running server with the extension still gives the
# committed test vectors: every hash, every filter's bytes from its SQL,
# every probe's answer.  Exit status 0 only if all agree.
#   PGHOST=... PGPORT=... PGUSER=... clients/check-test-vectors.sh [VECTORS]
# Needs psql only; the server needs the right to create a temporary table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vectors=${1:-$here/test-vectors.json}
[ -r "$vectors" ] || { echo "cannot read $vectors" >&2; exit 2; }
# psql's \set with a backquoted command reads the whole file into :vectors
psql -X -q -v ON_ERROR_STOP=1 \
	-c "\\set vectors \`cat '$vectors'\`" \
	-f "$here/check-test-vectors.sql"
