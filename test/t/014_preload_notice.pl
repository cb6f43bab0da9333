# A server that has not preloaded the module logs the index's adds as
# generic WAL; the first logged bloomfilter index a backend builds there
# says so once, with the fix (PostgreSQL 15 and later, where preloading
# gives the module's own records).  Not for an unlogged or temporary
# index, not with bloomfilter.index_wal = 'generic', not once preloaded.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $node = new_node('notice');
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE nt (k text);
	INSERT INTO nt SELECT 'k' || g FROM generate_series(1, 1000) g;});
my $has_own_wal = $node->safe_psql('postgres', 'SHOW server_version_num') >= 150000;

# the NOTICE lines psql printed for $sql, run in one session
sub notices
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, on_error_stop => 1);
	is($ret, 0, "runs: $sql") or diag($err);
	return scalar(() = $err =~ /NOTICE:  bloomfilter indexes write faster with the module preloaded/g);
}

my $build = 'CREATE INDEX nt_a ON nt USING bloomfilter (k); REINDEX INDEX nt_a; '
  . 'CREATE INDEX nt_b ON nt USING bloomfilter (k); DROP INDEX nt_a, nt_b;';
is(notices($build), $has_own_wal ? 1 : 0,
	'not preloaded: one NOTICE a backend' . ($has_own_wal ? '' : ' (none below 15)'));
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE INDEX nt_c ON nt USING bloomfilter (k)');
like($err, qr/HINT:  Add bloomfilter to shared_preload_libraries/, 'the NOTICE gives the fix')
  if $has_own_wal;
$node->safe_psql('postgres', 'DROP INDEX nt_c');

is(notices('CREATE UNLOGGED TABLE nu (k text); CREATE INDEX ON nu USING bloomfilter (k); '
	  . 'CREATE TEMP TABLE ntt (k text); CREATE INDEX ON ntt USING bloomfilter (k);'),
	0, 'no NOTICE for an unlogged or temporary index');
is(notices("SET bloomfilter.index_wal = 'generic'; CREATE INDEX nt_d ON nt USING bloomfilter (k); DROP INDEX nt_d;"),
	0, "no NOTICE with bloomfilter.index_wal = 'generic'");

$node->append_conf('postgresql.conf', "shared_preload_libraries = 'bloomfilter'");
$node->restart;
is(notices($build), 0, 'preloaded: no NOTICE');

$node->stop;
done_testing();
