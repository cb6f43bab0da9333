"""Reference XXH3-64 for xxh3_crosscheck.mjs: reads "hex,seed" lines,
prints xxhash.xxh3_64_intdigest of each (python3-xxhash)."""
import sys

import xxhash

out = []
for line in sys.stdin:
    data, seed = line.rstrip("\n").split(",")
    out.append(str(xxhash.xxh3_64_intdigest(bytes.fromhex(data), int(seed))))
sys.stdout.write("\n".join(out) + "\n")
