# Streaming replication: a standby replays filter creation, in-place adds,
# growth and aggregates, and has byte-identical filters that answer the
# same, before and after a restart of the standby.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $primary = new_node('primary', allows_streaming => 1);
$primary->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

my @types = present_types($primary, 'postgres');
foreach my $t (@types)
{
	my $tab = "filt_$t->{type}";
	$primary->safe_psql('postgres',
		"CREATE TABLE $tab (id int PRIMARY KEY, f $t->{type}); "
		  . "INSERT INTO $tab VALUES (1, $t->{create}), (2, $t->{big})");
	$primary->safe_psql('postgres',
		"DO \$\$ BEGIN FOR i IN 1..500 LOOP "
		  . "UPDATE $tab SET f = $t->{add}(f, 'k' || i) WHERE id = 1 OR i % 5 = 0; END LOOP; END \$\$");
}
if (grep { $_->{type} eq 'bloomfilter' } @types)
{
	$primary->safe_psql('postgres', q{
		INSERT INTO filt_bloomfilter VALUES
		  (3, (SELECT bloom_agg(g) FROM generate_series(1, 100000) g)),
		  (4, (SELECT bloom_add(bloom_create(50, 0.01), array_agg(g::bigint)) FROM generate_series(1, 3000) g))});
}
$primary->wait_for_catchup($standby);

sub compare
{
	my ($when) = @_;
	foreach my $t (@types)
	{
		my $tab = "filt_$t->{type}";
		is(md5_rows($standby, 'postgres', $tab), md5_rows($primary, 'postgres', $tab),
			"$when: standby has the primary's $t->{type} values");
		next if $t->{lossy};
		is($standby->safe_psql('postgres',
				"SELECT count(*) FROM generate_series(1, 500) i, $tab x "
				  . "WHERE x.id = 1 AND NOT $t->{contains}(x.f, 'k' || i)"),
			'0', "$when: standby's $t->{type} has every key");
	}
}
compare('after catch-up');

$standby->restart;
foreach my $t (@types)
{
	$primary->safe_psql('postgres',
		"UPDATE filt_$t->{type} SET f = $t->{add}(f, 'after-restart')");
}
$primary->wait_for_catchup($standby);
compare('after a standby restart');

$standby->stop;
$primary->stop;
done_testing();
