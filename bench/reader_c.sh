#!/usr/bin/env bash
# Probe rate of the C reader (clients/c), one core, hashing included:
#   bench/reader_c.sh [RUNS [LARGE_CAPACITY [LARGE_FILL]]]
# Members: the 30,089 Debian homepage URLs of ../shared/data and
# synthetic URLs of the same shape to 1M; probes: 1M URLs, half of them
# members, half never added (the documentation links of ../shared/data
# and synthetic ones), shuffled.  LARGE_CAPACITY 0 skips the 1B filter
# (1.2 GB of memory; filling it takes a minute or two).
# Results and method: bench/README.md, "C reader probe rate".
set -euo pipefail
cd "$(dirname "$0")/.."
data=${BLOOMFILTER_DATA:-../shared/data}
work=${TMPDIR:-/tmp}/bloomfilter-reader-c.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
make -s -C clients/c libbloomfilter_reader.a
${CC:-cc} -O2 -std=gnu11 -Iclients/c -o "$work/reader_c" bench/reader_c.c clients/c/libbloomfilter_reader.a -lm

python3 bench/reader_data.py "$data" "$work"
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
"${pin[@]}" "$work/reader_c" "$work/members" "$work/probes" "${1:-5}" "${2:-1000000000}" "${3:-${2:-1000000000}}"
