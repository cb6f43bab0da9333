#!/usr/bin/env bash
# make demo: the URL-seen problem, solved on real links.
#
# Installs what is missing, builds and installs the extension, starts a
# throwaway cluster of its own (as an unprivileged user when run as root),
# pushes a crawl-like stream of extracted links (real URLs from
# data/urls-sample.txt.gz mixed into a generated stream) through a
# crawler's URL-seen loop in SQL (demo/crawler.sql), prints a progress line
# per batch and the summary tables, then stops the cluster and removes it.
#
#   DEMO_LINKS=10000000 make demo     more links (default 1,000,000)
#   DEMO_BATCH=50000 make demo        links per batch (default: links/40,
#                                     between 5,000 and 100,000)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh

DEMO_LINKS=${DEMO_LINKS:-1000000}
if ! [[ $DEMO_LINKS =~ ^[0-9]+$ ]] || [ "$DEMO_LINKS" -lt 1 ]; then
	echo "DEMO_LINKS must be a positive integer (got '$DEMO_LINKS')" >&2
	exit 2
fi
if [ -z "${DEMO_BATCH:-}" ]; then
	DEMO_BATCH=$((DEMO_LINKS / 40))
	[ "$DEMO_BATCH" -ge 5000 ] || DEMO_BATCH=5000
	[ "$DEMO_BATCH" -le 100000 ] || DEMO_BATCH=100000
fi
if ! [[ $DEMO_BATCH =~ ^[0-9]+$ ]] || [ "$DEMO_BATCH" -lt 1 ]; then
	echo "DEMO_BATCH must be a positive integer (got '$DEMO_BATCH')" >&2
	exit 2
fi

# clusters of the system's PostgreSQL that are running (Debian's pg_lsclusters)
online_clusters() {
	command -v pg_lsclusters >/dev/null 2>&1 || return 0
	pg_lsclusters -h 2>/dev/null | awk '$4 == "online" { print $1 "/" $2 }'
}

if [ "${1:-}" != "--run" ]; then
	started=$(date +%s)
	before=$(online_clusters)
	ensure_deps
	# Installing the server package on Debian creates and starts a "main"
	# cluster; the demo leaves nothing running, so stop one it caused (and
	# only such a one: clusters that were running before are not ours).
	for c in $(online_clusters); do
		if ! grep -qxF "$c" <<<"$before"; then
			as_root pg_ctlcluster "${c%/*}" "${c#*/}" stop || true
			log "stopped cluster $c, started by installing PostgreSQL (pg_ctlcluster ${c%/*} ${c#*/} start to use it)"
		fi
	done
	build_and_install
	scratch=$(make_scratch)
	trap 'rm -rf "$scratch"' EXIT
	status=0
	as_user env DEMO_LINKS="$DEMO_LINKS" DEMO_BATCH="$DEMO_BATCH" \
		bash "$scratch/main/tools/run-demo.sh" --run "$scratch" || status=$?
	log "make demo finished in $(($(date +%s) - started)) s (status $status)"
	exit $status
fi

# ---- stage 2: unprivileged, in the scratch copy ----
scratch=$2
cd "$scratch/main"
ensure_deps >/dev/null
trap 'stop_cluster; log "cluster stopped, nothing left running"' EXIT
start_cluster "$scratch"
log "throwaway cluster on port $PGPORT (in $scratch)"

# NOTICEs are the progress lines: show them without psql's prefixes
"$PG_BINDIR/psql" -X -d postgres -v links="$DEMO_LINKS" -v batch="$DEMO_BATCH" \
	-f demo/demo.sql 2>&1 | sed -u -e 's/^psql:[^ ]* NOTICE:  //' -e 's/^NOTICE:  //'
