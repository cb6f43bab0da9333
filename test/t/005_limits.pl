# Limits: a filter that would exceed 1 GB is refused with 54000 before
# anything is allocated; a fixed-size filter past its capacity errors with
# 54000; malformed text/bytea input is refused with its SQLSTATE; a
# self-sizing aggregate past 4M distinct keys (its in-place merges) keeps
# every key.  With BF_BIG=1 also bloom_agg over 20M distinct keys, reporting its time and
# the backend's peak memory (VmHWM).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use BFTest;

my $node = new_node('limits');
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
my @types = present_types($node, 'postgres');

# run $sql; return (sqlstate or '', seconds, backend peak memory in kB
# before and after)
sub run_measured
{
	my ($sql) = @_;
	my $t0 = time;
	my ($ret, $out, $err) = $node->psql('postgres', qq{
\\set VERBOSITY verbose
SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s*(\\d+)');
$sql;
SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s*(\\d+)');
});
	my $secs = time - $t0;
	my ($state) = $err =~ /ERROR:\s+([0-9A-Z]{5}):/;
	my @hwm = $out =~ /^(\d+)$/mg;
	return ($state // '', $secs, $hwm[0], $hwm[-1], $out, $err);
}

foreach my $t (@types)
{
	my ($state, $secs, $hwm0, $hwm1, $out, $err) = run_measured("SELECT $t->{huge}");
	is($state, '54000', "$t->{type}: $t->{huge} refused with 54000") or diag($err);
	ok($secs < 10, sprintf("$t->{type}: refused in %.2f s", $secs));
	ok(defined $hwm1 && $hwm1 - $hwm0 < 65536,
		"$t->{type}: nothing large allocated (peak memory +" . (($hwm1 // 0) - ($hwm0 // 0)) . " kB)");
	like($err, qr/\d/, "$t->{type}: the message gives the limit") if $t->{type} eq 'bloomfilter';

	# malformed input of every kind
	foreach my $case ([ "'!!!!'::$t->{type}", '22P02' ],
		[ "''::$t->{type}", '22P02' ],
		[ "'AAAA'::$t->{type}", '22P02' ],
		[ "'\\x00'::bytea::$t->{type}", '22P03' ],
		[ "'\\x0501010000'::bytea::$t->{type}", '22P03' ])
	{
		my ($st) = run_measured("SELECT $case->[0]");
		is($st, $case->[1], "$t->{type}: $case->[0] refused with $case->[1]");
	}

	next unless $t->{fixed};
	($state) = run_measured(
		"DO \$\$ DECLARE f $t->{type} := $t->{fixed}; BEGIN "
		  . "FOR i IN 1..1000000 LOOP f := $t->{add}(f, 'x' || i); END LOOP; END \$\$");
	is($state, '54000', "$t->{type}: a fixed-size filter past its capacity errors with 54000");
}

if (grep { $_->{type} eq 'bloomfilter' } @types)
{
	my ($state) = run_measured(
		"SELECT bloom_agg(g, 9000000000000, 0.0001) FROM generate_series(1, 3) g");
	is($state, '54000', 'bloom_agg with an impossible capacity: 54000');
	($state) = run_measured("SELECT bloom_create(1, 1e-16)");
	is($state, '22023', 'fpr below 1e-15: 22023');
}

# A self-sizing aggregate's set of 4M hashes or more (KEYSET_INPLACE_MIN_COUNT)
# merges its queue in place: 5M distinct keys take that path in the final
# flush.  Every key is found, the count is exact, and the bytes do not
# depend on the order the keys came in (each order queues different
# hashes at each flush).
if (grep { $_->{type} eq 'bloomfilter' } @types)
{
	my $n = 5_000_000;
	my ($state, $secs, $hwm0, $hwm1, $out, $err) = run_measured(qq{
SET max_parallel_workers_per_gather = 0;
CREATE TABLE inplace AS SELECT bloom_agg(g) AS up FROM (SELECT generate_series(1, $n)) s(g)});
	is($state, '', "bloom_agg over $n distinct keys") or diag($err);
	diag(sprintf("bloom_agg over %d keys: %.1f s, backend peak memory +%.0f MB",
			$n, $secs, (($hwm1 // 0) - ($hwm0 // 0)) / 1024));
	$node->safe_psql('postgres', qq{
SET max_parallel_workers_per_gather = 0;
ALTER TABLE inplace ADD COLUMN down bloomfilter;
UPDATE inplace SET down = (SELECT bloom_agg(g) FROM (SELECT generate_series($n, 1, -1)) s(g))});
	is($node->safe_psql('postgres',
			"SELECT up::bytea = down::bytea, bloom_info(up)->>'capacity' FROM inplace"),
		"t|$n", 'in-place merges: the same bytes in either order, sized for the exact distinct count');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM inplace, generate_series(1, $n) g WHERE NOT bloom_contains(up, g)"),
		'0', "all $n keys found");
}

SKIP:
{
	skip 'BF_BIG=1 runs bloom_agg over 20M distinct keys', 3 unless $ENV{BF_BIG};
	my $n = $ENV{BF_BIG_KEYS} // 20_000_000;
	$node->safe_psql('postgres',
		"CREATE TABLE big AS SELECT bloom_create(1) f WHERE false");
	my ($state, $secs, $hwm0, $hwm1, $out, $err) = run_measured(qq{
SET max_parallel_workers_per_gather = 0;
INSERT INTO big SELECT bloom_agg(g) FROM generate_series(1, $n) g});
	is($state, '', "bloom_agg over $n distinct keys completes") or diag($err);
	my $info = $node->safe_psql('postgres',
		"SELECT bloom_info(f)->>'bytes', bloom_cardinality(f), bloom_info(f)->>'stages' FROM big");
	my $missing = $node->safe_psql('postgres',
		"SELECT count(*) FROM big, generate_series(1, $n, 997) g WHERE NOT bloom_contains(f, g)");
	is($missing, '0', 'no false negatives in a sample of the keys');
	my $fp = $node->safe_psql('postgres',
		"SELECT count(*) FILTER (WHERE bloom_contains(f, g))::float8 / count(*) "
		  . "FROM big, generate_series($n + 1, $n + 1000000) g");
	ok($fp <= 0.011, "measured false-positive rate $fp at target 0.01");
	diag(sprintf("bloom_agg over %d distinct bigint keys: %.1f s, backend peak memory (VmHWM) %.0f MB "
			  . "(%.0f MB at start); filter bytes|cardinality|stages = %s; measured fpr %.5f",
			$n, $secs, $hwm1 / 1024, $hwm0 / 1024, $info, $fp));
}

$node->stop;
done_testing();
