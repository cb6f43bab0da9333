#!/usr/bin/env bash
# Build libbloomfilter_reader and bfprobe, then check them against the
# shared test vectors (../test-vectors.json): every hash, every probe one
# by one and in batches, filters made again by adds, bfprobe on a file.
# Needs cc, make, the xxHash header (libxxhash-dev) and python3 (to turn
# the JSON into lines; the checks themselves are C).  Exit 0 if all pass.
#   clients/c/check.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")"
[ "${1:-}" = --no-build ] || make -s all test_vectors
python3 vectors_to_lines.py ../test-vectors.json > vectors.txt
./test_vectors vectors.txt

# bfprobe answers a text filter's probes as the server did
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("../test-vectors.json", encoding="utf-8"))
f = next(f for f in d["filters"] if f["name"] == "blocked_text_scalable")
open(sys.argv[1] + "/filter", "wb").write(bytes.fromhex(f["bytes"]))
open(sys.argv[1] + "/probes", "w", encoding="utf-8").write("".join(p["value"] + "\n" for p in f["probes"]))
open(sys.argv[1] + "/expected", "w").write("".join("%d\n" % p["expected"] for p in f["probes"]))
PY
./bfprobe "$tmp/filter" "$tmp/probes" > "$tmp/got"
cmp "$tmp/expected" "$tmp/got"
echo "bfprobe: $(wc -l < "$tmp/got") probes as the server answered"
