# Replicas of a bloomfilter index kept current by bloom_index_sync while
# two writers commit (issue 49): after each sync every key committed
# before it is found by every replica; the replicas end equal to the
# index, bit for bit; REINDEX makes the next sync a resync; a replica
# synced from a streaming standby holds what the standby holds.  The
# replicas are the Python reader's (clients/python, bloomfilter_reader),
# driven by test/sync/replicas.py: python3 with psycopg2, xxhash and
# numpy (make test installs them), else skipped.
use strict;
use warnings;

use File::Basename qw(dirname);
use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $python = '/usr/bin/python3';
my $script = File::Spec->rel2abs(dirname(__FILE__) . '/../sync/replicas.py');
if (system($python, '-c', 'import psycopg2, xxhash, numpy') != 0)
{
	plan skip_all => 'python3 with psycopg2, xxhash and numpy is needed (make test installs them)';
}

my $node = new_node('sync', allows_streaming => 1);
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE t (k bigint);
	INSERT INTO t SELECT g FROM generate_series(1, 20000) g;
	-- small: the writers grow it stages while the replicas sync
	CREATE INDEX t_f ON t USING bloomfilter (k) WITH (capacity = 30000);
	CREATE TABLE sync_writers (w int);
	INSERT INTO sync_writers VALUES (1), (2);
	CREATE TABLE sync_done (w int);
	CREATE PROCEDURE write_keys(w int, batches int) LANGUAGE plpgsql AS $$
	BEGIN
		FOR b IN 1 .. batches LOOP
			INSERT INTO t SELECT w * 100000000 + b * 1000 + g FROM generate_series(1, 300) g;
			COMMIT;
			PERFORM pg_sleep(0.02);
		END LOOP;
		INSERT INTO sync_done VALUES (w);
	END $$;});
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('sync_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;

my $connstr = $node->connstr('postgres');
my @writers = map {
	IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $connstr,
		'-c', "CALL write_keys($_, 400)" ], '>', \my $out, '2>', \my $err,
		IPC::Run::timeout(600));
} (1, 2);

my ($out, $err) = ('', '');
my $ok = IPC::Run::run([ $python, $script, $connstr, 't_f', 't' ], '>', \$out, '2>', \$err,
	IPC::Run::timeout(600));
$_->finish for @writers;
foreach my $line (split /\n/, $out)
{
	ok($1 eq 'ok ', $2) if $line =~ /^(ok |not ok )- (.*)$/;
}
ok($ok, 'the replicas script exits 0') or diag($err);
is($node->safe_psql('postgres', 'SELECT count(*) FROM sync_done'), '2', 'both writers finished');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), 20000 + 2 * 400 * 300, 'every row committed');

$node->wait_for_catchup($standby);
($out, $err) = ('', '');
$ok = IPC::Run::run([ $python, $script, '--standby', $standby->connstr('postgres'), 't_f', 't' ],
	'>', \$out, '2>', \$err, IPC::Run::timeout(300));
foreach my $line (split /\n/, $out)
{
	ok($1 eq 'ok ', $2) if $line =~ /^(ok |not ok )- (.*)$/;
}
ok($ok, 'the standby replica script exits 0') or diag($err);

$standby->stop;
$node->stop;
done_testing();
