
# BFTest.pm: helpers shared by the TAP tests in test/t.
#
# The filter types are listed once here with the SQL a test needs for each
# (create, add, contains); a test asks present_types() which of them the
# installed extension has, so a type merged later is tested without
# touching the tests.

package BFTest;

use strict;
use warnings;
no warnings 'portable';

use Exporter 'import';
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use JSON::PP;

our @EXPORT = qw(present_types filter_type_table new_node valid_sql
  keyset_literal md5_rows index_info index_false_negatives index_matches
  absent_found start_progress_poller finish_progress_poller session run_in bg_query);

# name => what a test needs.  lossy: may forget elements by design (stable
# Bloom filters decay), so "every committed key is present" does not apply.
my @TYPES = (
	{
		type => 'bloomfilter',
		create => "bloom_create(1000, 0.01)",
		big => "bloom_create(20000, 0.001, 'standard')",
		fixed => "bloom_create(100, 0.01, 'blocked', false)",
		huge => "bloom_create(9000000000000, 0.0001)",
		add => 'bloom_add',
		contains => 'bloom_contains',
	},
	{
		type => 'countingbloom',
		create => "counting_bloom_create(50000, 0.01)",
		big => "counting_bloom_create(20000, 0.001)",
		fixed => "counting_bloom_create(100, 0.01)",
		huge => "counting_bloom_create(9000000000000, 0.0001)",
		add => 'counting_bloom_add',
		contains => 'counting_bloom_contains',
	},
	{
		type => 'cuckoofilter',
		create => "cuckoo_create(1000, 0.01)",
		big => "cuckoo_create(20000, 0.001)",
		huge => "cuckoo_create(9000000000000, 0.0001)",
		add => 'cuckoo_add',
		contains => 'cuckoo_contains',
	},
	{
		type => 'stablebloom',
		create => "stable_bloom_create(100000, 0.01)",
		big => "stable_bloom_create(200000, 0.001)",
		huge => "stable_bloom_create(9000000000000, 0.0001)",
		add => 'stable_bloom_add',
		contains => 'stable_bloom_contains',
		lossy => 1,
	},);

sub filter_type_table { return @TYPES; }

# The entries of @TYPES whose type and add(type, text) function exist in
# database $db of $node (the extension must be created there).  Reports the
# ones skipped.
sub present_types
{
	my ($node, $db, %opt) = @_;
	my @present;
	foreach my $t (@TYPES)
	{
		next if $opt{lossless} && $t->{lossy};
		my $ok = $node->safe_psql(
			$db, qq{
			SELECT count(*) FROM pg_type ty
			  JOIN pg_proc p ON p.proname = '$t->{add}'
			   AND p.proargtypes[0] = ty.oid
			   AND p.proargtypes[1] = 'text'::regtype
			 WHERE ty.typname = '$t->{type}'});
		if ($ok > 0)
		{
			push @present, $t;
		}
		else
		{
			note "type $t->{type} (or $t->{add}(..., text)) not installed: skipped";
		}
	}
	return @present;
}

# A started node with the settings every test wants.
sub new_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%opt);
	$node->append_conf('postgresql.conf', "jit = off\nmax_connections = 40\n");
	$node->start;
	return $node;
}

# SQL that is true when every value of column $col (type $type) passes the
# type's checker again, through both the bytea cast and the text form.
sub valid_sql
{
	my ($type, $col) = @_;
	return "(($col)::bytea::$type)::bytea = ($col)::bytea "
	  . "AND (($col)::text::$type)::bytea = ($col)::bytea";
}

# Text form of a bloom_keyset holding the given 64-bit hashes (as strings
# of hex digits), laid out as src/keyset.h says.
sub keyset_literal
{
	my (@hashes) = @_;
	my @sorted = sort { $a <=> $b } map { hex($_) } @hashes;
	my $bytes = pack('CCCCQ<Q<CCvVd<Q<Q<',
		5, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0.01, 0, scalar(@sorted));
	$bytes .= pack('Q<', $_) foreach @sorted;
	require MIME::Base64;
	return MIME::Base64::encode_base64($bytes, '');
}

# "id md5" lines of every row of table $tab (column f), for comparisons
# (bloom_keyset has no bytea cast: its text form, base64 of the same
# bytes, is compared instead)
sub md5_rows
{
	my ($node, $db, $tab) = @_;
	my $expr = $tab =~ /keyset/ ? 'f::text' : 'f::bytea';
	return $node->safe_psql($db,
		"SELECT id || ' ' || length($expr) || ' ' || md5($expr) FROM $tab ORDER BY id");
}

# ---- the bloomfilter index ----

