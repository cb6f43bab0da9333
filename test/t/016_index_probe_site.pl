# bloom_index_contains(index, x) keeps at its call site the index's
# stages as it last read them, and reads their count again only when it
# sees the index under another snapshot (sql/index_probe_site.sql has the
# single-session cases).  Here another session grows the index by new
# stages between two statements of a transaction whose site (a PL/pgSQL
# expression's) was filled before: the second statement must find every
# key the other session committed, those of the new stages too.  And one
# REPEATABLE READ transaction sees the same under its one snapshot.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $node = new_node('probe_site');
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE st (k text);
	CREATE INDEX st_f ON st USING bloomfilter (k) WITH (capacity = 1000);
	INSERT INTO st SELECT 'a-' || g FROM generate_series(1, 100) g;
	-- the index a variable, so no plan (and site) is made again
	CREATE FUNCTION st_probe(k text) RETURNS boolean LANGUAGE plpgsql AS $$
	DECLARE
		i regclass := 'st_f';
	BEGIN
		RETURN bloom_index_contains(i, k);
	END $$;});

foreach my $iso ('READ COMMITTED', 'REPEATABLE READ')
{
	my ($s1, $s2) = (session($node), session($node));
	my $tag = $iso eq 'READ COMMITTED' ? 'b' : 'c';
	my $stages = $node->safe_psql('postgres', "SELECT bloom_index_info('st_f')->>'stages'");

	run_in($s1, "BEGIN ISOLATION LEVEL $iso");
	my ($first) = run_in($s1,
		"SELECT count(*) FILTER (WHERE st_probe('a-' || g)) FROM generate_series(1, 100) g");
	is($first, '100', "$iso: the site's first statement finds the 100 keys there were");

	# 20,000 keys into an index sized for 1,000: new stages
	my (undef, $err) = run_in($s2,
		"INSERT INTO st SELECT '$tag-' || g FROM generate_series(1, 20000) g");
	is($err, '', "$iso: another session adds 20,000 keys");
	my $grown = $node->safe_psql('postgres', "SELECT bloom_index_info('st_f')->>'stages'");
	cmp_ok($grown, '>', $stages, "$iso: the index has grown from $stages to $grown stages");

	my ($missed, $err2) = run_in($s1,
		"SELECT count(*) FILTER (WHERE NOT st_probe('$tag-' || g)) FROM generate_series(1, 20000) g");
	is($err2, '', "$iso: the second statement runs");
	if ($iso eq 'READ COMMITTED')
	{
		# its snapshot sees the other session's rows: it must find them all
		is($missed, '0', "$iso: the next statement finds every key the other session committed");
	}
	else
	{
		# its snapshot does not see them: it may find any number of them
		like($missed, qr/^\d+$/, "$iso: the snapshot's statement answers ($missed not found)");
	}
	run_in($s1, 'COMMIT');
	my ($after) = run_in($s1,
		"SELECT count(*) FILTER (WHERE NOT st_probe('$tag-' || g)) FROM generate_series(1, 20000) g");
	is($after, '0', "$iso: after COMMIT the session finds every key");
	$_->{h}->finish for ($s1, $s2);
}

$node->stop;
done_testing();
