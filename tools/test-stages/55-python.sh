#!/usr/bin/env bash
# The Scrapy client (clients/python): its unit tests, the store against
# the running throwaway cluster, and an end-to-end crawl of Debian's
# python3-doc served on 127.0.0.1, with Scrapy's own duplicate filter and
# with PostgresDupeFilter in each mode (the same pages must be fetched).
# Debian's python3-scrapy, python3-psycopg2 and python3-doc are installed
# by make test's root set-up (tools/lib.sh, PYTHON_TEST_DEPS).  Only
# PostgreSQL 15 (Debian's): the client does not depend on the server's
# version beyond the extension's SQL.
set -euo pipefail
. tools/lib.sh
only_on_debian_pg python
# Debian's interpreter, where apt installed Scrapy (not a pyenv's first
# in PATH)
py=/usr/bin/python3
"$py" -c 'import scrapy, psycopg2' || {
	echo "python: python3-scrapy and python3-psycopg2 are not installed (make test installs them)"
	exit 1
}
[ -f /usr/share/doc/python3/html/index.html ] || {
	echo "python: no /usr/share/doc/python3/html (python3-doc; make test installs it)"
	exit 1
}
db=scrapy_check
PGOPTIONS="-c client_min_messages=warning" "$PG_BINDIR/psql" -X -q -d postgres \
	-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
trap '"$PG_BINDIR/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"' EXIT
export BLOOMFILTER_TEST_DSN="host=$PGHOST port=$PGPORT user=$PGUSER dbname=$db"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; "$PG_BINDIR/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"' EXIT
start=$(date +%s)
cd clients/python
TMPDIR=$tmp PYTHONDONTWRITEBYTECODE=1 "$py" -m unittest -v \
	tests.test_batching tests.test_postgres tests.test_crawl
echo "python: stage took $(($(date +%s) - start)) s"
