# Sourced by bench/ab.sh and bench/mem_ab.sh, two A/Bs of builds of the
# extension on one running server, called as  script A.so B.so "SQL" [rounds]:
# checks those arguments, sets build_a, build_b and sql, and defines
# use_build A|B, which copies that build over bloomfilter.so in
# PostgreSQL's pkglibdir (a new session then loads it).  The installed
# bloomfilter.so is put back when the script exits, whatever happens.
[ $# -ge 3 ] || { echo "usage: $0 A.so B.so \"SQL\" [rounds]" >&2; exit 2; }
build_a=$1 build_b=$2 sql=$3
lib=$(pg_config --pkglibdir)/bloomfilter.so
saved=$(mktemp)
# -p: the saved copy keeps the installed file's mode (mktemp's is 0600,
# which the server's user cannot load once it is put back)
cp -p "$lib" "$saved"
# replace the file, never rewrite it in place: a backend that still maps
# the old one (one exiting after its round) dies of SIGBUS if its pages
# change under it (seen: three crash restarts of the dev cluster in one
# A/B run with cp)
put_build() {
	cp "$1" "$lib.ab.$$" && chmod --reference="$saved" "$lib.ab.$$" && mv -f "$lib.ab.$$" "$lib"
}
trap 'put_build "$saved"; rm -f "$saved"' EXIT

use_build() {
	if [ "$1" = A ]; then put_build "$build_a"; else put_build "$build_b"; fi
}
