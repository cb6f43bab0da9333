# pg_dump / pg_restore (plain and custom format), COPY (FORMAT binary) and
# COPY text round trips give byte-identical filters of every installed type,
# including the aggregate state type bloom_keyset; a damaged binary COPY
# input is refused (22P03), never loaded.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $node = new_node('dump');
my $dir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', 'CREATE EXTENSION bloomfilter');
my @types = present_types($node, 'src');

my @tables;
foreach my $t (@types)
{
	my $tab = "filt_$t->{type}";
	push @tables, $tab;
	# empty, a few keys, many keys (grown or toasted), the other shapes
	my @values = ($t->{create}, "$t->{add}($t->{create}, 'one')", $t->{big});
	push @values, $t->{fixed} if $t->{fixed};
	my $i = 0;
	$node->safe_psql('src',
		"CREATE TABLE $tab (id int PRIMARY KEY, f $t->{type}); INSERT INTO $tab VALUES "
		  . join(', ', map { $i++; "($i, $_)" } @values));
	$node->safe_psql('src',
		"DO \$\$ BEGIN FOR i IN 1..300 LOOP "
		  . "UPDATE $tab SET f = $t->{add}(f, 'k' || i || '-' || id) WHERE id <> 1 AND id <> 4; END LOOP; END \$\$");
}
if ($types[0]{type} eq 'bloomfilter')
{
	# a scalable filter grown through several stages, a standard-layout
	# one, and a large one stored out of line
	$node->safe_psql('src', q{
		INSERT INTO filt_bloomfilter VALUES
		  (10, (SELECT bloom_add(bloom_create(100, 0.01), array_agg(g::bigint)) FROM generate_series(1, 5000) g)),
		  (11, bloom_add(bloom_create(1000, 0.05, 'standard'), ARRAY['a', 'b', 'c'])),
		  (12, (SELECT bloom_agg(g, 0.001) FROM generate_series(1, 200000) g)),
		  (13, (SELECT bloom_agg(g::text) FROM generate_series(1, 0) g))});
	ok($node->safe_psql('src',
			"SELECT (bloom_info(f)->>'stages')::int > 3 FROM filt_bloomfilter WHERE id = 10") eq 't',
		'a multi-stage filter is in the dump');
}
# the aggregate state type, from its text form
my $ks = keyset_literal('0', '1', '2a', '1000000000000007');
$node->safe_psql('src',
	"CREATE TABLE filt_keyset (id int PRIMARY KEY, f bloom_keyset); "
	  . "INSERT INTO filt_keyset VALUES (1, '$ks'), (2, '" . keyset_literal() . "')");
push @tables, 'filt_keyset';

my %orig = map { $_ => md5_rows($node, 'src', $_) } @tables;

# plain format
my $plain = "$dir/plain.sql";
$node->command_ok([ 'pg_dump', '-d', 'src', '-f', $plain ], 'pg_dump plain');
$node->safe_psql('postgres', 'CREATE DATABASE from_plain');
$node->command_ok(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'from_plain', '-f', $plain ],
	'restore plain dump with psql');

# custom format
my $custom = "$dir/custom.dump";
$node->command_ok([ 'pg_dump', '-Fc', '-d', 'src', '-f', $custom ], 'pg_dump custom');
$node->safe_psql('postgres', 'CREATE DATABASE from_custom');
$node->command_ok([ 'pg_restore', '-e', '-d', 'from_custom', $custom ], 'pg_restore custom');

# and a custom-format dump restored with parallel jobs, data only after schema
$node->safe_psql('postgres', 'CREATE DATABASE from_jobs');
$node->command_ok([ 'pg_restore', '-e', '-j', '2', '-d', 'from_jobs', $custom ],
	'pg_restore -j 2');

foreach my $db ('from_plain', 'from_custom', 'from_jobs')
{
	foreach my $tab (@tables)
	{
		is(md5_rows($node, $db, $tab), $orig{$tab}, "$db: $tab byte-identical");
	}
}

# COPY binary and text, out and back in, for every table
foreach my $tab (@tables)
{
	foreach my $fmt ('binary', 'text')
	{
		my $file = "$dir/$tab.$fmt";
		$node->safe_psql('src', "COPY $tab TO '$file' (FORMAT $fmt)");
		$node->safe_psql('src',
			"CREATE TABLE copy_$fmt\_$tab (LIKE $tab); COPY copy_$fmt\_$tab FROM '$file' (FORMAT $fmt)");
		is(md5_rows($node, 'src', "copy_$fmt\_$tab"), $orig{$tab},
			"COPY (FORMAT $fmt) round trip of $tab byte-identical");
	}
}

# a damaged binary COPY file: refused with 22P03, nothing loaded
foreach my $tab (@tables)
{
	my $file = "$dir/$tab.binary";
	my $bytes = slurp_file($file);
	# the first filter's type tag: file header 19, field count 2, id 4+4,
	# length 4, then the value's bytes (without the varlena header)
	my $off = 19 + 2 + 8 + 4;
	substr($bytes, $off, 1) = chr(ord(substr($bytes, $off, 1)) ^ 0x40);
	my $bad = "$dir/$tab.bad";
	open my $fh, '>:raw', $bad or die $!;
	print $fh $bytes;
	close $fh;
	my ($ret, $out, $err) = $node->psql('src',
		"\\set VERBOSITY verbose\nCREATE TABLE bad_$tab (LIKE $tab); COPY bad_$tab FROM '$bad' (FORMAT binary)");
	like($err, qr/22P03/, "damaged binary COPY of $tab refused with 22P03");
}

$node->stop;
done_testing();
