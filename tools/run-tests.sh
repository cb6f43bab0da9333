#!/usr/bin/env bash
# make test: install what is needed, then for each PostgreSQL major build
# the extension with -Werror, install it and run the test stages
# (tools/test-stages/*.sh, in name order) as an unprivileged user against a
# throwaway cluster.
#
# The majors: Debian's (PG_MAJOR, 15) runs every stage first; then each
# major whose source is in ../shared/postgres (built once into a cache
# outside the clone by tools/pg-build.sh, in the background while earlier
# majors are tested) runs the stages that depend on the server version
# (MATRIX_STAGES: pg_regress and TAP).  Without ../shared/postgres
# only Debian's is tested, and the output says so.  TEST_PG_MAJORS limits
# the run to some majors, e.g. TEST_PG_MAJORS="15 19"; TEST_STAGES to some
# stages.
#
# Prints one line per major and ends with "N passed, N failed" (majors).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh

MATRIX_STAGES="10-regress 20-tap"
# TEST_STAGES="10-regress": only these stages, on every major (for work on
# one stage; make test itself runs them all)
if [ -n "${TEST_STAGES:-}" ]; then MATRIX_STAGES=$TEST_STAGES; fi

# ---- stage 2: unprivileged, in a scratch copy: run the stages ----
if [ "${1:-}" = "--stages" ]; then
	scratch=$2
	only=${3:-}
	cd "$scratch/main"
	trap stop_cluster EXIT
	start_cluster "$scratch"
	log "throwaway cluster on port $PGPORT ($("$PG_BINDIR/postgres" --version))"
	passed=0
	failed=0
	: >"$scratch/stages.txt"
	for stage in tools/test-stages/*.sh; do
		name=$(basename "$stage" .sh)
		if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then
			continue
		fi
		log "stage $name"
		if bash "$stage"; then
			passed=$((passed + 1))
			echo "$name ok" >>"$scratch/stages.txt"
		else
			failed=$((failed + 1))
			echo "$name FAILED" >>"$scratch/stages.txt"
		fi
	done
	echo "stages: $passed passed, $failed failed"
	[ $failed -eq 0 ]
	exit
fi

# ---- stage 1: as root (or a user with sudo) ----
# (what tools/pg-build.sh needs too: the background builds must not run apt)
EXTRA_DEPS="clang libclang-rt-14-dev $PG_BUILD_DEPS $PYTHON_TEST_DEPS $READER_TEST_DEPS" ensure_deps
debian_config=$PG_CONFIG

# ---- the guard: the builds started below must not see our make ----
# make test runs under make (MAKELEVEL=1, MAKEFLAGS); the guard passes the
# build scripts that and a compiler variable on purpose, whoever ran us,
# and fails at once if either would still see them: PostgreSQL would then
# fail to build, minutes later, on a machine whose cache is cold
for b in tools/pg-build.sh tools/citus-build.sh; do
	if ! MAKELEVEL=1 MAKEFLAGS=w MFLAGS=-w CFLAGS=-DBLOOMFILTER_CALLER_CFLAGS bash "$b" --check-env; then
		echo "FAILED: $b would build in its caller's make environment; nothing tested"
		exit 2
	fi
done

# run_major LABEL PG_CONFIG STAGES: build, install and test against one
# PostgreSQL; appends its summary line to $summary
run_major() {
	local label=$1 pgc=$2 only=$3 scratch status=0 line stages
	log "PostgreSQL $label: $("$pgc" --version)"
	scratch=$(make_scratch)
	if ! (cd "$scratch/main" && PG_CONFIG=$pgc WERROR=-Werror build_and_install); then
		echo "PostgreSQL $label: FAILED to build with -Werror (output kept in $scratch)" >>"$summary"
		return 1
	fi
	PG_CONFIG=$pgc PG_BINDIR=$("$pgc" --bindir) \
		as_user bash "$scratch/main/tools/run-tests.sh" --stages "$scratch" "$only" || status=$?
	stages=$(tr '\n' ',' <"$scratch/stages.txt" | sed 's/,$//; s/,/, /g')
	if [ $status -eq 0 ]; then
		line="PostgreSQL $label: pass (built with -Werror; $stages)"
		rm -rf "$scratch"
	else
		line="PostgreSQL $label: FAIL (built with -Werror; $stages; output kept in $scratch)"
	fi
	echo "$line" >>"$summary"
	log "$line"
	return $status
}

summary=$(mktemp)
builds=$(mktemp -d)
trap 'rm -rf "$summary" "$builds"' EXIT
others=()
shared=${BLOOMFILTER_SHARED:-../shared}
wanted=${TEST_PG_MAJORS:-}
if [ -d "$shared/postgres" ]; then
	for t in "$shared"/postgres/postgresql-*.tar.xz; do
		m=$(basename "$t" | sed -E 's/^postgresql-([0-9]+).*/\1/')
		[ "$m" != "$PG_MAJOR" ] || continue
		[ -z "$wanted" ] || [[ " $wanted " == *" $m "* ]] || continue
		others+=("$m")
	done
	mapfile -t others < <(printf '%s\n' "${others[@]}" | sed '/^$/d' | sort -n)
