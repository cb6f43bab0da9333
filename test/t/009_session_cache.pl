# The session cache of stored filters (argcache.c) cannot be fooled by a
# TOAST value OID used again.  A value's OID is free again once its chunks
# are vacuumed away, but the server hands it out again only after the OID
# counter wraps (4 billion OIDs), so the test writes the new value under
# the old OID itself: a small C module (built here against the server's
# headers) stores a value through toast_save_datum as a table rewrite
# does, asking for a given OID, and builds the toast pointer a row would
# hold.  A session that has cached the old value, kept open throughout,
# must then answer from the new one, both when another backend wrote it
# and when the session itself did, and on a hot standby that replayed it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $dir = PostgreSQL::Test::Utils::tempdir;
my $src = "$dir/toast_reuse.c";
open my $fh, '>', $src or die "$src: $!";
print $fh <<'C';
#include "postgres.h"
#include "access/table.h"
#include "access/detoast.h"
#include "access/toast_internals.h"
#include "fmgr.h"
#include "utils/rel.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

PG_MODULE_MAGIC;

/* an on-disk toast pointer to an uncompressed value of size bytes */
static struct varlena *
pointer(Oid toastrelid, Oid valueid, int32 size)
{
	struct varatt_external tp;
	struct varlena *p = palloc(TOAST_POINTER_SIZE);

	tp.va_rawsize = size;
	tp.va_extinfo = size - VARHDRSZ;
	tp.va_valueid = valueid;
	tp.va_toastrelid = toastrelid;
	SET_VARTAG_EXTERNAL(p, VARTAG_ONDISK);
	memcpy(VARDATA_EXTERNAL(p), &tp, sizeof(tp));
	return p;
}

/* toast_ptr(tab, valueid, size): the pointer a row of tab would hold */
PG_FUNCTION_INFO_V1(toast_ptr);
Datum
toast_ptr(PG_FUNCTION_ARGS)
{
	Relation	rel = table_open(PG_GETARG_OID(0), AccessShareLock);
	Oid			toastrelid = rel->rd_rel->reltoastrelid;

	table_close(rel, AccessShareLock);
	PG_RETURN_POINTER(pointer(toastrelid, PG_GETARG_OID(1), PG_GETARG_INT32(2)));
}

/*
 * toast_store(tab, valueid, v): store v in tab's toast table under OID
 * valueid if that OID is free there (the rewrite path of toast_save_datum
 * keeps the OID of the value it copies), and return the OID used
 */
PG_FUNCTION_INFO_V1(toast_store);
Datum
toast_store(PG_FUNCTION_ARGS)
{
	Relation	rel = table_open(PG_GETARG_OID(0), RowExclusiveLock);
	struct varlena *v = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(2));
	Oid			toastrelid = rel->rd_rel->reltoastrelid;
	struct varatt_external tp;
	Datum		p;

	rel->rd_toastoid = toastrelid;
	p = toast_save_datum(rel, PointerGetDatum(v),
						 pointer(toastrelid, PG_GETARG_OID(1), VARSIZE(v)), 0);
	rel->rd_toastoid = InvalidOid;
	table_close(rel, NoLock);
	VARATT_EXTERNAL_GET_POINTER(tp, DatumGetPointer(p));
	PG_RETURN_OID(tp.va_valueid);
}
C
close $fh;

my $primary = new_node('primary', allows_streaming => 1);
# the server's own headers (a pg_config on PATH may be another major's)
my $inc = $primary->safe_psql('postgres',
	"SELECT setting FROM pg_config WHERE name = 'INCLUDEDIR-SERVER'");
my ($out, $err) = ('', '');
IPC::Run::run([ 'gcc', '-O0', '-fPIC', '-shared', "-I$inc", '-o', "$dir/toast_reuse.so", $src ],
	'>', \$out, '2>', \$err)
  or BAIL_OUT("building the test module: $err");
$primary->append_conf('postgresql.conf', "autovacuum = off\n");
$primary->restart;
$primary->safe_psql('postgres', qq{
	CREATE EXTENSION bloomfilter;
	CREATE FUNCTION toast_ptr(regclass, oid, int) RETURNS bloomfilter
	  AS '$dir/toast_reuse.so' LANGUAGE C STRICT;
	CREATE FUNCTION toast_store(regclass, oid, bloomfilter) RETURNS oid
	  AS '$dir/toast_reuse.so' LANGUAGE C STRICT;
	CREATE TABLE t (id int, f bloomfilter);
	ALTER TABLE t ALTER COLUMN f SET STORAGE external;});
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

my $toast = $primary->safe_psql('postgres',
	"SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 't'");

# value $n: the filter of keys "$n:1" .. "$n:3000", all of one size
sub value_sql
{
	my ($n) = @_;
	return "(SELECT bloom_agg('$n:' || i, 100000, 0.01) FROM generate_series(1, 3000) i)";
}

