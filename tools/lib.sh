# Shared shell helpers for `make test`, `make demo` and the benchmarks.
# shellcheck shell=bash

PG_MAJOR=${PG_MAJOR:-15}
TEST_USER=${BLOOMFILTER_TEST_USER:-bftest}
# what tools/pg-build.sh needs to build a PostgreSQL from source
PG_BUILD_DEPS="bison flex libreadline-dev zlib1g-dev xz-utils"
# what test stage 55-python needs: the Scrapy client's dependencies as a
# Debian user installs them, and the HTML docs its crawl test serves
PYTHON_TEST_DEPS="python3-scrapy python3-psycopg2 python3-doc"

log() { printf '==> %s\n' "$*" >&2; }

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
