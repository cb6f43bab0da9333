# Each backend remembers the buffer each page of an index was found in
# (bloomindex_pages.c).  A backend that has looked up 1/256 of the
# buffers' worth of pages (at least 1,024) takes the rest from every
# buffer's tag at once.  Here, with 4,096 buffers, a probe of every key
# of a 1,500-page index must do that once, mid-statement (a DEBUG1 line
# says how many pages it found: more than it had looked up), and answer
# every key; a probe of a few pages must not.  Hints that went stale (the
# index's pages evicted by another session's writes) must still answer
# every key.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $node = PostgreSQL::Test::Cluster->new('hints');
$node->init;
$node->append_conf('postgresql.conf', "jit = off\nshared_buffers = 32MB\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE hk (k bigint);
	CREATE INDEX hk_f ON hk USING bloomfilter (k) WITH (capacity = 10000000, fpr = 0.01);
	INSERT INTO hk SELECT g * 7919 FROM generate_series(1, 200000) g;});
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('hk_f') / current_setting('block_size')::int");
cmp_ok($pages, '>', 1024 + 100, "the index has more pages than the lookups before a sweep ($pages)");

my $probe_all = q{SELECT count(*) FILTER (WHERE NOT p)
	FROM unnest(bloom_index_contains('hk_f', ARRAY(SELECT k FROM hk))) p};

# a few pages: no sweep
my ($ret, $out, $err) = $node->psql('postgres',
	"SET client_min_messages = debug1; SELECT bloom_index_contains('hk_f', ARRAY[7919, 15838, 1]::bigint[])");
is($out, '{t,t,f}', 'a probe of three keys answers them');
unlike($err, qr/page hints/, 'a probe of a few pages does not sweep the buffers');

my $s = session($node);
run_in($s, 'SET client_min_messages = debug1');
my ($fn, $msgs) = run_in($s, $probe_all);
is($fn, '0', 'a probe of every key, swept mid-statement, finds all 200,000');
my @sweeps = $msgs =~ /index "hk_f": (\d+) page hints from (\d+) buffers/g;
is(scalar(@sweeps), 2, 'the probe swept the buffers once') or diag($msgs);
is($sweeps[1], 4096, 'the sweep read every buffer');
cmp_ok($sweeps[0], '>', 1024, "the sweep found pages not looked up ($sweeps[0])");
cmp_ok($sweeps[0], '<=', $pages, 'the sweep found no more pages than the index has');

($fn, $msgs) = run_in($s, $probe_all);
is($fn, '0', 'the next statement, on the hints, finds every key');
unlike($msgs, qr/page hints/, 'a backend sweeps once');

# another session's writes take the buffers; the hints point at other pages
$node->safe_psql('postgres', q{
	CREATE TABLE filler (v bigint, pad text);
	INSERT INTO filler SELECT g, repeat('x', 100) FROM generate_series(1, 500000) g;});
($fn, $msgs) = run_in($s, $probe_all);
is($fn, '0', 'stale hints: every key still found');
($fn) = run_in($s, q{SELECT count(*) FILTER (WHERE p)
	FROM unnest(bloom_index_contains('hk_f', ARRAY(SELECT g * 7919 + 1 FROM generate_series(1, 100000) g))) p});
cmp_ok($fn, '<', 2000, "stale hints: never-added keys within the rate ($fn of 100000, 1% is 1000)");

$s->{in} .= "\\q\n";
$s->{h}->finish;
$node->stop;
done_testing();
