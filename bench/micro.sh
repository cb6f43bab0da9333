#!/usr/bin/env bash
# Build and run the core microbenchmark: bench/micro.sh [scale]
# (with -O2 like the extension; the core files it links are the module's)
set -euo pipefail
cd "$(dirname "$0")/.."
srcs=(src/bfcore.c src/bloom.c)
out=${TMPDIR:-/tmp}/bloomfilter-micro.$$
${CC:-cc} -O2 -std=gnu99 -Isrc -o "$out" bench/micro.c "${srcs[@]}" -lm
"$out" "${1:-1}"
rm -f "$out"
