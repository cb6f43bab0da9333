#!/usr/bin/env python3
"""What a smarter first pass of cuckoo_load_sorted could save (a model, not the code).

cuckoo_load_sorted (src/cuckoo.c) bulk loads a table sized for n hashes at
its 95% design load: each bucket keeps the first four hashes whose first
bucket it is, the rest go to their second bucket if it has room, and the
inserts left over search for a chain of moves (table_bfs), the build's
biggest cost after hashing.  This simulates, with uniformly random first
and second buckets, how many inserts are left for that search when a
full bucket keeps the four whose second bucket is the most crowded
(fewest free slots there), instead of the first four.

    python3 bench/cuckoo_load_sim.py [buckets]

Prints (evicted from the first pass, left for the search) as fractions of n.
"""
import random
import sys

m = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
n = int(m * 4 * 0.95)
random.seed(1)
first = [random.randrange(m) for _ in range(n)]
second = [random.randrange(m) for _ in range(n)]
count = [0] * m
for b in first:
    count[b] += 1


def run(keep_crowded):
    per = [[] for _ in range(m)]
    for e in range(n):
        per[first[e]].append(e)
    load = [min(c, 4) for c in count]
    evicted = []
    for b in range(m):
        members = per[b]
        if len(members) > 4:
            if keep_crowded:
                members = sorted(members, key=lambda e: -count[second[e]])
            evicted += members[4:]
    left = 0
    for e in evicted:
        b = second[e]
        if load[b] < 4:
            load[b] += 1
        else:
            left += 1
    return len(evicted) / n, left / n


print("first four kept (as built):          evicted %.4f, left for the search %.4f" % run(False))
print("four with the most crowded 2nd kept: evicted %.4f, left for the search %.4f" % run(True))
