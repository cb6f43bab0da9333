#!/usr/bin/env bash
# The three forms of a crawler's URL-seen test on the same link stream
# (bench/README.md, "The crawler's URL-seen loop"): the filter alone (a bloomfilter index
# over an append-only log), the exact table alone (INSERT ... ON CONFLICT),
# and the two-tier gate (the filter index first, the btree for "probably
# seen"), for time, memory that must stay hot, pages per link, WAL and new
# links dropped; then a model at 1 billion URLs.
#
#   bash bench/crawler_forms.sh     as root or a sudoer; prints a markdown
#                                   table, kept in
#                                   bench/results/crawler_forms_latest.txt
#
#   BENCH_FORMS_SIZES="1000000 10000000"  links per run (default; "" for none)
#   BENCH_FORMS_REPS="3 1"          runs per size (medians are reported)
#   BENCH_FORMS_BATCH=10000         extracted links per batch
#   BENCH_FORMS_SHARED_BUFFERS=4GB  the same for every form
#   BENCH_FORMS_AT_1B=10000000      then push this many links through the
#                                   filter alone sized for 1 billion URLs
#                                   (1.2 GB, warmed into shared buffers):
#                                   every probe and add on a page of its own,
#                                   as at 1B; 0 skips it
#   BENCH_FORMS_AT_1B_REPS=3        runs of it (median reported)
#   BENCH_FORMS_OUT=bench/results/crawler_forms_latest.txt
#   BENCH_FORMS_INSTALL=0           skip building and installing bloomfilter
#   BENCH_FORMS_KEEP=1              keep the scratch dir (/tmp/bench-forms-*)
#   PG_CONFIG=...                   the PostgreSQL to build for and run
#   PGPORT=...                      the throwaway cluster's port
#
# Stage 1 (root): builds and installs bloomfilter (nice 10).  Stage 2 (the
# unprivileged test user): starts a throwaway cluster in a scratch dir,
# builds the stream once (demo/generator.sql's demo_links, normalized and
# made distinct per batch, untimed), then for each size and repetition
# recreates the three forms' tables empty (demo/forms.sql) and pushes the
# stream's first N links through them batch by batch, the three forms
# interleaved (their order rotated every batch), each batch one transaction
# timed with its commit.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
. bench/lib.sh

SIZES=${BENCH_FORMS_SIZES-1000000 10000000}
REPS=${BENCH_FORMS_REPS:-3 1}
BATCH=${BENCH_FORMS_BATCH:-10000}
SHARED_BUFFERS=${BENCH_FORMS_SHARED_BUFFERS:-4GB}
AT_1B=${BENCH_FORMS_AT_1B:-10000000}
AT_1B_REPS=${BENCH_FORMS_AT_1B_REPS:-3}
OUT=${BENCH_FORMS_OUT:-bench/results/crawler_forms_latest.txt}

if [ "${1:-}" != "--stage2" ]; then
	ensure_deps
	if [ "${BENCH_FORMS_INSTALL:-1}" = 1 ]; then
		nice -n 10 bash -c '. tools/lib.sh; build_and_install'
	fi
	scratch=$(make_scratch)
	log "crawler forms benchmark in $scratch"
	status=0
	as_user env SIZES="$SIZES" REPS="$REPS" BATCH="$BATCH" SHARED_BUFFERS="$SHARED_BUFFERS" \
		AT_1B="$AT_1B" AT_1B_REPS="$AT_1B_REPS" \
		PGPORT="${PGPORT:-}" bash "$scratch/main/bench/crawler_forms.sh" --stage2 "$scratch" || status=$?
	bench_finish "$scratch" $status "$OUT" "${BENCH_FORMS_KEEP:-0}" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) vCPU, $(free -g | awk '/^Mem:/ { print $2 }') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"), $("$PG_BINDIR/postgres" --version)"
fi

# ---- stage 2: unprivileged, in the scratch copy ----
scratch=$2
cd "$scratch/main"
ensure_deps >/dev/null
[ -n "${PGPORT:-}" ] || unset PGPORT
trap stop_cluster EXIT
start_cluster "$scratch"
# after start_cluster's settings (the last one wins): the same for all forms
cat >>"$PGDATA/postgresql.conf" <<CONF
shared_buffers = $SHARED_BUFFERS
synchronous_commit = off
max_wal_size = 8GB
max_parallel_workers_per_gather = 0
CONF
"$PG_BINDIR/pg_ctl" -D "$PGDATA" -w restart >/dev/null
psql() { bench_psql "$@"; }
psql -d postgres -c 'CREATE DATABASE forms'
max=$AT_1B
for s in $SIZES; do [ "$s" -gt "$max" ] && max=$s; done
log "building the stream: $max links in batches of $BATCH"
psql -d forms -v maxlinks="$max" -v batch="$BATCH" -f bench/crawler_forms.sql >/dev/null
{
	echo "settings: $(psql -d forms -At -c "SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name)
		FROM pg_settings WHERE name IN ('shared_buffers', 'synchronous_commit', 'fsync', 'full_page_writes',
		'max_wal_size', 'checkpoint_timeout', 'wal_compression', 'max_parallel_workers_per_gather', 'jit')")"
	echo "batch: $BATCH extracted links; sizes: ${SIZES:-none}; runs per size: $REPS; filter sized for 1B: $AT_1B links, $AT_1B_REPS runs"
} >"$scratch/settings.txt"
read -r -a reps <<<"$REPS"
i=0
for s in $SIZES; do
	nrep=${reps[$i]:-${reps[-1]}}
	i=$((i + 1))
	# the filters sized up front for the URLs the run will hold
	cap=$(psql -d forms -At -c "SELECT count(DISTINCT u) FROM stream, unnest(urls) u WHERE b < $s / $BATCH")
	for r in $(seq 1 "$nrep"); do
		log "size $s, run $r of $nrep (filter capacity $cap)"
		psql -d forms -v size="$s" -v rep="$r" -v batch="$BATCH" -v capacity="$cap" \
			-f bench/crawler_forms_run.sql >/dev/null
		psql -d forms -c "SELECT form, round(sum(secs)::numeric, 1) AS secs, sum(new_links) AS new
			FROM forms_batches WHERE size = $s AND rep = $r GROUP BY form ORDER BY form" >&2
	done
done
for r in $(seq 1 "$AT_1B_REPS"); do
	[ "$AT_1B" -gt 0 ] || break
	log "the filter alone sized for 1 billion URLs: $AT_1B links, run $r of $AT_1B_REPS"
	psql -d forms -v links="$AT_1B" -v rep="$r" -v batch="$BATCH" -f bench/crawler_forms_1b.sql >/dev/null
done
{
	cat "$scratch/settings.txt"
	echo
	[ -z "$SIZES" ] || psql -d forms -f bench/crawler_forms_report.sql
	[ "$AT_1B" -eq 0 ] || psql -d forms -f bench/crawler_forms_1b_report.sql
} >"$scratch/results.md"
cat "$scratch/results.md"
