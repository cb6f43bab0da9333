#!/usr/bin/env bash
# Build and run the core microbenchmark: bench/micro.sh [scale]
# (-O2 like the extension, linked with every plain-C core file; MICRO_CFLAGS
# adds flags, e.g. -DCUCKOO_SEARCH_PREFETCH_MIN_BYTES=UINT64_MAX for a build
# without cuckoofilter's search prefetch)
set -euo pipefail
cd "$(dirname "$0")/.."
# the core: every src/*.c that is plain C (no postgres.h), see CONTRIBUTING.md
mapfile -t srcs < <(grep -L '#include "postgres.h"' src/*.c)
out=${TMPDIR:-/tmp}/bloomfilter-micro.$$
# counting/cuckoo are measured when their core compiles against micro.c;
# if their interface has moved on, measure the bloomfilter layouts alone
if ! ${CC:-cc} -O2 -std=gnu11 -Isrc ${MICRO_CFLAGS:-} -o "$out" bench/micro.c "${srcs[@]}" -lm 2>/dev/null; then
	echo "(counting/cuckoo core did not compile with bench/micro.c: bloomfilter only)"
	${CC:-cc} -O2 -std=gnu11 -Isrc ${MICRO_CFLAGS:-} -DMICRO_BLOOM_ONLY -o "$out" bench/micro.c "${srcs[@]}" -lm
fi
"$out" "${1:-1}"
rm -f "$out"
