# The bloomfilter index access method through a server's life: crash
# recovery (a checkpoint-free WAL replay of a load that grew the index,
# killed while an uncommitted load was growing it further), streaming
# replication, pg_dump/pg_restore, CREATE INDEX and REINDEX CONCURRENTLY
# under concurrent inserts, and 8 concurrent writers forcing growth
# while readers probe what they commit.
# Each part has its own cluster.  The invariant checked everywhere: no
# committed key is ever missing from the index (0 false negatives).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use BFTest;

# ---- helpers ----

# pgbench with @args against $node; returns (ok, stdout, stderr)
sub pgbench
{
	my ($node, @args) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, @args, 'postgres' ],
		'>', \$out, '2>', \$err);
	return ($ok, $out, $err);
}

sub write_file
{
	my ($file, $text) = @_;
	open my $fh, '>', $file or die "$file: $!";
	print $fh $text;
	close $fh;
	return $file;
}

my $dir = PostgreSQL::Test::Utils::tempdir;

# ---- 1. crash recovery ----
# Every change after one explicit checkpoint is replayed from WAL: no
# checkpoint may run during the load (checkpoint_timeout, max_wal_size),
# and the walwriter is slowed so the uncommitted load's last WAL is
# still in shared memory when the server is killed.
{
	my $node = new_node('crash');
	$node->append_conf('postgresql.conf',
		"checkpoint_timeout = 1h\nmax_wal_size = 4GB\nautovacuum = off\n"
		  . "wal_writer_delay = 10s\nwal_buffers = 32MB\n");
	$node->restart;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE urls (url text);
		CREATE INDEX urls_f ON urls USING bloomfilter (url) WITH (capacity = 20000, fpr = 0.01);
		CREATE TABLE tags (id int, a text[]);
		CREATE INDEX tags_f ON tags USING bloomfilter (a) WITH (capacity = 20000);
		CHECKPOINT;});
	my $redo = $node->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()');
	my $load_start = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');

	# an uncommitted transaction open through the whole committed load
	my $bg = session($node);
	bg_query($bg, 'BEGIN');
	bg_query($bg, "INSERT INTO urls SELECT 'https://uncommitted.example/' || g FROM generate_series(1, 5000) g");

	my $t0 = time;
	foreach my $b (1 .. 20)
	{
		$node->safe_psql('postgres',
			"INSERT INTO urls SELECT 'https://crash.example/$b/' || g FROM generate_series(1, 5000) g");
	}
	# arrays: an entry for each of 50 x 1000 items
	$node->safe_psql('postgres', q{
		INSERT INTO tags SELECT r, ARRAY(SELECT 'tag-' || r || '-' || i FROM generate_series(1, 1000) i)
		FROM generate_series(1, 50) r});
	note sprintf('crash: 100000 keys committed in 20 transactions in %.1f s', time - $t0);
	my $stages = index_info($node, 'urls_f', 'stages');
	cmp_ok($stages, '>', 1, "crash: the load grew the index to $stages stages");
	cmp_ok(index_info($node, 'tags_f', 'stages'), '>', 1, 'crash: the array load grew its index');

	# the uncommitted load grows the index once more, then the kill (a
	# transaction's entries go in at commit, or when it probes the index
	# itself, as here)
	my $grown = 0;
	foreach my $b (1 .. 40)
	{
		bg_query($bg,
			"INSERT INTO urls SELECT 'https://uncommitted.example/$b/' || g FROM generate_series(1, 2000) g");
		bg_query($bg, "SELECT bloom_index_contains('urls_f', 'x')");
		if (index_info($node, 'urls_f', 'stages') > $stages)
		{
			$grown = 1;
			last;
		}
	}
	ok($grown, 'crash: the uncommitted load grew a stage before the kill');
	is($node->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()'),
		$redo, 'crash: no checkpoint ran during the load');

	my $log_offset = -s $node->logfile;
	my $pm = $node->{_pid};
	my @children = split ' ', `ps -o pid= --ppid $pm`;
	kill 9, $pm, @children;
	$node->{_pid} = undef;
	for (1 .. 100)
	{
		last unless grep { kill 0, $_ } ($pm, @children);
		usleep(100_000);
	}
	$bg->{h}->kill_kill;
	$node->start;

	my ($replayed_from) =
	  substr(slurp_file($node->logfile), $log_offset) =~ m{redo starts at ([0-9A-F]+/[0-9A-F]+)};
	ok(defined $replayed_from
		  && $node->safe_psql('postgres', "SELECT '$replayed_from'::pg_lsn <= '$load_start'::pg_lsn") eq 't',
		'crash: recovery replayed WAL from ' . ($replayed_from // '(no redo)')
		  . ", before the load ($load_start)");

	is($node->safe_psql('postgres', 'SELECT count(*) FROM urls'), '100000',
		'crash: the committed rows are there, the uncommitted are not');
	is(index_false_negatives($node, 'urls', 'urls_f', 'url'), '0',
		'crash: every committed key is found after recovery');
	cmp_ok(index_info($node, 'urls_f', 'stages'), '>=', $stages, 'crash: the stages survived');
	is($node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE NOT bloom_index_contains('tags_f', x)) || '/' || count(*) "
			  . 'FROM tags, unnest(a) x'),
		'0/50000', 'crash: every array item is found (scalar probe)');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM tags WHERE false = ANY (bloom_index_contains('tags_f', a))"),
		'0', 'crash: every array item is found (array probe)');
	cmp_ok($node->safe_psql('postgres',
			"SELECT count(*) FROM generate_series(1, 10000) i "
			  . "WHERE bloom_index_contains('tags_f', 'absent-' || i)"),
		'<', 300, 'crash: absent array items are mostly not found');

	# the index keeps working and growing after recovery (the relation
	# may have blocks of a stage whose WAL was lost with the kill)
	my $before = index_info($node, 'urls_f', 'stages');
	my ($rc, $err) = (0, '');
	foreach my $b (1 .. 20)
	{
		($rc, undef, $err) = $node->psql('postgres',
			"INSERT INTO urls SELECT 'https://after.example/$b/' || g FROM generate_series(1, 10000) g");
		last if $rc != 0 || index_info($node, 'urls_f', 'stages') > $before;
	}
	is($rc, 0, 'crash: inserts after recovery that need a new stage succeed') or diag($err);
	cmp_ok(index_info($node, 'urls_f', 'stages'), '>', $before, 'crash: the index grew after recovery');
	is(index_false_negatives($node, 'urls', 'urls_f', 'url'), '0',
		'crash: every key is found after the post-recovery load');
	$node->stop;
}

