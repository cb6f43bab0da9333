# CREATE INDEX ... USING bloomfilter reports its progress in
# pg_stat_progress_create_index: the phase by the access method's own
# names, the table's blocks and rows done.  A build of 4M rows is watched
# from a second session until it ends (start_progress_poller); every
# phase it was seen in must be one of the index's, the rows done must
# reach the table's and the blocks done must move.  The last rows done are
# reported as the build turns to writing its pages, so the indexes are
# sized at ten times the rows: writing 56 MB of pages keeps that report
# up for tens of milliseconds, long enough for a poller on a loaded
# machine to see it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $node = new_node('progress');
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE pr (k bigint);
	INSERT INTO pr SELECT g FROM generate_series(1, 4000000) g;
	ANALYZE pr;});

foreach my $case ([ 'CREATE INDEX pr_f ON pr USING bloomfilter (k) WITH (capacity = 40000000)', 'page scan' ],
	[ 'CREATE INDEX pr_g ON pr USING bloomfilter ((k + 1)) WITH (capacity = 40000000)', 'table AM scan' ])
{
	my ($sql, $label) = @$case;
	my $poller = start_progress_poller($node, 'pr');
	my ($ret, $out, $err) = $node->psql('postgres', "SET client_min_messages = warning; $sql");
	is($ret, 0, "$label: CREATE INDEX succeeds") or diag($err);
	my $seen = finish_progress_poller($poller);
	my @phases = @{ $seen->{phases} };
	ok((grep { $_ eq 'building index: adding table rows' } @phases), "$label: seen adding table rows")
	  or diag("@phases");
	my @other = grep { !/^(initializing|building index(: (initializing|adding table rows|writing the filter's pages))?|waiting for .*)$/ } @phases;
	is("@other", '', "$label: every phase seen is the index's");
	is($seen->{tuples}, 4000000, "$label: rows done reach the table's ($seen->{tuples} of $seen->{total})");
	cmp_ok($seen->{blocks}, '>', 0, "$label: blocks done move ($seen->{blocks} seen)");
}
is(index_false_negatives($node, 'pr', 'pr_f', 'k'), '0', 'the index built holds every row');

$node->stop;
done_testing();
