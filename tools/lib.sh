# Shared shell helpers for `make test`, `make demo` and the benchmarks.
# shellcheck shell=bash

PG_MAJOR=${PG_MAJOR:-15}
TEST_USER=${BLOOMFILTER_TEST_USER:-bftest}
# what tools/pg-build.sh needs to build a PostgreSQL from source
PG_BUILD_DEPS="bison flex libreadline-dev zlib1g-dev xz-utils"
# what test stage 55-python needs: the Scrapy client's dependencies as a
# Debian user installs them, and the HTML docs its crawl test serves
PYTHON_TEST_DEPS="python3-scrapy python3-psycopg2 python3-doc"
# what test stage 56-readers needs: the format's readers in Python (on
# xxhash and numpy) and JavaScript (Node, and a real browser)
READER_TEST_DEPS="python3-xxhash python3-numpy nodejs chromium"

log() { printf '==> %s\n' "$*" >&2; }

# A test stage that does not depend on the server's version runs on
# Debian's PostgreSQL only: elsewhere it says so and exits 0.
#   only_on_debian_pg NAME
only_on_debian_pg() {
	local major
	major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	if [ "$major" != "$PG_MAJOR" ]; then
		echo "$1: only on PostgreSQL $PG_MAJOR (Debian's), not $major"
		exit 0
	fi
}

# The builds of PostgreSQL and Citus (tools/pg-build.sh,
# tools/citus-build.sh) must not depend on who started them.  Under
# `make test` they inherit the outer make's MAKELEVEL, with which
# PostgreSQL's Makefile.global skips generating its headers
# (utils/errcodes.h missing), and its MAKEFLAGS; a variable given on the
# make command line (CFLAGS=...) is exported to them too.  So such a
# script re-runs itself first with an empty environment but for PATH, HOME,
# a C locale and the project's own settings (BLOOMFILTER_*, PG_MAJOR,
# PG_CONFIG).
#   clean_build_env tools/pg-build.sh "$@"   (its path from the tree's top)
clean_build_env() {
	local script=$1 v keep=()
	shift
	[ "${BLOOMFILTER_BUILD_ENV_CLEAN:-}" = "$$" ] && return 0
	for v in $(compgen -e); do
		case $v in
		BLOOMFILTER_BUILD_ENV_CLEAN) ;;
		BLOOMFILTER_* | PG_MAJOR | PG_CONFIG) keep+=("$v=${!v}") ;;
		esac
	done
	# exec keeps the process id: the marker names this very process, so a
	# script started later from inside it is cleaned again
	exec env -i PATH="$PATH" HOME="${HOME:-/}" LC_ALL=C "${keep[@]}" \
		BLOOMFILTER_BUILD_ENV_CLEAN=$$ bash "$script" "$@"
}