# bloom_index_info($idx)->>$key on $node (database $db, default postgres)
sub index_info
{
	my ($node, $idx, $key, $db) = @_;
	return $node->safe_psql($db // 'postgres', "SELECT bloom_index_info('$idx')->>'$key'");
}

# count of rows of $tab whose $expr the index $idx does not find
sub index_false_negatives
{
	my ($node, $tab, $idx, $expr, $db) = @_;
	return $node->safe_psql($db // 'postgres',
		"SELECT count(*) FILTER (WHERE NOT bloom_index_contains('$idx', $expr)) FROM $tab");
}

# two tests: index $idx on $node has the info and the bits it has on $ref
sub index_matches
{
	my ($node, $ref, $idx, $label) = @_;
	is($node->safe_psql('postgres', "SELECT bloom_index_info('$idx')"),
		$ref->safe_psql('postgres', "SELECT bloom_index_info('$idx')"),
		"$label: $idx: bloom_index_info equals the primary's");
	is($node->safe_psql('postgres', "SELECT md5(bytea(bloom_index_snapshot('$idx')))"),
		$ref->safe_psql('postgres', "SELECT md5(bytea(bloom_index_snapshot('$idx')))"),
		"$label: $idx: the same bits as the primary's");
	return;
}

# of 10,000 keys never added, how many the index $idx finds
sub absent_found
{
	my ($node, $idx) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(1, 10000) i "
		  . "WHERE bloom_index_contains('$idx', 'https://absent.example/' || i)");
}

# Watch pg_stat_progress_create_index for builds on table $tab from a
# second session: a plpgsql loop in the server reads the view without
# pause (clearing its stats snapshot each time) from before the build
# starts until the build's row is gone, so what it sees does not hang on
# how long the build takes or how fast a client can poll.  Start it, run
# the build, then finish_progress_poller gives { seen, tuples (the most
# seen), total, blocks (the most seen), phases (each seen, once) }.
sub start_progress_poller
{
	my ($node, $tab) = @_;
	my $p = { out => '', err => '', name => "poller_$tab" };
	my $create = q{
		CREATE FUNCTION pg_temp.poll_progress(tab regclass) RETURNS json
		LANGUAGE plpgsql AS $$
		DECLARE
			r record;
			seen boolean := false;
			tuples bigint := 0;
			total bigint := 0;
			blocks bigint := 0;
			phases text[] := '{}';
			t0 timestamptz := clock_timestamp();
		BEGIN
			LOOP
				PERFORM pg_stat_clear_snapshot();
				SELECT phase, tuples_done, tuples_total, blocks_done INTO r
				  FROM pg_stat_progress_create_index WHERE relid = tab;
				IF FOUND THEN
					seen := true;
					tuples := greatest(tuples, r.tuples_done);
					blocks := greatest(blocks, r.blocks_done);
					total := r.tuples_total;
					IF NOT r.phase = ANY (phases) THEN
						phases := phases || r.phase;
					END IF;
				ELSIF seen OR clock_timestamp() - t0 > interval '120 s' THEN
					EXIT;
				END IF;
			END LOOP;
			RETURN json_build_object('seen', seen, 'tuples', tuples, 'total', total,
									 'blocks', blocks, 'phases', phases);
		END $$};
	$p->{h} = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
			'-c', "SET application_name = '$p->{name}'", '-c', $create,
			'-c', "SELECT pg_temp.poll_progress('$tab')" ],
		'>', \$p->{out}, '2>', \$p->{err}, IPC::Run::timeout(400));
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = '$p->{name}'"
		  . " AND query ~ '^\\s*SELECT pg_temp.poll_progress' AND state = 'active'")
	  or die "the progress poller of $tab did not start: $p->{err}";
	return $p;
}

sub finish_progress_poller
{
	my ($p) = @_;
	$p->{h}->finish;
	die "the progress poller failed: $p->{err}" if $p->{err} ne '';
	return decode_json($p->{out});
}

# a psql session kept open: send one statement, wait for its result
sub session
{
	my ($node) = @_;
	my $s = { in => '', out => '', err => '' };
	$s->{h} = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-f', '-' ],
		'<', \$s->{in}, '>', \$s->{out}, '2>', \$s->{err},
		IPC::Run::timeout(180));
	return $s;
}

# run $sql in session $s; returns (stdout, stderr) of that statement
sub run_in
{
	my ($s, $sql) = @_;
	$s->{out} = '';
	$s->{err} = '';
	$s->{in} .= "$sql;\n\\echo __done__\n";
	$s->{h}->pump until $s->{out} =~ /__done__/;
	(my $r = $s->{out}) =~ s/__done__\n?//;
	chomp $r;
	return ($r, $s->{err});
}

# run $sql in session $s; returns its output, and dies on an error
sub bg_query
{
	my ($s, $sql) = @_;
	my ($r, $err) = run_in($s, $sql);
	die "background session: $err" if $err =~ /ERROR|FATAL/;
	return $r;
}

1;
