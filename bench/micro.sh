#!/usr/bin/env bash
# Build and run the core microbenchmark: bench/micro.sh [scale]
# (with -O2 like the extension; the core files it links are the module's)
set -euo pipefail
cd "$(dirname "$0")/.."
# the core: every src/*.c that is plain C (no postgres.h), see DEVELOPING.md
mapfile -t srcs < <(grep -L '#include "postgres.h"' src/*.c)
out=${TMPDIR:-/tmp}/bloomfilter-micro.$$
${CC:-cc} -O2 -std=gnu99 -Isrc -o "$out" bench/micro.c "${srcs[@]}" -lm
"$out" "${1:-1}"
rm -f "$out"