# ---- 2. streaming standby ----
{
	my $primary = new_node('primary', allows_streaming => 1);
	# the adds' generic records carry page images the standby checks its
	# replay against (bloomindex_wal.c writes these records itself)
	$primary->append_conf('postgresql.conf', "wal_consistency_checking = 'generic'");
	$primary->reload;
	$primary->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE urls (id bigint, url text);
		INSERT INTO urls SELECT g, 'https://standby.example/' || g FROM generate_series(1, 10000) g;
		CREATE INDEX urls_f ON urls USING bloomfilter (url) WITH (capacity = 20000, fpr = 0.01);});
	$primary->backup('base');
	my $standby = PostgreSQL::Test::Cluster->new('standby');
	$standby->init_from_backup($primary, 'base', has_streaming => 1);
	$standby->start;

	# after the backup: inserts that grow stages, and a new index (built,
	# then logged whole) maintained by inserts too
	$primary->safe_psql('postgres',
		'CREATE INDEX urls_id ON urls USING bloomfilter (id) WITH (capacity = 5000, fpr = 0.02)');
	foreach my $b (1 .. 10)
	{
		my ($lo, $hi) = (10000 * $b + 1, 10000 * ($b + 1));
		$primary->safe_psql('postgres',
			"INSERT INTO urls SELECT g, 'https://standby.example/' || g FROM generate_series($lo, $hi) g");
	}
	cmp_ok(index_info($primary, 'urls_f', 'stages'), '>', 1, 'standby: the primary index grew after the backup');
	$primary->wait_for_catchup($standby);

	foreach my $idx ('urls_f', 'urls_id')
	{
		my $col = $idx eq 'urls_f' ? 'url' : 'id';
		is(index_false_negatives($standby, 'urls', $idx, $col), '0', "standby: $idx finds every key");
		index_matches($standby, $primary, $idx, 'standby');
	}
	my $fp = absent_found($standby, 'urls_f');
	cmp_ok($fp, '<', 300, "standby: $fp of 10000 absent keys found (target rate 0.01)");
	$standby->stop;
	unlike(slurp_file($standby->logfile), qr/inconsistent page|PANIC/,
		'standby: replay matched every page image (wal_consistency_checking)');
	$primary->stop;
}

