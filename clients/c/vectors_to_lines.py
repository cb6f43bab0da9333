"""Rewrite ../test-vectors.json as lines test_vectors.c reads without a
JSON parser.  Only the notation changes: every value stays as the JSON
has it (text as the hex of its UTF-8 bytes, so that any character
survives a line), and the C side does all the hashing, parsing of
bigint and uuid, and probing.

  H type value seed hash
  F name element_type seed layout format_version nstages capacity fpr scalable bytes
  A value          (added to the F before, in order)
  P value 0|1      (a probe of the F before and the server's answer)
"""
import json
import sys


def value(elem, v):
    if elem == "text":
        return "t" + v.encode("utf-8").hex()  # "t" so that "" is not an empty field
    return "v" + v


def main():
    d = json.load(open(sys.argv[1], encoding="utf-8"))
    if d.get("format") != "bloomfilter-test-vectors-1":
        sys.exit("not a bloomfilter-test-vectors-1 file")
    out = sys.stdout
    for h in d["hashes"]:
        out.write("H %s %s %s %s\n" % (h["type"], value(h["type"], h["value"]), h["seed"], h["hash"]))
    for f in d["filters"]:
        info = f["info"]
        out.write("F %s %s %s %s %d %d %s %r %d %s\n" % (
            f["name"], f["element_type"], f["seed"], f["layout"], f["format_version"],
            f["nstages"], info["stage_info"][0]["capacity"], float(info["fpr_target"]), 1 if info["scalable"] else 0,
            f["bytes"]))
        for a in f["added"]:
            out.write("A %s\n" % value(f["element_type"], a))
        for p in f["probes"]:
            out.write("P %s %d\n" % (value(f["element_type"], p["value"]), 1 if p["expected"] else 0))


main()
