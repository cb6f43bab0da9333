#!/usr/bin/env bash
# Remake clients/test-vectors.json from a running server with the
# extension (connection from the usual PGHOST, PGPORT, PGUSER, PGDATABASE):
#   clients/make-test-vectors.sh [OUTPUT]     (default clients/test-vectors.json)
# The vectors are part of the format's contract (doc/format.md): remake
# them only with a change of format, and say so in the commit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/test-vectors.json}
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
psql -X -q -v ON_ERROR_STOP=1 -f "$here/make-test-vectors.sql" > "$tmp"
# the JSON must parse: psql would print it whatever went wrong inside
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$tmp"
fi
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out ($(wc -c < "$out") bytes)"
