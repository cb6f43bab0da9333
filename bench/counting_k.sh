#!/usr/bin/env bash
# Build and run bench/counting_k.c: memory and stored (pglz) bytes per
# element of a full countingbloom by number of hashes.
#   bench/counting_k.sh [capacity [fpr]]
# Needs libpgcommon.a and libpgport.a (postgresql-server-dev-15) for pglz.
set -euo pipefail
cd "$(dirname "$0")/.."
libdir=$(pg_config --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)
if [ ! -f "$libdir/libpgcommon.a" ]; then
	echo "(no $libdir/libpgcommon.a: counting_k skipped)"
	exit 0
fi
mapfile -t srcs < <(grep -L '#include "postgres.h"' src/*.c)
out=${TMPDIR:-/tmp}/bloomfilter-counting-k.$$
${CC:-cc} -O2 -std=gnu11 -Isrc -o "$out" bench/counting_k.c "${srcs[@]}" \
	"$libdir/libpgcommon.a" "$libdir/libpgport.a" -lm
"$out" "$@"
rm -f "$out"
