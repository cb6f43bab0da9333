#!/usr/bin/env bash
# Build Citus from ../shared/peers/citus-*.tar.xz against Debian's
# PostgreSQL $PG_MAJOR into a cache outside the clone (once per tarball and
# server version), then install it from the cache into the PostgreSQL that
# $PG_CONFIG names (Debian's, or the private copy BLOOMFILTER_PGROOT makes).
#
#   tools/citus-build.sh
#
# The cache (BLOOMFILTER_CITUS_CACHE, default /var/cache/bloomfilter/citus)
# holds one directory per tarball checksum with the files `make install`
# put in the library and extension directories, and a stamp written last
# holding the checksum and the server version built against: an unchanged
# pair is reused, anything else rebuilt.  Run as root (make test does) or
# as a user who owns the cache and the install directories.
#
# Exit status: 0 installed, 3 skipped (no ../shared beside the clone: the
# Citus source ships nowhere else), anything else failed.  A failed build
# keeps its log in the cache and prints its first error.
#
#   tools/citus-build.sh --check-env   (the guard make test runs first)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
clean_build_env tools/citus-build.sh "$@"
if [ "${1:-}" = --check-env ]; then
	check_build_env "tools/citus-build.sh"
	exit
fi

shared=${BLOOMFILTER_SHARED:-../shared}
cache=${BLOOMFILTER_CITUS_CACHE:-/var/cache/bloomfilter/citus}
if [ ! -d "$shared" ]; then
	log "no $shared beside the clone: Citus not built, its stage is skipped"
	exit 3
fi
tarball=$(ls "$shared"/peers/citus-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$tarball" ] || { log "no Citus source in $shared/peers"; exit 1; }

# build against Debian's server headers; install into $PG_CONFIG's tree
debian_config=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
CITUS_DEPS="libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev
	libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev"
EXTRA_DEPS="$CITUS_DEPS" ensure_deps
target_config=$PG_CONFIG

sum=$(sha256sum "$tarball" | cut -d' ' -f1)
server=$("$debian_config" --version)
dir=$cache/$sum
stamp="$sum $server"
mkdir -p "$cache"
# one build at a time (two make test runs may share the cache)
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$dir/.bloomfilter-stamp" ] || [ "$(cat "$dir/.bloomfilter-stamp")" != "$stamp" ]; then
	log "building Citus from $(basename "$tarball") against $server into $dir (once; cached)"
	work=$(mktemp -d /tmp/bloomfilter-citusbuild.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	tar -xJf "$tarball" -C "$work"
	src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	rm -rf "$dir"
	mkdir -p "$dir"
	(
		cd "$src"
		# Citus 13.2's static have_createdb_privilege(void) clashes with
		# the one commands/dbcommands.h declares from PostgreSQL 15.14 on
		sed -i 's/^have_createdb_privilege(void)$/#define have_createdb_privilege citus_have_createdb_privilege\n&/' \
			src/include/pg_version_compat.h
		# the build is against Debian's server, whatever PG_CONFIG names
		unset PG_CONFIG PG_BINDIR
		./configure PG_CONFIG="$debian_config" --without-libcurl >"$dir/configure.log" 2>&1 ||
			{ show_build_failure "Citus's configure" "$dir/configure.log"; exit 1; }
		# no LLVM bitcode: the test clusters run with jit = off
		nice -n 10 make -s -j2 with_llvm=no >"$dir/build.log" 2>&1 ||
			{ show_build_failure "Citus's build" "$dir/build.log"; exit 1; }
		make -s install with_llvm=no DESTDIR="$work/root" >>"$dir/build.log" 2>&1 ||
			{ show_build_failure "Citus's install" "$dir/build.log"; exit 1; }
	)
	# keep what the server loads: the modules and the extension scripts
	mkdir -p "$dir/lib" "$dir/extension"
	cp -a "$work/root$("$debian_config" --pkglibdir)/." "$dir/lib/"
	cp -a "$work/root$("$debian_config" --sharedir)/extension/." "$dir/extension/"
	(cd "$dir" && find lib extension -type f | sort >files.txt)
	chmod -R a+rX "$dir"
	echo "$stamp" >"$dir/.bloomfilter-stamp"
fi

libdir=$("$target_config" --pkglibdir)
extdir=$("$target_config" --sharedir)/extension
# a make test with BLOOMFILTER_PGROOT owns its private tree; Debian's needs root
if [ -w "$libdir" ] && [ -w "$extdir" ]; then
	cp -a "$dir/lib/." "$libdir/"
	cp -a "$dir/extension/." "$extdir/"
else
	as_root cp -a "$dir/lib/." "$libdir/"
	as_root cp -a "$dir/extension/." "$extdir/"
fi
log "Citus $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$dir/extension/citus.control") installed into $libdir"
