#!/usr/bin/env bash
# make test: install what is needed, build with -Werror, install, then run
# every test stage (tools/test-stages/*.sh, in name order) as an
# unprivileged user against a throwaway cluster.  Ends with one line
# "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh

if [ "${1:-}" != "--stages" ]; then
	EXTRA_DEPS="clang libclang-rt-14-dev" ensure_deps
	WERROR=-Werror build_and_install
	scratch=$(make_scratch)
	log "running tests in $scratch"
	status=0
	as_user bash "$scratch/main/tools/run-tests.sh" --stages "$scratch" || status=$?
	if [ $status -eq 0 ]; then rm -rf "$scratch"; else log "test output kept in $scratch"; fi
	exit $status
fi

# ---- stage 2: unprivileged, in the scratch copy ----
scratch=$2
cd "$scratch/main"
ensure_deps >/dev/null
trap stop_cluster EXIT
start_cluster "$scratch"
log "throwaway cluster on port $PGPORT"

passed=0
failed=0
failed_names=()
for stage in tools/test-stages/*.sh; do
	name=$(basename "$stage" .sh)
	log "stage $name"
	if bash "$stage"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failed_names+=("$name")
	fi
done
[ $failed -eq 0 ] || log "failed stages: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