# ---- 3. pg_dump -Fc / pg_restore ----
{
	my $node = new_node('dump');
	$node->safe_psql('postgres', 'CREATE DATABASE src');
	$node->safe_psql('src', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE urls (id bigint, url text);
		INSERT INTO urls SELECT g, 'https://dump.example/' || g FROM generate_series(1, 10000) g;
		CREATE INDEX urls_f ON urls USING bloomfilter (url)
			WITH (capacity = 100000, fpr = 0.01, scalable = false);
		CREATE INDEX urls_id ON urls USING bloomfilter (id) WITH (capacity = 2000, fpr = 0.02);
		CREATE INDEX urls_lower ON urls USING bloomfilter (lower(url)) WITH (capacity = 5000);
		INSERT INTO urls SELECT g, 'https://Dump.example/' || g FROM generate_series(10001, 40000) g;});
	my $file = "$dir/index.dump";
	$node->command_ok([ 'pg_dump', '-Fc', '-d', 'src', '-f', $file ], 'dump: pg_dump -Fc');
	$node->safe_psql('postgres', 'CREATE DATABASE restored');
	$node->command_ok([ 'pg_restore', '-e', '-d', 'restored', $file ], 'dump: pg_restore');

	my %def = map { split /\|/, $_, 2 } split /\n/, $node->safe_psql('restored',
		"SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'urls'");
	like($def{urls_f} // '',
		qr/USING bloomfilter \(url\) WITH \(capacity='?100000'?, fpr='?0\.01'?, scalable='?false'?\)/,
		'dump: urls_f restored as a bloomfilter index with its options');
	like($def{urls_id} // '', qr/USING bloomfilter \(id\) WITH \(capacity='?2000'?, fpr='?0\.02'?\)/,
		'dump: urls_id restored with its options');
	like($def{urls_lower} // '', qr/USING bloomfilter \(lower\(url\)\) WITH \(capacity='?5000'?\)/,
		'dump: the expression index restored with its options');

	is(index_false_negatives($node, 'urls', 'urls_f', 'url', 'restored'), '0', 'dump: urls_f finds every key');
	is(index_false_negatives($node, 'urls', 'urls_id', 'id', 'restored'), '0', 'dump: urls_id finds every key');
	is(index_false_negatives($node, 'urls', 'urls_lower', 'lower(url)', 'restored'), '0',
		'dump: the expression index finds every key');
	cmp_ok(index_info($node, 'urls_id', 'stages', 'src'), '>', 1, 'dump: urls_id had grown stages');

	# one stage each: the restored build sets exactly the bits the
	# original's build and inserts did
	is(index_info($node, 'urls_f', 'stages', 'src') . '/' . index_info($node, 'urls_f', 'stages', 'restored'),
		'1/1', 'dump: urls_f has one stage in both');
	my $snap = "SELECT md5(bytea(bloom_index_snapshot('urls_f')))";
	is($node->safe_psql('restored', $snap), $node->safe_psql('src', $snap),
		'dump: the restored urls_f has the same bits as the original');
	$node->stop;
}

# ---- 4. CREATE INDEX CONCURRENTLY and REINDEX CONCURRENTLY under inserts ----
{
	my $node = new_node('concurrently');
	$node->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE urls (url text);
		INSERT INTO urls SELECT 'https://pre.example/' || g FROM generate_series(1, 20000) g;});
	my $script = write_file("$dir/cic.sql",
		"INSERT INTO urls SELECT 'https://cic.example/' || :client_id || '-' || g || '-' || random() "
		  . "FROM generate_series(1, 20) g;\n");
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'pgbench', '-n', '-c', 2, '-j', 1, '-T', 10, '-R', 100, '-h', $node->host, '-p', $node->port,
			'-f', $script, 'postgres' ],
		'>', \$out, '2>', \$err);
	$node->poll_query_until('postgres', 'SELECT count(*) > 21000 FROM urls')
	  or die 'pgbench inserted nothing';

	my $n0 = $node->safe_psql('postgres', 'SELECT count(*) FROM urls');
	$node->safe_psql('postgres',
		'CREATE INDEX CONCURRENTLY urls_f ON urls USING bloomfilter (url) WITH (capacity = 20000)');
	my $n1 = $node->safe_psql('postgres', 'SELECT count(*) FROM urls');
	cmp_ok($n1, '>', $n0, 'concurrently: ' . ($n1 - $n0) . ' rows inserted while CREATE INDEX CONCURRENTLY ran');
	$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY urls_f');
	my $n2 = $node->safe_psql('postgres', 'SELECT count(*) FROM urls');
	cmp_ok($n2, '>', $n1, 'concurrently: ' . ($n2 - $n1) . ' rows inserted while REINDEX CONCURRENTLY ran');
	# and some more after it, into the rebuilt index
	$node->poll_query_until('postgres', "SELECT count(*) > $n2 + 1000 FROM urls")
	  or die 'pgbench stopped';
	ok($h->finish, 'concurrently: pgbench ran to the end') or diag($err);
	my ($failed) = $out =~ /number of failed transactions: (\d+)/;
	is($failed // 0, 0, 'concurrently: no failed transactions');

	my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM urls');
	is(index_false_negatives($node, 'urls', 'urls_f', 'url'), '0',
		"concurrently: every one of $n rows is found");
	is($node->safe_psql('postgres',
			"SELECT string_agg(c.relname || ' ' || i.indisvalid || ' ' || i.indisready, ', ') "
			  . "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
			  . "WHERE i.indrelid = 'urls'::regclass"),
		'urls_f true true', 'concurrently: one index, valid and ready, nothing left over');
	$node->stop;
}

