#!/usr/bin/env bash
# Build every test/unit/test_*.c with every core file (src/*.c that does not
# include postgres.h) under AddressSanitizer + UndefinedBehaviorSanitizer,
# run each, and fail if any test fails or any sanitizer reports.
#   test/unit/run.sh [test_name ...]      (default: all)
# CC defaults to clang, falling back to gcc.  Binaries go to test/unit/bin/.
set -uo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-$(command -v clang || command -v gcc)}
out=test/unit/bin
mkdir -p "$out"

core=()
for f in src/*.c; do
	grep -q '#include "postgres.h"' "$f" || core+=("$f")
done
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers -Isrc -Itest/unit"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do tests+=("test/unit/$t.c"); done
else
	tests=(test/unit/test_*.c)
fi

echo "core: ${core[*]}  (compiler $CC)"
failed=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .c)
	if ! $CC $CFLAGS $SAN -o "$out/$name" "$t" "${core[@]}" -lm; then
		echo "FAIL $name: does not build"
		failed+=("$name")
		continue
	fi
	echo "--- $name"
	start=$(date +%s)
	if "$out/$name"; then
		echo "--- $name passed ($(($(date +%s) - start)) s)"
	else
		echo "--- $name FAILED"
		failed+=("$name")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "unit tests failed: ${failed[*]}"
	exit 1
fi
echo "all ${#tests[@]} unit test programs passed under ASan+UBSan"
