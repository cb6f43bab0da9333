# CREATE INDEX ... USING bloomfilter reports its progress in
# pg_stat_progress_create_index: the phase by the access method's own
# names, the table's blocks and rows done.  A build of 4M rows is watched
# from a second session until it ends; every phase it was seen in must
# be one of the index's, and the rows and blocks done must move.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use BFTest;

my $node = new_node('progress');
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE pr (k bigint);
	INSERT INTO pr SELECT g FROM generate_series(1, 4000000) g;
	ANALYZE pr;});

foreach my $case ([ 'CREATE INDEX pr_f ON pr USING bloomfilter (k) WITH (capacity = 4000000)', 'page scan' ],
	[ 'CREATE INDEX pr_g ON pr USING bloomfilter ((k + 1)) WITH (capacity = 4000000)', 'table AM scan' ])
{
	my ($sql, $label) = @$case;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', 'SET client_min_messages = warning', '-c', $sql ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(300));
	my (%phases, $max_tuples, $max_blocks, $total);
	$max_tuples = $max_blocks = 0;
	while ($h->pumpable)
	{
		my $r = $node->safe_psql('postgres',
			"SELECT phase, tuples_done, tuples_total, blocks_done FROM pg_stat_progress_create_index");
		if ($r ne '')
		{
			my ($phase, $td, $tt, $bd) = split /\|/, $r;
			$phases{$phase}++;
			$max_tuples = $td if $td > $max_tuples;
			$max_blocks = $bd if $bd > $max_blocks;
			$total = $tt;
		}
		usleep(20_000);
		$h->pump_nb;
	}
	$h->finish;
	is($err, '', "$label: CREATE INDEX succeeds");
	ok($phases{'building index: adding table rows'}, "$label: seen adding table rows")
	  or diag(explain \%phases);
	my @other = grep { !/^(initializing|building index(: (initializing|adding table rows|writing the filter's pages))?|waiting for .*)$/ } keys %phases;
	is("@other", '', "$label: every phase seen is the index's");
	cmp_ok($max_tuples, '>', 0, "$label: rows done move ($max_tuples of $total seen)");
	cmp_ok($max_blocks, '>', 0, "$label: blocks done move ($max_blocks seen)");
}
is(index_false_negatives($node, 'pr', 'pr_f', 'k'), '0', 'the index built holds every row');

$node->stop;
done_testing();
