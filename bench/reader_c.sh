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

python3 - "$data" "$work" <<'PY'
import gzip, random, sys
data, work = sys.argv[1], sys.argv[2]
real_m = [l.strip() for l in gzip.open(data + "/debian-homepages.txt.gz", "rt", encoding="utf-8") if l.strip()]
seen = set(real_m)
real_p = list(dict.fromkeys(l.strip() for l in gzip.open(data + "/doc-links-stream.txt.gz", "rt", encoding="utf-8")
                            if l.strip() and l.strip() not in seen))
rng = random.Random(46)
words = ["news", "article", "product", "category", "user", "docs", "blog", "search", "item", "page"]
def synth(tag, n):
    # host and path of a real URL, then a path and query of the usual shape
    base = real_m[n % len(real_m)].rstrip("/")
    return "%s/%s/%d/%s-%d.html?ref=%s" % (base, words[n % 10], n, tag, rng.randrange(10**6), tag)
members = real_m + [synth("m", i) for i in range(1000000 - len(real_m))]
absent = real_p + [synth("a", i) for i in range(500000 - len(real_p))]
probes = rng.sample(members, 500000) + absent[:500000]
rng.shuffle(probes)
open(work + "/members", "w", encoding="utf-8").write("\n".join(members) + "\n")
open(work + "/probes", "w", encoding="utf-8").write("\n".join(probes) + "\n")
PY
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
"${pin[@]}" "$work/reader_c" "$work/members" "$work/probes" "${1:-5}" "${2:-1000000000}" "${3:-${2:-1000000000}}"
