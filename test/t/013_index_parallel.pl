# The parallel CREATE INDEX / REINDEX of a bloomfilter index (PostgreSQL
# 17 and later) gives the serial build's bytes.  Each case builds the same
# index serially (max_parallel_maintenance_workers = 0) and with two
# workers forced, and compares bloom_index_info (but for the index's name)
# and the md5 of bloom_index_snapshot; the DEBUG1 line of the build says
# that the workers took part (with parallel_leader_participation off they
# add every row) or why the build went serial.  The parallel index must
# find every row it was built from.  Cases: text, bigint, an expression,
# an array, a partial index, REINDEX, CONCURRENTLY, a table of the
# build's own transaction, two builds past stage 0, and the progress the
# leader reports for its workers.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

# the pg_config of the binaries in PATH (as 010_index_wal.pl)
my ($major) = `pg_config --version` =~ /PostgreSQL (\d+)/ or die 'pg_config --version';
plan skip_all => 'an index access method builds in parallel from PostgreSQL 17 '
  . "(amcanbuildparallel); $major builds the bloomfilter index serially"
  if $major < 17;

my $node = new_node('parallel');

$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE pt (url text, k bigint, tags text[]);
	INSERT INTO pt SELECT 'https://host' || (i % 1000) || '.example.org/' || md5(i::text), i,
	    ARRAY['t' || i, 'g' || (i % 777), NULL]
	  FROM generate_series(1, 200000) i;
	-- dead and recently updated rows: the participants share one horizon
	DELETE FROM pt WHERE k % 97 = 0;
	UPDATE pt SET url = url || '?v=2' WHERE k % 89 = 0;
	ALTER TABLE pt SET (parallel_workers = 2);
	ANALYZE pt;});

my $serial = 'SET max_parallel_maintenance_workers = 0;';
my $parallel = q{SET max_parallel_maintenance_workers = 2;
	SET min_parallel_table_scan_size = 0;
	SET maintenance_work_mem = '256MB';
	SET client_min_messages = debug1;};
my $live = $node->safe_psql('postgres', 'SELECT count(*) FROM pt');

# run $sql with parallel workers forced; the build's DEBUG1 line
sub build_parallel
{
	my ($sql, $leader) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"$parallel SET parallel_leader_participation = $leader; $sql");
	is($ret, 0, "$sql: succeeds") or diag($err);
	my ($line) = $err =~ /(bloomfilter index "[^"]*": [^\n]*)/;
	return $line // "(no line in: $err)";
}

# info and bits of $idx equal those of $ref
sub same_index
{
	my ($idx, $ref, $label) = @_;
	my $info = "(bloom_index_info('%s')::jsonb - 'index')::text";
	my $md5 = "md5(bytea(bloom_index_snapshot('%s')))";
	is($node->safe_psql('postgres', sprintf("SELECT $info", $idx)),
		$node->safe_psql('postgres', sprintf("SELECT $info", $ref)),
		"$label: bloom_index_info equals the serial build's");
	is($node->safe_psql('postgres', sprintf("SELECT $md5", $idx)),
		$node->safe_psql('postgres', sprintf("SELECT $md5", $ref)),
		"$label: the same bits as the serial build");
	return;
}

# name, key (column or expression), WITH, WHERE (partial), rows it holds
my @cases = (
	[ 'text', 'url', 'capacity = 300000', '', $live ],
	[ 'bigint', 'k', 'capacity = 300000', '', $live ],
	[ 'expr', '(lower(url))', 'capacity = 300000', '', $live ],
	[ 'array', 'tags', 'capacity = 300000', '', $live ],
	[ 'partial', 'url', 'capacity = 100000', 'WHERE k % 3 = 0',
		$node->safe_psql('postgres', 'SELECT count(*) FROM pt WHERE k % 3 = 0') ],);
foreach my $c (@cases)
{
	my ($name, $key, $with, $where, $rows) = @$c;
	my $ddl = "ON pt USING bloomfilter ($key) WITH ($with) $where";
	$node->safe_psql('postgres', "$serial CREATE INDEX ${name}_s $ddl");

	# the workers alone: they added every row
	my $line = build_parallel("CREATE INDEX ${name}_w $ddl", 'off');
	like($line, qr/parallel build by [12] of 2 planned workers, the workers added $rows of $rows table rows/,
		"$name: the workers added every row");
	same_index("${name}_w", "${name}_s", "$name, workers alone");

	# the workers and the leader
	$line = build_parallel("CREATE INDEX ${name}_p $ddl", 'on');
	like($line, qr/parallel build by \d+ of 2 planned workers and the leader/,
		"$name: workers and leader built it");
	same_index("${name}_p", "${name}_s", "$name, workers and leader");

	my $tab = $where eq '' ? 'pt' : "(SELECT * FROM pt $where) s";
	$tab = '(SELECT unnest(tags) AS tags FROM pt) s WHERE tags IS NOT NULL' if $name eq 'array';
	my $probe = $key =~ s/^\((.*)\)$/$1/r;
	is($node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE NOT bloom_index_contains('${name}_p', $probe)) FROM $tab"),
		'0', "$name: the parallel index finds every row");
}

