#!/usr/bin/env bash
# Build one PostgreSQL major from ../shared/postgres into the cache, unless
# the cache already holds a build of the same tarball.  Prints the install
# prefix (the directory whose bin/pg_config to use).
#
#   tools/pg-build.sh 18
#
# The cache lives outside the clone (BLOOMFILTER_PG_CACHE, default
# /var/cache/bloomfilter/pg), one prefix per major, with a stamp holding
# the tarball's checksum: a changed tarball is rebuilt, an unchanged one is
# reused.  Run as root (make test does) or as a user who owns the cache.
# A failed build keeps its log in the cache (build-<major>.log) and prints
# its first error.
#
#   tools/pg-build.sh --check-env   (the guard make test runs first: is
#                                    the build's environment clean?)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
clean_build_env tools/pg-build.sh "$@"
if [ "${1:-}" = --check-env ]; then
	check_build_env "tools/pg-build.sh"
	exit
fi

major=$1
shared=${BLOOMFILTER_SHARED:-../shared}
cache=${BLOOMFILTER_PG_CACHE:-/var/cache/bloomfilter/pg}
tarball=$(ls "$shared"/postgres/postgresql-"$major"*.tar.xz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { log "no PostgreSQL $major source in $shared/postgres"; exit 1; }

prefix=$cache/$major
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
# one build of a major at a time (two make test runs may share the cache)
mkdir -p "$cache"
exec 9>"$cache/.lock-$major"
flock 9
if [ -f "$prefix/.bloomfilter-stamp" ] && [ "$(cat "$prefix/.bloomfilter-stamp")" = "$sum" ] &&
	[ -x "$prefix/bin/postgres" ]; then
	echo "$prefix"
	exit 0
fi

EXTRA_DEPS="$PG_BUILD_DEPS" ensure_deps >/dev/null
log "building PostgreSQL $major from $(basename "$tarball") into $prefix (once; cached)"
work=$(mktemp -d /tmp/bloomfilter-pgbuild.XXXXXX)
trap 'rm -rf "$work"' EXIT
# the log outlives the work tree: a failure names it
buildlog=$cache/build-$major.log
: >"$buildlog"
tar -xJf "$tarball" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
# the stamp is written last: a build cut off half way has none and is redone
rm -rf "$prefix"
mkdir -p "$cache"
(
	cd "$src"
	# psql's help is generated from the SGML reference pages, which the
	# tarballs leave out (a git archive has no prebuilt sql_help.h): with an
	# empty directory psql builds with no \h text
	mkdir -p doc/src/sgml/ref
	# before 17, the regression tests' C modules copy two of contrib/spi,
	# which the tarballs leave out too: pg_regress itself needs neither
	if [ ! -d contrib/spi ]; then
		sed -i '/^all: refint\$(DLSUFFIX) autoinc\$(DLSUFFIX)$/d' src/test/regress/GNUmakefile
	fi
	failed() { show_build_failure "PostgreSQL $major's $1" "$buildlog"; exit 1; }
	./configure --prefix="$prefix" --enable-tap-tests --without-icu \
		--with-readline --with-zlib >>"$buildlog" 2>&1 || failed configure
	make -s -j"$(nproc)" >>"$buildlog" 2>&1 || failed build
	make -s install >>"$buildlog" 2>&1 || failed install
	# a regression test reads a CSV through file_fdw
	make -s -C contrib/file_fdw install >>"$buildlog" 2>&1 || failed "file_fdw build"
)
echo "$sum" >"$prefix/.bloomfilter-stamp"
chmod -R a+rX "$prefix"
echo "$prefix"
