#!/usr/bin/env bash
# A short libFuzzer run of every harness (test/fuzz/), seeded from the
# committed corpora: any crash, leak or sanitizer report fails the stage.
# FUZZ_BUDGET seconds in all (default 24), split between the harnesses.
# tools/fuzz.sh runs them for longer.
set -uo pipefail
if ! command -v clang >/dev/null; then
	echo "clang not installed: cannot build the fuzz harnesses"
	exit 1
fi
mapfile -t harnesses < <(bash test/fuzz/build.sh) || exit 1
budget=${FUZZ_BUDGET:-24}
per=$((budget / ${#harnesses[@]}))
[ $per -ge 2 ] || per=2
FUZZ_BUILT=1 exec bash tools/fuzz.sh -t "$per" "${harnesses[@]}"
