# A stored filter survives a restart and a fast shutdown, and the
# extension can be dropped and recreated.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('lifecycle');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter);
	INSERT INTO filters SELECT 1, bloom_agg(i::text) FROM generate_series(1, 50000) i;
});
my $before = $node->safe_psql('postgres', q{SELECT md5(bytea(f)) FROM filters});

$node->restart;
is($node->safe_psql('postgres', q{SELECT md5(bytea(f)) FROM filters}),
	$before, 'filter bytes identical after restart');
is($node->safe_psql('postgres',
	q{SELECT count(*) FROM generate_series(1, 50000) i, filters WHERE NOT f @> i::text}),
	'0', 'no false negatives after restart');

$node->safe_psql('postgres', q{UPDATE filters SET f = bloom_add(f, 'after')});
$node->stop('fast');
$node->start;
is($node->safe_psql('postgres', q{SELECT f @> 'after'::text FROM filters}),
	't', 'update survives a fast shutdown');

$node->safe_psql('postgres', q{DROP TABLE filters; DROP EXTENSION bloomfilter; CREATE EXTENSION bloomfilter;});
is($node->safe_psql('postgres', q{SELECT bloom_contains(bloom_add(bloom_create(10), 'x'), 'x')}),
	't', 'extension recreated');

$node->stop;
done_testing();
