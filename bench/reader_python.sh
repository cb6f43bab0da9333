#!/usr/bin/env bash
# Probe rate of the Python reader (clients/python, bloomfilter_reader), one
# core, hashing included:
#   bench/reader_python.sh [RUNS]
# The same members and probes as bench/reader_c.sh: the 30,089 Debian
# homepage URLs of ../shared/data and synthetic URLs of the same shape to
# 1M members; 1M probes, half members, half never added (the documentation
# links of ../shared/data and synthetic ones), shuffled.  The filters are
# made by the server, bloom_create(1000000) blocked and standard with the
# members added, so it needs a database with the extension: $PSQL (default
# "psql", e.g. PSQL="tools/dev.sh psql") is run with -X -q.
# Debian's python3 with python3-xxhash and python3-numpy.
# Results and method: bench/README.md, "Python reader probe rate".
set -euo pipefail
cd "$(dirname "$0")/.."
data=${BLOOMFILTER_DATA:-../shared/data}
py=${PYTHON:-/usr/bin/python3}
read -r -a psql <<<"${PSQL:-psql}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-reader-py.XXXXXX")
chmod 755 "$work"       # the server may read the members as another user
trap 'rm -rf "$work"' EXIT

"$py" bench/reader_data.py "$data" "$work"
chmod 644 "$work/members"

for layout in blocked standard; do
	"${psql[@]}" -X -q -v ON_ERROR_STOP=1 -At >"$work/$layout.hex" <<SQL
CREATE TEMP TABLE members (u text);
\copy members FROM '$work/members'
SELECT encode(bloom_add(bloom_create(1000000, 0.01, '$layout'), array_agg(u))::bytea, 'hex') FROM members;
SQL
done

pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
PYTHONPATH=clients/python/src "${pin[@]}" "$py" - "$work" "${1:-5}" <<'PY'
import statistics, sys, time
from bloomfilter_reader import BloomFilter
from bloomfilter_reader import probe
work, runs = sys.argv[1], int(sys.argv[2])
probes = open(work + "/probes", encoding="utf-8").read().split("\n")[:-1]
one_n = 200000
mean = sum(len(p.encode()) for p in probes) / len(probes)
print("probes: %d, mean %.1f bytes; one by one on the first %d" % (len(probes), mean, one_n))
print("| filter | contains (one by one) | contains_many | range (one / many) |")
print("|---|---|---|---|")
for layout in ("blocked", "standard"):
    t = time.perf_counter()
    f = BloomFilter.from_hex(open(work + "/" + layout + ".hex").read())
    load = time.perf_counter() - t
    many, one = [], []
    for _ in range(runs):
        t = time.perf_counter()
        found = f.contains_many(probes)
        many.append(len(probes) / (time.perf_counter() - t))
        t = time.perf_counter()
        for x in probes[:one_n]:
            f.contains(x)
        one.append(one_n / (time.perf_counter() - t))
    assert sum(found) >= 500000, "a member was not found"
    print("| 1M elements, 1%%, %s (%.2f MB, loaded and checked in %.0f ms) | %.2f M/s | **%.2f M/s** | %.2f–%.2f / %.2f–%.2f |"
          % (layout, len(f) / 1e6, load * 1000, statistics.median(one) / 1e6,
             statistics.median(many) / 1e6, min(one) / 1e6, max(one) / 1e6,
             min(many) / 1e6, max(many) / 1e6))
PY
