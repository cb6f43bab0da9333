#!/usr/bin/env bash
# Build the libFuzzer harnesses: for every core checker
# "BfStatus <type>_check(const void *data, ...)" found in src/*.c, two
# harnesses from fuzz_value.c: fuzz_<type>_bytes (binary recv, bytea cast,
# aggregate state input) and fuzz_<type>_text (the text input function).
# Then every other test/fuzz/fuzz_*.c as a harness of its own.
# With --seeds, also writes the seed corpus test/fuzz/corpus/<harness>/
# of a harness that has none yet (an existing corpus is never touched).
# Binaries go to test/fuzz/bin/.  Prints the harness names, one a line.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${FUZZ_CC:-clang}
bin=test/fuzz/bin
mkdir -p "$bin"
seeds=no
[ "${1:-}" = --seeds ] && seeds=yes

core=()
for f in src/*.c; do
	grep -q '#include "postgres.h"' "$f" || core+=("$f")
done
types=$(grep -ho '^[a-z0-9]*_check(const void' "${core[@]}" | sed 's/_check(const void//' | sort -u)

CFLAGS="-std=gnu11 -g -O1 -Wall -Wno-unused-parameter -Wno-sign-compare -Wno-unused-function -Isrc -Itest/fuzz"
SAN="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
for t in $types; do
	ops="ops_$t.h"
	[ -f "test/fuzz/$ops" ] || ops=ops_checkonly.h
	for mode in bytes text; do
		text=0
		[ $mode = text ] && text=1
		name=fuzz_${t}_$mode
		defs=(-DFUZZ_TYPE="$t" -DFUZZ_HEADER="\"$t.h\"" -DFUZZ_TEXT=$text -DFUZZ_OPS="\"$ops\"")
		$CC $CFLAGS $SAN "${defs[@]}" -o "$bin/$name" test/fuzz/fuzz_value.c "${core[@]}" -lm >&2
		if [ $seeds = yes ] && [ ! -d "test/fuzz/corpus/$name" ]; then
			gcc $CFLAGS "${defs[@]}" -DFUZZ_MAKE_SEEDS -o "$bin/seeds_$name" \
				test/fuzz/fuzz_value.c "${core[@]}" -lm >&2
			mkdir -p "test/fuzz/corpus/$name"
			"$bin/seeds_$name" "test/fuzz/corpus/$name" >&2
		fi
		echo "$name"
	done
done

# standalone harnesses (test/fuzz/fuzz_<name>.c with their own
# LLVMFuzzerTestOneInput, e.g. fuzz_url.c): built with every core file,
# seeded from test/fuzz/corpus/fuzz_<name>/
for src in test/fuzz/fuzz_*.c; do
	[ "$src" = test/fuzz/fuzz_value.c ] && continue
	name=$(basename "$src" .c)
	$CC $CFLAGS $SAN -o "$bin/$name" "$src" "${core[@]}" -lm >&2
	echo "$name"
done
