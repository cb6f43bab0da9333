# cuckoofilter values survive pg_dump / pg_restore (custom format, so the
# column goes through COPY text output and input validation) and a
# restart, byte for byte, and keep working: grown filters included.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('cuckoo_dump');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE cf (id int PRIMARY KEY, f cuckoofilter);
	INSERT INTO cf SELECT 1, cuckoo_agg(i::text) FROM generate_series(1, 20000) i;
	INSERT INTO cf SELECT 2, cuckoo_add(cuckoo_create(100, 0.001), array_agg(i::bigint))
		FROM generate_series(1, 20000) i;
	UPDATE cf SET f = cuckoo_remove(f, 7::bigint) WHERE id = 2;
});
my $before = $node->safe_psql('postgres', q{SELECT string_agg(md5(bytea(f)), ',' ORDER BY id) FROM cf});
is($node->safe_psql('postgres', q{SELECT cuckoo_info(f)->>'tables' FROM cf WHERE id = 2}) > 1,
	1, 'second filter has grown');

$node->restart;
is($node->safe_psql('postgres', q{SELECT string_agg(md5(bytea(f)), ',' ORDER BY id) FROM cf}),
	$before, 'bytes identical after restart');

my $dump = $node->basedir . '/cuckoo.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $dump ],
	'pg_dump');
$node->safe_psql('postgres', q{CREATE DATABASE restored});
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'pg_restore');
is($node->safe_psql('restored', q{SELECT string_agg(md5(bytea(f)), ',' ORDER BY id) FROM cf}),
	$before, 'bytes identical after dump and restore');
is($node->safe_psql('restored', q{
	SELECT count(*) FROM generate_series(1, 20000) i, cf
	WHERE id = 1 AND NOT f @> i::text}), '0', 'no false negatives after restore');
is($node->safe_psql('restored', q{
	SELECT count(*) FROM generate_series(1, 20000) i, cf
	WHERE id = 2 AND i <> 7 AND NOT f @> i::bigint}), '0',
	'grown filter: every element still in after restore');
is($node->safe_psql('restored', q{SELECT cuckoo_count(cuckoo_add(f, 'x'::text), 'x'::text) >= 1 FROM cf WHERE id = 1}),
	't', 'restored filter takes adds');

$node->stop;
done_testing();