# The guard behind `tools/pg-build.sh --check-env` (and Citus's): fails if
# the build script's environment still holds make's variables, or one a
# caller exported, or if a make it runs is not a top-level make.  Cheap:
# nothing is built.
check_build_env() {
	local what=$1 bad=() v level
	for v in MAKELEVEL MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKEOVERRIDES MAKE_TERMOUT MAKE_TERMERR \
		CFLAGS CPPFLAGS LDFLAGS; do
		[ -z "${!v+set}" ] || bad+=("$v=${!v}")
	done
	level=$(printf 'all:\n\t@echo $(MAKELEVEL)\n' | make -s --no-print-directory -f - all)
	[ "$level" = 0 ] || bad+=("a make it runs has MAKELEVEL $level, not 0")
	if [ ${#bad[@]} -gt 0 ]; then
		log "$what would build in its caller's make environment: ${bad[*]}"
		return 1
	fi
	log "$what builds in a clean environment (make at level 0, no inherited make or compiler variables)"
}

# show_build_failure WHAT LOG: a failed build's first error, with the lines
# around it (the tail of a parallel build is often only make's summary),
# its last lines, and where the whole log is kept
show_build_failure() {
	local what=$1 file=$2 n
	log "$what failed; its whole log is $file"
	n=$(grep -n -m1 -E 'error:|Error [0-9]+|\*\*\* ' "$file" | cut -d: -f1 || true)
	if [ -n "$n" ]; then
		printf -- '--- first error, line %s of %s:\n' "$n" "$file" >&2
		sed -n "$((n > 10 ? n - 10 : 1)),$((n + 5))p" "$file" >&2
	fi
	printf -- '--- last lines of %s:\n' "$file" >&2
	tail -n 15 "$file" >&2
}

# run a command as root: directly when we are root, with sudo otherwise
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Install what the build and the tests need, only if something is missing.
ensure_deps() {
	local pkgs=(postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libxxhash-dev
		libipc-run-perl make gcc gzip perl ${EXTRA_DEPS:-})
	local missing=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing: ${missing[*]}"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
	PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
	# BLOOMFILTER_PGROOT: a private, relocated copy of the PostgreSQL
	# installation to install into and run from, so several work trees can
	# build and test at once without sharing /usr/lib/postgresql.
	if [ -n "${BLOOMFILTER_PGROOT:-}" ]; then
		local r=$BLOOMFILTER_PGROOT
		if [ ! -x "$r/usr/lib/postgresql/$PG_MAJOR/bin/postgres" ]; then
			log "making private PostgreSQL root $r"
			mkdir -p "$r/usr/lib/postgresql" "$r/usr/share/postgresql"
			cp -a "/usr/lib/postgresql/$PG_MAJOR" "$r/usr/lib/postgresql/"
			cp -a "/usr/share/postgresql/$PG_MAJOR" "$r/usr/share/postgresql/"
			chmod 755 "$r"
		fi
		# the relocated pg_config looks for the server headers inside the root
		if [ ! -e "$r/usr/include/postgresql" ]; then
			mkdir -p "$r/usr/include"
			ln -s /usr/include/postgresql "$r/usr/include/postgresql"
		fi
		PG_CONFIG=$r/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
	fi
	export PG_CONFIG
	PG_BINDIR=$("$PG_CONFIG" --bindir)
	export PG_BINDIR
}

build_and_install() {
	log "building and installing bloomfilter"
	make -s PG_CONFIG="$PG_CONFIG" WERROR="${WERROR:-}" -j2 >/dev/null
	# scripts of versions this tree no longer ships must not linger in the
	# install: the upgrade tests read which versions are installed
	local ext
	ext="$("$PG_CONFIG" --sharedir)/extension"
	if [ -n "${BLOOMFILTER_PGROOT:-}" ] || [ -w "$ext" ]; then
		rm -f "$ext"/bloomfilter--*.sql
	else
		as_root sh -c "rm -f '$ext'/bloomfilter--*.sql"
	fi
	if [ -n "${BLOOMFILTER_PGROOT:-}" ]; then
		make -s PG_CONFIG="$PG_CONFIG" install >/dev/null
	else
		as_root make -s PG_CONFIG="$PG_CONFIG" install >/dev/null
	fi
}

# PostgreSQL refuses to run as root: when we are root, make an unprivileged
# user and a scratch copy of the tree (with ../shared beside it) it owns.
# Prints the scratch directory.
make_scratch() {
	local src shared scratch
	src=$(pwd)
	scratch=$(mktemp -d /tmp/bloomfilter-run.XXXXXX)
	mkdir -p "$scratch/main"
	tar -C "$src" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude=./results \
		--exclude=./tmp_check -cf - . | tar -C "$scratch/main" -xf -
	if [ -d "$src/../shared" ]; then
		shared=$(cd "$src/../shared" && pwd)
		ln -s "$shared" "$scratch/shared"
	fi
	if [ "$(id -u)" = 0 ]; then
		id "$TEST_USER" >/dev/null 2>&1 || useradd --system --shell /bin/bash --home-dir "$scratch" "$TEST_USER"
		chown -R "$TEST_USER" "$scratch"
	fi
	chmod 755 "$scratch"
	echo "$scratch"
}

# run a command as the unprivileged user (ourselves when not root)
as_user() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$TEST_USER" -- env PATH="$PATH" PG_CONFIG="$PG_CONFIG" PG_BINDIR="$PG_BINDIR" \
			BLOOMFILTER_CITUS_STATUS="${BLOOMFILTER_CITUS_STATUS:-}" "$@"
	else
		"$@"
	fi
}

# Start a throwaway cluster under $1 (run as the unprivileged user);
# exports PGHOST, PGPORT, PGDATA.
start_cluster() {
	local dir=$1
	export PGDATA="$dir/pgdata" PGHOST="$dir/sock"
	export PGPORT=${PGPORT:-$((20000 + RANDOM % 20000))}
	mkdir -p "$PGHOST"
	"$PG_BINDIR/initdb" -D "$PGDATA" -U postgres --auth=trust --no-sync >"$dir/initdb.log" 2>&1
	cat >>"$PGDATA/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$PGHOST'
port = $PGPORT
fsync = off
max_parallel_workers_per_gather = 2
shared_buffers = 256MB
# LLVM 14 inlining crashes inside libLLVM on some plans here, with or
# without this extension; JIT buys nothing for these tests
jit = off
CONF
	"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$dir/server.log" -w start >/dev/null
	export PGUSER=postgres
}

stop_cluster() {
	[ -n "${PGDATA:-}" ] && [ -f "$PGDATA/postmaster.pid" ] &&
		"$PG_BINDIR/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1
	return 0
}