# an index expression sees the build's search_path (pg_catalog, pg_temp
# from 17) and user in the workers as in the leader: a function (falsely
# IMMUTABLE) that appends them to the key gives the serial build's bits,
# and the workers alone added the keys with the leader's settings
{
	$node->safe_psql('postgres', q{
		CREATE FUNCTION public.pt_env(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
		AS $$ SELECT $1 || current_setting('search_path') || current_user $$;});
	my $ddl = 'ON pt USING bloomfilter (public.pt_env(url)) WITH (capacity = 300000)';
	$node->safe_psql('postgres', "$serial CREATE INDEX env_s $ddl");
	my $line = build_parallel("CREATE INDEX env_w $ddl", 'off');
	like($line, qr/the workers added $live of $live/, 'search_path: the workers built it');
	same_index('env_w', 'env_s', 'search_path');
	my $path = 'pg_catalog, pg_temp';	# index.c's RestrictSearchPath
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE NOT bloom_index_contains('env_w', url || '$path' || current_user))
		FROM pt}), '0', "search_path: the workers ran with search_path = $path");
}

# past capacity the serial build grows stage 1, which depends on the rows'
# order: the parallel build sees stage 0 fill (a participant's, or at
# capacity 150000 most likely only the union of the workers' halves, which
# the DEBUG1 line tells apart) and builds serially
foreach my $capacity (20000, 150000)
{
	my $ddl = "ON pt USING bloomfilter (url) WITH (capacity = $capacity)";
	$node->safe_psql('postgres', "$serial CREATE INDEX full${capacity}_s $ddl");
	my $line = build_parallel("CREATE INDEX full${capacity}_p $ddl", 'off');
	my $why = $capacity == 20000 ? qr/a participant's/ : qr/[^)]*/;
	like($line, qr/the rows fill stage 0 \($why\), so the build is serial/,
		"capacity $capacity: falls back to serial");
	cmp_ok(index_info($node, "full${capacity}_p", 'stages'), '>', 1,
		"capacity $capacity: it grew past stage 0");
	same_index("full${capacity}_p", "full${capacity}_s", "capacity $capacity, after the fallback");
	is(index_false_negatives($node, 'pt', "full${capacity}_p", 'url'), '0',
		"capacity $capacity: finds every row");
}

# REINDEX and CREATE INDEX CONCURRENTLY take the same path
{
	my $line = build_parallel('REINDEX INDEX text_p', 'off');
	like($line, qr/parallel build by [12] of 2 planned workers, the workers added $live of $live/,
		'REINDEX: the workers built it');
	same_index('text_p', 'text_s', 'REINDEX');

	$line = build_parallel(
		'CREATE INDEX CONCURRENTLY cic_p ON pt USING bloomfilter (k) WITH (capacity = 300000)', 'off');
	like($line, qr/parallel build by [12] of 2 planned workers/, 'CONCURRENTLY: the workers built it');
	same_index('cic_p', 'bigint_s', 'CONCURRENTLY');
	is(index_false_negatives($node, 'pt', 'cic_p', 'k'), '0', 'CONCURRENTLY: finds every row');
}

# a table made, filled and partly deleted in the build's own transaction:
# the workers see its rows as the leader does
{
	my ($ret, $out, $err) = $node->psql('postgres', qq{BEGIN;
		CREATE TABLE tx AS SELECT i::bigint AS k FROM generate_series(1, 100000) i;
		DELETE FROM tx WHERE k % 10 = 0;
		ALTER TABLE tx SET (parallel_workers = 2);
		$serial
		CREATE INDEX tx_s ON tx USING bloomfilter (k) WITH (capacity = 200000);
		$parallel
		SET parallel_leader_participation = off;
		CREATE INDEX tx_p ON tx USING bloomfilter (k) WITH (capacity = 200000);
		RESET client_min_messages;
		SELECT md5(bytea(bloom_index_snapshot('tx_s'))) = md5(bytea(bloom_index_snapshot('tx_p')));
		COMMIT;});
	is($ret, 0, 'same transaction: the builds succeed') or diag($err);
	like($err, qr/parallel build by [12] of 2 planned workers, the workers added 100000 of 100000/,
		'same transaction: the workers built it');
	is($out, 't', 'same transaction: the same bits as the serial build');
}

# progress: with the workers alone, the leader reports their rows and
# pages (a poller in the server watches, start_progress_poller).  The
# last rows are reported as the leader turns to the union and the pages,
# so the index is sized at ten times the rows, as in 012: its 36 MB keep
# that report up long enough for a poller on a loaded machine to see it
{
	$node->safe_psql('postgres', q{
		CREATE TABLE big (k bigint);
		INSERT INTO big SELECT g FROM generate_series(1, 3000000) g;
		ALTER TABLE big SET (parallel_workers = 2);
		ANALYZE big;});
	my $poller = start_progress_poller($node, 'big');
	my $line = build_parallel(
		'CREATE INDEX big_p ON big USING bloomfilter (k) WITH (capacity = 30000000)', 'off');
	like($line, qr/parallel build by [12] of 2 planned workers, the workers added 3000000 of 3000000/,
		'progress: the workers built it');
	my $seen = finish_progress_poller($poller);
	ok($seen->{seen}, 'progress: the poller saw the build');
	is($seen->{tuples}, 3000000, "progress: the workers' rows reported ($seen->{tuples} of $seen->{total})");
	my $nblocks = $node->safe_psql('postgres',
		q{SELECT pg_relation_size('big') / current_setting('block_size')::int});
	is($seen->{blocks}, $nblocks, "progress: every block reported ($seen->{blocks} of $nblocks)");
	is(index_false_negatives($node, 'big', 'big_p', 'k'), '0', 'progress: finds every row');
}

$node->stop;
done_testing();
