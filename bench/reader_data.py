"""The URLs of the reader benchmarks (bench/reader_c.sh,
bench/reader_python.sh): 1M members (the real Debian homepages, then
synthetic URLs of the same shape) and 1M probes, half of them members,
the rest the real documentation links that are not members, then
synthetic ones.  Writes WORK/members and WORK/probes, a URL a line.

  python3 bench/reader_data.py DATA_DIR WORK_DIR
"""
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
