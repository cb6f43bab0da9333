#!/usr/bin/env bash
# Developer cluster: build, install and run a cluster you can poke at.
#   tools/dev.sh start      build, install, start (prints the psql command)
#   tools/dev.sh reinstall  rebuild, install, restart
#   tools/dev.sh psql ...   psql into the dev cluster
#   tools/dev.sh stop
# Set BLOOMFILTER_PGROOT to install into a private PostgreSQL copy (see
# tools/lib.sh) so work trees do not overwrite each other's install.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
ensure_deps >/dev/null
DEV=${BLOOMFILTER_DEVDIR:-${BLOOMFILTER_PGROOT:-/tmp/bloomfilter}-dev}
PORTFILE=$DEV/port

run_user() { as_user bash -c ". tools/lib.sh; $*"; }

case "${1:-}" in
start | reinstall)
	build_and_install
	mkdir -p "$DEV"
	[ "$(id -u)" = 0 ] && { id "$TEST_USER" >/dev/null 2>&1 || useradd --system --shell /bin/bash --home-dir "$DEV" "$TEST_USER"; chown "$TEST_USER" "$DEV"; }
	port=$(cat "$PORTFILE" 2>/dev/null || echo $((20000 + RANDOM % 20000)))
	echo "$port" >"$PORTFILE"
	if [ -f "$DEV/pgdata/postmaster.pid" ]; then
		as_user "$PG_BINDIR/pg_ctl" -D "$DEV/pgdata" -m fast -w restart -l "$DEV/server.log" >/dev/null
	elif [ -f "$DEV/pgdata/PG_VERSION" ]; then
		# stopped, not gone: start it again with its data
		as_user "$PG_BINDIR/pg_ctl" -D "$DEV/pgdata" -w start -l "$DEV/server.log" >/dev/null
	else
		rm -rf "$DEV/pgdata"
		as_user env PGPORT="$port" PG_BINDIR="$PG_BINDIR" bash -c ". tools/lib.sh; start_cluster '$DEV'"
	fi
	echo "dev cluster: tools/dev.sh psql   (socket $DEV/sock, port $port)"
	;;
psql)
	shift
	cd /tmp
	exec runuser -u "$TEST_USER" -- "$PG_BINDIR/psql" -X -h "$DEV/sock" -p "$(cat "$PORTFILE")" -U postgres "$@"
	;;
stop)
	as_user "$PG_BINDIR/pg_ctl" -D "$DEV/pgdata" -m fast -w stop
	;;
*)
	sed -n '2,9p' "$0"
	exit 2
	;;
esac