else
	log "no $shared/postgres beside the clone: testing the installed PostgreSQL $PG_MAJOR only"
fi

# The other majors' PostgreSQL builds run in the background, one after
# another at low priority, while the tests of the majors before them run
# (pg_regress and TAP mostly keep one core busy): a cold cache costs about
# one build more than the tests, not the sum of the builds.
if [ ${#others[@]} -gt 0 ]; then
	(
		for m in "${others[@]}"; do
			rc=0
			nice -n 10 bash tools/pg-build.sh "$m" >"$builds/$m.prefix" 2>"$builds/$m.log" || rc=$?
			echo $rc >"$builds/$m.rc"
		done
	) &
fi

# Citus (for stage 50-citus, Debian's major only) builds in the background
# too, at low priority, while the stages before it run; installing it
# from its cache takes a second once built.  The stage waits for the
# status left in BLOOMFILTER_CITUS_STATUS.
if { [ -z "$wanted" ] || [[ " $wanted " == *" $PG_MAJOR "* ]]; } &&
	{ [ -z "${TEST_STAGES:-}" ] || [[ " $TEST_STAGES " == *" 50-citus "* ]]; }; then
	BLOOMFILTER_CITUS_STATUS=$(mktemp -d /tmp/bloomfilter-citus.XXXXXX)
	chmod 755 "$BLOOMFILTER_CITUS_STATUS"
	export BLOOMFILTER_CITUS_STATUS
	trap 'rm -rf "$summary" "$builds" "$BLOOMFILTER_CITUS_STATUS"' EXIT
	(
		rc=0
		bash tools/citus-build.sh >"$BLOOMFILTER_CITUS_STATUS/log" 2>&1 || rc=$?
		chmod 644 "$BLOOMFILTER_CITUS_STATUS/log"
		echo $rc >"$BLOOMFILTER_CITUS_STATUS/rc"
	) &
fi

passed=0
failed=0
if [ -z "$wanted" ] || [[ " $wanted " == *" $PG_MAJOR "* ]]; then
	run_major "$PG_MAJOR (Debian)" "$debian_config" "${TEST_STAGES:-}" && passed=$((passed + 1)) || failed=$((failed + 1))
fi
for m in "${others[@]}"; do
	while [ ! -f "$builds/$m.rc" ]; do sleep 5; done
	cat "$builds/$m.log" >&2
	if [ "$(cat "$builds/$m.rc")" != 0 ]; then
		echo "PostgreSQL $m: FAILED to build PostgreSQL itself (its first error is above; log ${BLOOMFILTER_PG_CACHE:-/var/cache/bloomfilter/pg}/build-$m.log)" >>"$summary"
		failed=$((failed + 1))
		continue
	fi
	prefix=$(tail -n 1 "$builds/$m.prefix")
	run_major "$m" "$prefix/bin/pg_config" "$MATRIX_STAGES" && passed=$((passed + 1)) || failed=$((failed + 1))
done
wait

echo
cat "$summary"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
