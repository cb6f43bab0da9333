# What the bloomfilter index promises about writes that do not commit,
# about options and dump/restore, and about its page format (issue 45;
# sql/index_promises.sql has the single-session cases):
#
# 1. A SERIALIZABLE transaction that fails at COMMIT with 40001 has
#    already added its elements (the adds go in before the serialization
#    check, with no hook after it): they read as present, false
#    positives, as doc/index.md says.
# 2. A prepared transaction's elements are in the index from PREPARE on:
#    other sessions find them before COMMIT PREPARED, and after ROLLBACK
#    PREPARED they stay, false positives; never a committed key missing.
# 3. ALTER INDEX refuses an option CREATE INDEX refuses, so a dump of the
#    database restores, index and all.
# 4. Pages carry the index's own page ID; an index of page format 1
#    (1.0's, with contrib/bloom's page ID) is read and written as before.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $dir = PostgreSQL::Test::Utils::tempdir();

my $node = new_node('promises');
$node->append_conf('postgresql.conf', "max_prepared_transactions = 4\n");
$node->restart;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

# ---- 1. 40001 at COMMIT ----
{
	$node->safe_psql('postgres', q{
		CREATE TABLE sk (k text, v int);
		CREATE INDEX sk_f ON sk USING bloomfilter (k) WITH (capacity = 100000);});
	my ($s1, $s2) = (session($node), session($node));
	# write skew: each reads what the other writes, and both write
	run_in($s1, 'BEGIN ISOLATION LEVEL SERIALIZABLE');
	run_in($s1, 'SELECT count(*) FROM sk WHERE v = 2');
	run_in($s2, 'BEGIN ISOLATION LEVEL SERIALIZABLE');
	run_in($s2, 'SELECT count(*) FROM sk WHERE v = 1');
	run_in($s1, "INSERT INTO sk VALUES ('s1-key', 1)");
	my (undef, $ierr) = run_in($s2,
		"INSERT INTO sk SELECT 's2-' || g, 2 FROM generate_series(1, 10000) g");
	is($ierr, '', '40001: the second transaction inserts its 10,000 rows');
	my (undef, $c1) = run_in($s1, 'COMMIT');
	is($c1, '', '40001: the first transaction commits');
	my (undef, $c2) = run_in($s2, 'COMMIT');
	like($c2, qr/could not serialize access/, '40001: the second fails at COMMIT');
	$_->{h}->finish for ($s1, $s2);

	is($node->safe_psql('postgres', "SELECT count(*) FROM sk WHERE k LIKE 's2-%'"), '0',
		'40001: none of its rows is in the table');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM generate_series(1, 10000) g WHERE bloom_index_contains('sk_f', 's2-' || g)"),
		'10000', '40001: its 10,000 keys read as present: false positives, as documented');
	is(index_false_negatives($node, 'sk', 'sk_f', 'k'), '0', '40001: every committed key is found');
}

# ---- 2. PREPARE TRANSACTION ----
{
	$node->safe_psql('postgres', q{
		CREATE TABLE pt (k text);
		CREATE INDEX pt_f ON pt USING bloomfilter (k) WITH (capacity = 100000);
		INSERT INTO pt SELECT 'committed-' || g FROM generate_series(1, 1000) g;});
	$node->safe_psql('postgres', q{
		BEGIN;
		INSERT INTO pt SELECT 'prepared-' || g FROM generate_series(1, 2000) g;
		PREPARE TRANSACTION 'pt_rollback';});
	my $found = "SELECT count(*) FROM generate_series(1, 2000) g WHERE bloom_index_contains('pt_f', 'prepared-' || g)";
	is($node->safe_psql('postgres', $found), '2000',
		'prepared: another session finds its keys before COMMIT PREPARED, as documented');
	$node->safe_psql('postgres', "ROLLBACK PREPARED 'pt_rollback'");
	is($node->safe_psql('postgres', "SELECT count(*) FROM pt WHERE k LIKE 'prepared-%'"), '0',
		'prepared: ROLLBACK PREPARED leaves no row');
	is($node->safe_psql('postgres', $found), '2000',
		'prepared: after ROLLBACK PREPARED its keys stay: false positives, as documented');

	# a prepared transaction that commits: found before and after
	$node->safe_psql('postgres', q{
		BEGIN;
		INSERT INTO pt SELECT 'later-' || g FROM generate_series(1, 500) g;
		PREPARE TRANSACTION 'pt_commit';});
	$node->safe_psql('postgres', "COMMIT PREPARED 'pt_commit'");
	is(index_false_negatives($node, 'pt', 'pt_f', 'k'), '0', 'prepared: every committed key is found');
}

