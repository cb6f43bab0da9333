"""Probe a filter with text elements, for differential tests:

    python3 -m bloomfilter_reader.probe FILTER_FILE PROBES_FILE

FILTER_FILE holds the raw bytes of f::bytea; PROBES_FILE one text
element a line (UTF-8, each line ending in a newline; a last line
without one counts too).  Prints 1 or 0 a line, one line per element,
in order: bloom_contains(f, element).  A line's bytes are hashed as
they are (no \\r stripped): a text element's hash is that of its UTF-8
bytes.
"""
import sys

import numpy as np
import xxhash

from . import FormatError
from .bloom import BloomFilter

READ_BYTES = 1 << 23


def lines_in_chunks(stream):
    """Lists of lines (bytes, without their newline), a chunk at a time."""
    rest = b""
    while True:
        block = stream.read(READ_BYTES)
        if not block:
            break
        block = rest + block
        cut = block.rfind(b"\n")
        if cut < 0:
            rest = block
            continue
        rest = block[cut + 1:]
        yield block[:cut].split(b"\n")
    if rest:
        yield [rest]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python3 -m bloomfilter_reader.probe FILTER_FILE PROBES_FILE",
              file=sys.stderr)
        return 2
    with open(argv[0], "rb") as fh:
        data = fh.read()
    try:
        f = BloomFilter(data)
    except FormatError as e:
        print("%s: %s" % (argv[0], e), file=sys.stderr)
        return 1
    out = sys.stdout.buffer
    with open(argv[1], "rb") as probes:
        for lines in lines_in_chunks(probes):
            found = f.contains_hashes(np.fromiter(
                map(xxhash.xxh3_64_intdigest, lines, [f.seed] * len(lines)), dtype=np.uint64,
                count=len(lines)))
            text = np.empty((len(lines), 2), dtype=np.uint8)
            text[:, 0] = np.where(found, ord("1"), ord("0"))
            text[:, 1] = ord("\n")
            out.write(text.tobytes())
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