# store value $n in a row of t (whose toast table holds no other value);
# returns its toast OID and size
sub insert_value
{
	my ($n) = @_;
	return split /\|/, $primary->safe_psql('postgres', qq{
		INSERT INTO t VALUES ($n, @{[value_sql($n)]});
		SELECT (SELECT DISTINCT chunk_id FROM $toast), octet_length(f::bytea) + 4
		FROM t WHERE id = $n});
}

# how many of value $n's 3000 keys the filter behind the pointer has,
# through the cache and through a fresh detoast (an in-memory copy)
sub probe
{
	my ($s, $oid, $size, $n) = @_;
	return bg_query($s, qq{
		SELECT count(*) FILTER (WHERE bloom_contains(toast_ptr('t', $oid, $size), '$n:' || i))
		       || ' ' || count(*) FILTER (WHERE bloom_contains(toast_ptr('t', $oid, $size)::bytea::bloomfilter, '$n:' || i))
		FROM generate_series(1, 3000) i});
}

sub stale
{
	my ($s) = @_;
	my $stats = bg_query($s, 'SHOW bloomfilter.session_cache_stats');
	return $stats =~ /stale=(\d+)/ ? $1 : -1;
}

# delete value $n's row, vacuum its chunks away, and store value $m under
# its OID through session $writer (a bg session) or a new backend
sub reuse
{
	my ($oid, $n, $m, $writer) = @_;
	$primary->safe_psql('postgres', "DELETE FROM t WHERE id = $n");
	$primary->safe_psql('postgres', 'VACUUM t');
	is($primary->safe_psql('postgres', "SELECT count(*) FROM $toast WHERE chunk_id = $oid"),
		'0', "value $n: its chunks are gone after VACUUM");
	my $sql = "SELECT toast_store('t', $oid, @{[value_sql($m)]})";
	my $got = $writer ? bg_query($writer, $sql) : $primary->safe_psql('postgres', $sql);
	is($got, $oid, "value $m stored under value $n\'s OID $oid");
}

# 1. another backend reuses the OID
my $a = session($primary);
my ($oid, $size) = insert_value(1);
is(probe($a, $oid, $size, 1), '3000 3000', 'session A reads value 1');
is(probe($a, $oid, $size, 1), '3000 3000', 'session A answers from its cache');
like(bg_query($a, 'SHOW bloomfilter.session_cache_stats'), qr/entries=1 .* hits=[1-9]/,
	'session A kept value 1 and used it again');
reuse($oid, 1, 2);
is(probe($a, $oid, $size, 2), '3000 3000', 'session A answers from value 2, not its cached value 1');
is(probe($a, $oid, $size, 1), '0 0', 'and has none of value 1 left');
is(stale($a), 1, 'session A saw its copy was stale');

# 2. the caching session itself reuses it
$primary->safe_psql('postgres', "TRUNCATE t");
($oid, $size) = insert_value(3);
is(probe($a, $oid, $size, 3), '3000 3000', 'session A reads value 3');
reuse($oid, 3, 4, $a);
is(probe($a, $oid, $size, 4), '3000 3000', 'session A answers from the value 4 it stored itself');
is(stale($a), 2, 'session A saw its copy of value 3 was stale');

# a load cut short by an error (a missing chunk) and caught in PL/pgSQL,
# three times at one call site: nothing is left in the session cache
like($primary->safe_psql('postgres', qq{
	DO \$\$ BEGIN
	  FOR i IN 1..3 LOOP
	    BEGIN
	      PERFORM bloom_contains(toast_ptr('t', 4000000000, $size), 'x');
	    EXCEPTION WHEN OTHERS THEN NULL;
	    END;
	  END LOOP;
	END \$\$;
	SHOW bloomfilter.session_cache_stats}), qr/^entries=0 bytes=0 /,
	'loads an error interrupted leave nothing behind');

# 3. a hot standby's session, while the primary reuses the OID
$primary->safe_psql('postgres', "TRUNCATE t");
($oid, $size) = insert_value(5);
$primary->wait_for_catchup($standby);
my $sb = session($standby);
is(probe($sb, $oid, $size, 5), '3000 3000', 'standby session reads value 5');
is(probe($sb, $oid, $size, 5), '3000 3000', 'standby session answers from its cache');
reuse($oid, 5, 6);
$primary->wait_for_catchup($standby);
is(probe($sb, $oid, $size, 6), '3000 3000', 'standby session answers from value 6 after replay');
is(stale($sb), 1, 'standby session saw its copy was stale');

$a->{in} .= "\\q\n";
$a->{h}->finish;
$sb->{in} .= "\\q\n";
$sb->{h}->finish;
done_testing();