# ---- 3. ALTER INDEX with bad options, then dump and restore ----
{
	$node->safe_psql('postgres', 'CREATE DATABASE src');
	$node->safe_psql('src', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE urls (url text);
		INSERT INTO urls SELECT 'https://alter.example/' || g FROM generate_series(1, 5000) g;
		CREATE INDEX urls_f ON urls USING bloomfilter (url) WITH (capacity = 10000);});
	foreach my $opt ('fpr = 0', 'fpr = 1', 'capacity = 2.5', 'capacity = 1e15, fpr = 1e-9')
	{
		my ($ret, $out, $err) = $node->psql('src', "ALTER INDEX urls_f SET ($opt)");
		isnt($ret, 0, "alter: SET ($opt) is refused");
		like($err, qr/invalid bloomfilter index options/, "alter: SET ($opt) says why");
	}
	is($node->safe_psql('src', "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'urls_f'"),
		'capacity=10000', 'alter: the options stored are the ones it was created with');
	my $file = "$dir/alter.dump";
	$node->command_ok([ 'pg_dump', '-Fc', '-d', 'src', '-f', $file ], 'alter: pg_dump -Fc');
	$node->safe_psql('postgres', 'CREATE DATABASE restored');
	$node->command_ok([ 'pg_restore', '-e', '-d', 'restored', $file ], 'alter: pg_restore exits 0');
	is($node->safe_psql('restored', "SELECT count(*) FROM pg_indexes WHERE indexname = 'urls_f'"), '1',
		'alter: the index is restored');
	is(index_false_negatives($node, 'urls', 'urls_f', 'url', 'restored'), '0',
		'alter: the restored index finds every key');
}

