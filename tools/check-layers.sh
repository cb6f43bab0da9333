#!/usr/bin/env bash
# The source tree's layers, checked (stage 05-layers of make test):
#
#   core (no postgres.h) <- common glue (pg_compat, pg_common, elements,
#   argcache, aggstate, typeops) <- types (*_type, *_agg, *_sql, bloomindex)
#   <- type registry (funcs) <- scans (scan, buildscan, heappage) <- init
#   (module)
#
# A module is a .c file with its .h (a type's *_type.c, *_agg.c and
# *_sql.h are one module, and so are the index's bloomindex*.[ch]); module A depends on B when a file of A includes
# a header of B.  Fails on a dependency cycle, on a file that includes a
# header of a higher layer, and on a core file that includes anything of
# PostgreSQL's or of the glue.
set -euo pipefail
cd "$(dirname "$0")/../src"

module() {
	local b
	b=$(basename "$1")
	b=${b%.*}
	case $b in
		*_type | *_agg | *_sql) echo "${b%_*}_glue" ;;
		bloomindex*) echo bloomindex ;;
		*) echo "$b" ;;
	esac
}

layer() {
	case $1 in
		pg_compat | pg_common | elements | argcache | aggstate | typeops) echo 1 ;;
		*_glue | bloomindex) echo 2 ;;
		funcs) echo 3 ;;
		scan | buildscan | heappage) echo 4 ;;
		module) echo 5 ;;
		*) echo 0 ;;
	esac
}

status=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in *.c *.h; do
	from=$(module "$f")
	from_layer=$(layer "$from")
	if [ "$from_layer" = 0 ] && grep -q '^#include "postgres.h"' "$f"; then
		echo "check-layers: $f includes postgres.h but is not in a glue layer (add it to tools/check-layers.sh)" >&2
		status=1
	fi
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		[ -f "$h" ] || continue		# PostgreSQL's own headers
		to=$(module "$h")
		[ "$to" != "$from" ] || continue
		to_layer=$(layer "$to")
		echo "$from $to" >>"$edges"
		if [ "$to_layer" -gt "$from_layer" ]; then
			echo "check-layers: $f (layer $from_layer) includes $h (layer $to_layer), a higher layer" >&2
			status=1
		fi
	done
done
if ! sort -u "$edges" | tsort >/dev/null 2>"$edges.err"; then
	echo "check-layers: the modules include each other in a cycle:" >&2
	cat "$edges.err" >&2
	status=1
fi
rm -f "$edges.err"
[ $status -ne 0 ] || echo "check-layers: $(sort -u "$edges" | wc -l) module dependencies, no cycle, every include downward"
exit $status