# ---- 5. 8 concurrent writers forcing growth, 2 readers racing them ----
# The readers probe the last 2,000 rows their snapshot sees, by each
# probe function, and keep any row not found: probes read the pages
# without a content lock (doc/index.md, "Locking"), so a key committed
# before the probe must be found however the probe races the adds and
# the growth.
{
	my $node = new_node('writers');
	$node->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE urls (id bigserial PRIMARY KEY, url text);
		CREATE INDEX urls_f ON urls USING bloomfilter (url) WITH (capacity = 10000, fpr = 0.01);
		CREATE TABLE misses (id bigint, probe text);
		CREATE SEQUENCE reads;});
	my $script = write_file("$dir/writers.sql",
		"INSERT INTO urls (url) SELECT :client_id || '-' || g || '-' || random() FROM generate_series(1, 100) g;\n");
	my $recent = 'FROM urls WHERE id > (SELECT max(id) FROM urls) - 2000';
	my $readers = write_file("$dir/readers.sql",
		"INSERT INTO misses SELECT id, 'scalar' $recent AND NOT bloom_index_contains('urls_f', url);\n"
		  . "INSERT INTO misses SELECT 0, 'array' FROM (SELECT array_agg(url) AS a $recent) r "
		  . "WHERE false = ANY (bloom_index_contains('urls_f', r.a));\n"
		  . "INSERT INTO misses SELECT 0, 'absent' FROM (SELECT array_agg(url) AS a $recent) r "
		  . "WHERE cardinality(bloom_index_absent('urls_f', r.a)) > 0;\n"
		  . "SELECT nextval('reads');\n");
	my ($rout, $rerr) = ('', '');
	my $rh = IPC::Run::start(
		[ 'pgbench', '-n', '-c', 2, '-j', 1, '-T', 600, '-h', $node->host, '-p', $node->port,
			'-f', $readers, 'postgres' ],
		'>', \$rout, '2>', \$rerr);
	$node->poll_query_until('postgres', "SELECT last_value > 1 FROM reads")
	  or die "the readers did not start: $rerr";
	my ($clients, $tx) = (8, 150);
	my $t0 = time;
	my ($ok, $out, $err) = pgbench($node, '-c', $clients, '-j', 2, '-t', $tx, '-f', $script);
	my $secs = time - $t0;
	my $reads = $node->safe_psql('postgres', 'SELECT last_value FROM reads');
	$rh->kill_kill;
	cmp_ok($reads, '>', 10, "writers: the readers probed $reads times while they wrote");
	unlike($rerr, qr/abort|ERROR/, 'writers: no reader failed');
	is($node->safe_psql('postgres', "SELECT count(*) || ' ' || coalesce(string_agg(DISTINCT probe, ','), '') FROM misses"),
		'0 ', 'writers: no reader missed a committed row') or diag($rerr);
	ok($ok, "writers: pgbench, $clients clients x $tx transactions") or diag($err);
	my ($failed) = $out =~ /number of failed transactions: (\d+)/;
	is($failed // 0, 0, 'writers: no failed transactions');
	my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM urls');
	is($n, $clients * $tx * 100, "writers: all $n rows committed");
	note sprintf('writers: %d rows by %d clients in %.1f s: %.0f rows/s into the indexed table',
		$n, $clients, $secs, $n / $secs);
	my $stages = index_info($node, 'urls_f', 'stages');
	cmp_ok($stages, '>', 1, "writers: the index grew to $stages stages under concurrency");
	is(index_false_negatives($node, 'urls', 'urls_f', 'url'), '0', 'writers: every row is found');
	cmp_ok($node->safe_psql('postgres',
			"SELECT count(*) FROM generate_series(1, 10000) i "
			  . "WHERE bloom_index_contains('urls_f', 'absent-' || i)"),
		'<', 300, 'writers: absent keys are mostly not found');
	$node->stop;
}

done_testing();
