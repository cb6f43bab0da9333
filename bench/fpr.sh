#!/usr/bin/env bash
# Measure false-positive rates by bits per element (bench/fpr.c) and plot
# them against theory (bench/fpr.gp -> bench/fpr.png, if gnuplot is there).
#   bench/fpr.sh [scale]
set -euo pipefail
cd "$(dirname "$0")/.."
# the core: every src/*.c that is plain C (no postgres.h), see CONTRIBUTING.md
mapfile -t srcs < <(grep -L '#include "postgres.h"' src/*.c)
bin=${TMPDIR:-/tmp}/bloomfilter-fpr.$$
if ! ${CC:-cc} -O2 -std=gnu11 -Isrc -o "$bin" bench/fpr.c "${srcs[@]}" -lm 2>/dev/null; then
	echo "(counting/cuckoo core did not compile with bench/fpr.c: bloomfilter only)"
	${CC:-cc} -O2 -std=gnu11 -Isrc -DMICRO_BLOOM_ONLY -o "$bin" bench/fpr.c "${srcs[@]}" -lm
fi
"$bin" "${1:-1}" >bench/fpr.dat
rm -f "$bin"
grep '^#' bench/fpr.dat
grep -v '^#' bench/fpr.dat | { column -t -s $'\t' 2>/dev/null || cat; }
if command -v gnuplot >/dev/null; then
	gnuplot -e "datafile='bench/fpr.dat'; outfile='bench/fpr.png'" bench/fpr.gp
	echo "plot: bench/fpr.png"
else
	echo "(gnuplot not installed: no plot)"
fi