# ---- 4. page IDs and page format 1 ----
{
	# the pages are rewritten below, which a checksum would refuse
	my $num = $node->safe_psql('postgres', 'SHOW server_version_num');
	my $fmt = new_node('format', $num >= 180000 ? (extra => ['--no-data-checksums']) : ());
	$fmt->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE f1 (k text);
		INSERT INTO f1 SELECT 'f1-' || g FROM generate_series(1, 20000) g;
		CREATE INDEX f1_f ON f1 USING bloomfilter (k) WITH (capacity = 50000);});
	my $filepath = "SELECT pg_relation_filepath('f1_f')";
	my $path = $fmt->data_dir . '/' . $fmt->safe_psql('postgres', $filepath);
	$fmt->stop;

	my $blcksz = 8192;
	my $read_pages = sub {
		open my $fh, '<:raw', $path or die "$path: $!";
		local $/;
		my $all = <$fh>;
		close $fh;
		return map { substr($all, $_ * $blcksz, $blcksz) } 0 .. length($all) / $blcksz - 1;
	};
	# (format, the page IDs of the data pages written)
	my $ids = sub {
		my @pages = $read_pages->();
		my $format = unpack('V', substr($pages[0], 28, 4));
		my %ids;
		for my $p (@pages[ 1 .. $#pages ])
		{
			next if $p eq "\0" x $blcksz;
			$ids{ sprintf('0x%04X', unpack('v', substr($p, $blcksz - 2, 2))) }++;
		}
		return ($format, join(',', sort keys %ids));
	};
	my ($format, $idlist) = $ids->();
	is("$format $idlist", '2 0xFFBF', 'format: a new index is format 2, its pages with the page ID 0xFFBF');

	# make it what 1.0 wrote: format 1, contrib/bloom's page ID
	{
		my @pages = $read_pages->();
		substr($pages[0], 28, 4) = pack('V', 1);
		for my $p (@pages[ 1 .. $#pages ])
		{
			substr($p, $blcksz - 2, 2) = pack('v', 0xFF83) unless $p eq "\0" x $blcksz;
		}
		open my $fh, '>:raw', $path or die "$path: $!";
		print $fh join('', @pages);
		close $fh;
	}
	$fmt->start;
	is(index_false_negatives($fmt, 'f1', 'f1_f', 'k'), '0', 'format 1: every key is found');
	$fmt->safe_psql('postgres', "INSERT INTO f1 SELECT 'f1-more-' || g FROM generate_series(1, 30000) g");
	is(index_false_negatives($fmt, 'f1', 'f1_f', 'k'), '0', 'format 1: written to, every key is found');
	$fmt->stop;
	($format, $idlist) = $ids->();
	is("$format $idlist", '1 0xFF83', 'format 1: its new pages take its own page ID');
	$fmt->start;
	$fmt->safe_psql('postgres', 'REINDEX INDEX f1_f');
	$path = $fmt->data_dir . '/' . $fmt->safe_psql('postgres', $filepath);
	$fmt->stop;
	($format, $idlist) = $ids->();
	is("$format $idlist", '2 0xFFBF', 'format 1: REINDEX makes it format 2');
}
$node->stop;

# ---- 5. a fixed-size index's all-or-nothing flush, with the module's WAL ----
{
	my ($major) = `pg_config --version` =~ /PostgreSQL (\d+)/ or die 'pg_config --version';
	SKIP:
	{
		skip "custom WAL resource managers need PostgreSQL 15 or later (this is $major)", 5
		  if $major < 15;
		my $pre = PostgreSQL::Test::Cluster->new('preloaded');
		$pre->init;
		$pre->append_conf('postgresql.conf',
			"jit = off\nshared_preload_libraries = 'bloomfilter'\n");
		$pre->start;
		$pre->safe_psql('postgres', q{
			CREATE EXTENSION bloomfilter;
			CREATE TABLE fx (k text);
			CREATE INDEX fx_f ON fx USING bloomfilter (k) WITH (capacity = 10000, scalable = false);
			INSERT INTO fx SELECT 'fx-' || g FROM generate_series(1, 9000) g;});
		my $rate = "SELECT bloom_index_info('fx_f')->'stage_info'->0->>'rate_used'";
		my $before = $pre->safe_psql('postgres', $rate);
		my ($ret, undef, $err) = $pre->psql('postgres',
			"INSERT INTO fx SELECT 'fx-' || g FROM generate_series(9001, 14000) g");
		like($err, qr/is full/, 'preloaded: 5,000 more are refused (54000)');
		is($pre->safe_psql('postgres', $rate), $before, 'preloaded: and spend no rate');
		cmp_ok($pre->safe_psql('postgres',
				"SELECT count(*) FROM generate_series(9001, 14000) g WHERE bloom_index_contains('fx_f', 'fx-' || g)"),
			'<', 100, 'preloaded: the refused keys read as absent but for false positives');
		$pre->safe_psql('postgres', "INSERT INTO fx SELECT 'fx-' || g FROM generate_series(9001, 9500) g");
		is($pre->safe_psql('postgres', 'SELECT count(*) FROM fx'), '9500',
			'preloaded: 500 more, under the capacity, go in');
		is(index_false_negatives($pre, 'fx', 'fx_f', 'k'), '0', 'preloaded: every key is found');
		$pre->stop;
	}
}

done_testing();
