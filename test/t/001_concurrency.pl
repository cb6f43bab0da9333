# Concurrency: for each filter type in turn, 8 clients adding distinct
# keys to one row with UPDATE ... SET f = <type>_add(f, key) for BF_CONCURRENCY_SECONDS
# (default 20).  Each transaction records its key in a second table, so
# afterwards every committed key must be in the filter: no update is lost.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $secs = $ENV{BF_CONCURRENCY_SECONDS} // 20;
my $clients = $ENV{BF_CONCURRENCY_CLIENTS} // 8;

my $node = new_node('concurrency');
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
my @types = present_types($node, 'postgres', lossless => 1);
ok(@types >= 1, 'at least one filter type to test: ' . join(', ', map { $_->{type} } @types));

$node->safe_psql('postgres',
	"CREATE TABLE committed (t text, k text); CREATE SEQUENCE keyseq;");
my $dir = PostgreSQL::Test::Utils::tempdir;
foreach my $t (@types)
{
	my $tab = "filt_$t->{type}";
	$node->safe_psql('postgres',
		"CREATE TABLE $tab (id int PRIMARY KEY, f $t->{type}); "
		  . "INSERT INTO $tab VALUES (1, $t->{create});");
	my $file = "$dir/$t->{type}.sql";
	open my $fh, '>', $file or die $!;
	print $fh <<"SQL";
BEGIN;
SELECT nextval('keyseq') AS n \\gset
UPDATE $tab SET f = $t->{add}(f, 'key-' || :n) WHERE id = 1;
INSERT INTO committed VALUES ('$t->{type}', 'key-' || :n);
END;
SQL
	close $fh;

	# one pgbench run per type: all clients on that type's one row
	my ($out, $err) = ('', '');
	my @cmd = (
		'pgbench', '-n', '-c', $clients, '-j', 2, '-T', $secs,
		'-h', $node->host, '-p', $node->port, '-f', $file, 'postgres');
	my $ok = IPC::Run::run(\@cmd, '>', \$out, '2>', \$err);
	ok($ok, "$t->{type}: pgbench, $clients clients for $secs s") or diag($err);
	my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
	my ($failed) = $out =~ /number of failed transactions: (\d+)/;
	my ($tps) = $out =~ /tps = ([\d.]+)/;
	$t->{tps} = $tps;
	note "$t->{type}: pgbench: $tx transactions, tps $tps" . (defined $failed ? ", $failed failed" : '');
	is($failed // 0, 0, "$t->{type}: no failed transactions");
}

foreach my $t (@types)
{
	my $tab = "filt_$t->{type}";
	my $n = $node->safe_psql('postgres',
		"SELECT count(*) FROM committed WHERE t = '$t->{type}'");
	my $missing = $node->safe_psql('postgres',
		"SELECT count(*) FROM committed c, $tab x "
		  . "WHERE c.t = '$t->{type}' AND x.id = 1 AND NOT $t->{contains}(x.f, c.k)");
	ok($n > 0, "$t->{type}: $n keys committed by concurrent updates");
	is($missing, '0', "$t->{type}: every committed key is present");
	is($node->safe_psql('postgres', "SELECT " . valid_sql($t->{type}, 'f') . " FROM $tab"),
		't', "$t->{type}: the filter validates");
	if ($t->{type} eq 'bloomfilter')
	{
		my $est = $node->safe_psql('postgres',
			"SELECT bloom_cardinality(f) FROM $tab");
		ok(abs($est - $n) <= 0.1 * $n + 10,
			"bloomfilter: cardinality estimate $est for $n keys");
	}
	# report figures for the record
	diag(sprintf("concurrency %s: %d keys committed by %d clients on one row in %d s (%.0f tps), 0 lost",
			$t->{type}, $n, $clients, $secs, $t->{tps}))
	  if $missing eq '0';
}

$node->stop;
done_testing();
