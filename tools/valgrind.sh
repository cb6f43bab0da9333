#!/usr/bin/env bash
# make valgrind: the pg_regress suite (sql/*.sql) plus test/valgrind/*.sql
# (hostile inputs) against a throwaway server running under valgrind
# memcheck (--trace-children=yes: every backend and worker is checked).
# Fails when valgrind reports an error whose stack passes through
# bloomfilter.so; other reports (PostgreSQL's own, not built with
# USE_VALGRIND) are listed but do not fail.  Slow: tens of minutes.
#   VALGRIND_TESTS="bloom_type_io bloom_errors" make valgrind   a subset
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh

if [ "${1:-}" != "--run" ]; then
	EXTRA_DEPS="valgrind" ensure_deps
	build_and_install
	scratch=$(make_scratch)
	log "valgrind run in $scratch"
	status=0
	as_user env VALGRIND_TESTS="${VALGRIND_TESTS:-}" bash "$scratch/main/tools/valgrind.sh" --run "$scratch" || status=$?
	[ $status -eq 0 ] && rm -rf "$scratch" || log "output kept in $scratch"
	exit $status
fi

# ---- as the unprivileged user, in the scratch copy ----
scratch=$2
cd "$scratch/main"
ensure_deps >/dev/null
export PGDATA="$scratch/pgdata" PGHOST="$scratch/sock" PGUSER=postgres
export PGPORT=$((20000 + RANDOM % 20000))
mkdir -p "$PGHOST" "$scratch/vg"
"$PG_BINDIR/initdb" -D "$PGDATA" -U postgres --auth=trust --no-sync >"$scratch/initdb.log" 2>&1
cat >>"$PGDATA/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$PGHOST'
port = $PGPORT
fsync = off
jit = off
max_parallel_workers_per_gather = 2
# valgrind makes everything ~30x slower
statement_timeout = 0
autovacuum = off
CONF

valgrind --quiet --trace-children=yes --error-limit=no --num-callers=30 \
	--read-var-info=no --leak-check=no --track-origins=yes \
	--suppressions=tools/valgrind.supp --gen-suppressions=all \
	--log-file="$scratch/vg/valgrind.%p.log" \
	"$PG_BINDIR/postgres" -D "$PGDATA" >"$scratch/server.log" 2>&1 &
server=$!
stop_server() {
	"$PG_BINDIR/pg_ctl" -D "$PGDATA" -m fast -w -t 300 stop >/dev/null 2>&1 || kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
}
trap stop_server EXIT
for _ in $(seq 1 300); do
	"$PG_BINDIR/pg_isready" -q && break
	sleep 1
done
"$PG_BINDIR/pg_isready" -q || { echo "server did not start under valgrind"; tail "$scratch/server.log"; exit 1; }
log "server under valgrind on port $PGPORT"

status=0
tests=${VALGRIND_TESTS:-}
if [ -z "$tests" ]; then
	for f in sql/*.sql; do
		[ -f "$f" ] && tests="$tests $(basename "$f" .sql)"
	done
fi
if [ -n "$tests" ]; then
	log "pg_regress: $tests"
	pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")/../..
	"$pgxs/src/test/regress/pg_regress" --inputdir=. --bindir="$PG_BINDIR" \
		--load-extension=bloomfilter --max-connections=2 $tests || {
		echo "(pg_regress differences under valgrind: timing-dependent output is expected to differ)"
		[ -f regression.diffs ] && head -c 3000 regression.diffs
	}
fi
for f in test/valgrind/*.sql; do
	[ -f "$f" ] || continue
	log "workload $f"
	"$PG_BINDIR/psql" -X -q -d postgres -f "$f" >"$scratch/$(basename "$f").out" 2>&1 || true
	grep -E 'NOTICE|FATAL|PANIC|server closed' "$scratch/$(basename "$f").out" || true
done
stop_server
trap - EXIT

# ---- the verdict ----
reports=$(grep -l '^==[0-9]*== [A-Z]' "$scratch"/vg/valgrind.*.log 2>/dev/null || true)
total=$(cat "$scratch"/vg/valgrind.*.log | grep -c '^==[0-9]*== \(Invalid\|Conditional\|Use of\|Syscall\|Mismatched\|Source and\|Argument\)' || true)
ours=$(cat "$scratch"/vg/valgrind.*.log | awk '
	/^==[0-9]*== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument)/ { inerr = 1; hit = 0; text = $0 "\n"; next }
	inerr && /^==[0-9]*== *$/ { if (hit) printf "%s\n", text; inerr = 0; next }
	inerr { text = text $0 "\n"; if ($0 ~ /bloomfilter\.so/) hit = 1 }')
nlogs=$(ls "$scratch"/vg/valgrind.*.log | wc -l)
echo "valgrind: $nlogs processes checked, $total error reports in all; by kind and first frame:"
cat "$scratch"/vg/valgrind.*.log | awk '
	/^==[0-9]*== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument)/ { sub(/^==[0-9]*== /, ""); kind = $0; getline; getline; sub(/^==[0-9]*== +/, ""); print "  " kind " | " $0 }' |
	sort | uniq -c | sort -rn | head -20
if [ -n "$ours" ]; then
	echo "errors in bloomfilter.so:"
	echo "$ours" | head -200
	status=1
else
	echo "no valgrind error passes through bloomfilter.so"
	if [ "$total" -gt 0 ]; then
		echo "(reports outside the extension, in:)"
		echo "$reports" | head
	fi
fi
exit $status
