# The bloomfilter index's own WAL records (src/bloomindex_wal.c), used
# when the module is preloaded (PostgreSQL 15 and later): with
# wal_consistency_checking every replayed page is compared with an image
# of the written one ('all' read at server start covers only the built-in
# resource managers; naming the custom one defers the check until the
# module is loaded, and then 'all' covers it too).  Checked: a streaming standby replaying a
# load that grows the index ends with the primary's bits; crash recovery
# from a checkpoint before a load restores the index exactly; pg_waldump
# sees the module's records (and none once bloomfilter.index_wal =
# 'generic'); a server without the preload refuses to replay them.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use BFTest;

# the pg_config of the binaries in PATH (the compat shim for old 14s has
# no pg_version)
my ($major) = `pg_config --version` =~ /PostgreSQL (\d+)/ or die 'pg_config --version';
plan skip_all => "custom WAL resource managers need PostgreSQL 15 or later (this is $major)"
  if $major < 15;

# ---- helpers ----

# array items of tags the index tags_f does not find, scalar and array probe
sub array_false_negatives
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FILTER (WHERE NOT bloom_index_contains('tags_f', x)) FROM tags, unnest(a) x")
	  . '/'
	  . $node->safe_psql('postgres',
		"SELECT count(*) FROM tags WHERE false = ANY (bloom_index_contains('tags_f', a))");
}

# bloom_index_info and the md5 of the bits of both indexes, for comparisons
sub index_state
{
	my ($node) = @_;
	return join "\n", map {
		$node->safe_psql('postgres',
			"SELECT bloom_index_info('$_')::text || ' ' || md5(bytea(bloom_index_snapshot('$_')))")
	} ('urls_f', 'tags_f');
}

my $dir = PostgreSQL::Test::Utils::tempdir;
my $nfile = 0;

# Load $n url keys "$tag/<i>" in $ntx transactions: COPY (heap
# multi-inserts keep the WAL, full of verification images, small), plus
# per transaction one single-row INSERT and 10 arrays of 100 items.
sub load
{
	my ($node, $tag, $n, $ntx) = @_;
	my $per = int($n / $ntx);
	foreach my $t (1 .. $ntx)
	{
		my $file = "$dir/load" . $nfile++ . '.txt';
		open my $fh, '>', $file or die "$file: $!";
		print $fh "https://wal.example/$tag/$t/$_\n" foreach 2 .. $per;
		close $fh;
		$node->safe_psql('postgres', qq{
			BEGIN;
			INSERT INTO urls VALUES ('https://wal.example/$tag/$t/1');
			COPY urls FROM '$file';
			INSERT INTO tags SELECT r, ARRAY(SELECT '$tag-$t-' || r || '-' || i FROM generate_series(1, 100) i)
			  FROM generate_series(1, 10) r;
			COMMIT;});
	}
}

# pg_waldump --stats=record of $node's WAL from $start to $end: record
# counts by "rmgr/record type"
sub wal_stats
{
	my ($node, $start, $end) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run(
		[ $node->config_data('--bindir') . '/pg_waldump', '-p', $node->data_dir . '/pg_wal',
			'-s', $start, '-e', $end, '--stats=record' ],
		'>', \$out, '2>', \$err)
	  or die "pg_waldump: $err";
	my %count;
	foreach (split /\n/, $out)
	{
		$count{$1} = $2 if m{^(\S+/.+?)\s+(\d+)\s+\(\s*[\d.]+\)};
	}
	return \%count;
}

sub custom_records
{
	my ($stats) = @_;
	my $n = 0;
	$n += $stats->{$_} foreach grep { m{^custom128/} } keys %$stats;
	return $n;
}

# Wait until $standby has replayed $primary's WAL; false as soon as its
# log says replay failed (an inconsistent page is a FATAL there), or
# after 180 s.
sub catch_up
{
	my ($primary, $standby) = @_;
	my $target = flush_lsn($primary);
	foreach (1 .. 1800)
	{
		return 0 if slurp_file($standby->logfile) =~ /inconsistent page|FATAL|PANIC/;
		my ($rc, $out) = $standby->psql('postgres', "SELECT pg_last_wal_replay_lsn() >= '$target'");
		return 1 if $rc == 0 && $out eq 't';
		usleep(100_000);
	}
	return 0;
}

# the server log from byte $offset, failures of the replay shown
sub log_since
{
	my ($node, $offset) = @_;
	return substr(slurp_file($node->logfile), $offset);
}

sub insert_lsn
{
	my ($node) = @_;
	return $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
}

# the end of the WAL on disk, for pg_waldump -e
sub flush_lsn
{
	my ($node) = @_;
	return $node->safe_psql('postgres', 'SELECT pg_current_wal_flush_lsn()');
}

# ---- the primary, and a standby from a backup taken before the loads ----

my $primary = PostgreSQL::Test::Cluster->new('primary');

$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'bloomfilter'
wal_consistency_checking = 'all,bloomfilter'
checkpoint_timeout = 1h
max_wal_size = 4GB
autovacuum = off
jit = off
});
$primary->start;
is($primary->safe_psql('postgres', 'SHOW bloomfilter.index_wal'), 'auto', 'bloomfilter.index_wal is auto');
is($primary->safe_psql('postgres', 'SHOW bloomfilter.wal_rmgr_id'), '128',
	'bloomfilter.wal_rmgr_id exists (the module is preloaded) and is 128');
$primary->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE urls (url text);
	CREATE INDEX urls_f ON urls USING bloomfilter (url) WITH (capacity = 20000, fpr = 0.01);
	CREATE TABLE tags (id int, a text[]);
	CREATE INDEX tags_f ON tags USING bloomfilter (a) WITH (capacity = 20000);});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
is($standby->safe_psql('postgres', 'SHOW wal_consistency_checking'), 'all,bloomfilter',
	'standby: preloaded, with wal_consistency_checking');

# ---- 1. the load's records are the module's ----
my $t0 = time;
my $start = insert_lsn($primary);
load($primary, 'a', 200_000, 40);
my $end = flush_lsn($primary);
note sprintf('200000 keys and 40000 array items in 40 transactions in %.1f s', time - $t0);
my $stats = wal_stats($primary, $start, $end);
my $custom = custom_records($stats);
cmp_ok($custom, '>', 0, "pg_waldump: the load wrote $custom records of resource manager custom128")
  or diag(join "\n", map { "$_ $stats->{$_}" } sort keys %$stats);
cmp_ok($custom, '>', $stats->{'Generic/Generic'} // 0,
	'pg_waldump: more of them than generic records (new stages only)');

# with wal_consistency_checking, each carries images to check redo against
my ($out, $err) = ('', '');
IPC::Run::run(
	[ $primary->config_data('--bindir') . '/pg_waldump', '-p', $primary->data_dir . '/pg_wal',
		'-s', $start, '-e', $end, '-r', 'custom128' ],
	'>', \$out, '2>', \$err);
my @recs = grep { /^rmgr: custom128/ } split /\n/, $out;
is(scalar(@recs), $custom, 'pg_waldump -r custom128 lists the same records');
my ($blkrefs, $images, $checks) = (0, 0, 0);
foreach (@recs)
{
	$blkrefs += () = /blkref #/g;
	$images += () = /FPW/g;
	$checks += () = /FPW for WAL verification/g;
}
ok($blkrefs > 0 && $images == $blkrefs, "each of the $blkrefs pages of the custom records has an image")
  and cmp_ok($checks, '>', 0, "$checks of them are there only to verify redo");
# both kinds of page data are among them, so the standby's checks below
# cover both: a page's whole special space (a page first written), and
# a budget borrowed from the pool.  pg_waldump cannot describe a custom
# record; pg_walinspect, in the server, can (PostgreSQL 15's contrib; the
# source builds of the others here leave it out)
SKIP:
{
	skip 'pg_walinspect is not installed', 2
	  unless $primary->safe_psql('postgres',
		"SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_walinspect'") eq '1';
	$primary->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
	my ($new, $borrowed) = split /\|/, $primary->safe_psql('postgres', qq{
		SELECT coalesce(sum(m[1]::int), 0), coalesce(sum(m[2]::int), 0)
		FROM pg_get_wal_records_info('$start', '$end'),
			regexp_match(description, 'pages \\d+ \\(new (\\d+), borrowed (\\d+)\\)') m
		WHERE resource_manager = 'bloomfilter'});
	cmp_ok($new, '>', 0, "pg_walinspect: the records first write $new pages");
	cmp_ok($borrowed, '>', 0, "pg_walinspect: in them $borrowed pages borrow from the pool");
}

my $stages = index_info($primary, 'urls_f', 'stages');
cmp_ok($stages, '>', 1, "the load grew urls_f to $stages stages");
cmp_ok(index_info($primary, 'tags_f', 'stages'), '>', 1, 'the array load grew tags_f');
is(index_false_negatives($primary, 'urls', 'urls_f', 'url'), '0', 'primary: every key is found');

# ---- 2. streaming standby ----
my $caught_up = catch_up($primary, $standby);
ok($caught_up, 'standby: replayed the load')
  or diag(join "\n", grep { /PANIC|FATAL|inconsistent|CONTEXT/ } split /\n/, slurp_file($standby->logfile));
SKIP:
{
	skip 'the standby did not replay the load', 8 unless $caught_up;
	is($standby->safe_psql('postgres', 'SELECT count(*) FROM urls'), '200000', 'standby: every row is there');
	is(index_false_negatives($standby, 'urls', 'urls_f', 'url'), '0', 'standby: every key is found');
	is(array_false_negatives($standby), '0/0', 'standby: every array item is found (scalar/array probe)');
	foreach my $idx ('urls_f', 'tags_f')
	{
		index_matches($standby, $primary, $idx, 'standby');
	}
	my $fp = absent_found($standby, 'urls_f');
	cmp_ok($fp, '<', 300, "standby: $fp of 10000 absent keys found (target rate 0.01)");
}
$standby->stop('immediate', fail_ok => 1);
my $slog = slurp_file($standby->logfile);
unlike($slog, qr/inconsistent page|FATAL|PANIC/, 'standby: no inconsistent page, FATAL or PANIC in its log');

# ---- 3. crash recovery ----
$primary->safe_psql('postgres', 'CHECKPOINT');
my $redo = $primary->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()');
$start = insert_lsn($primary);
load($primary, 'b', 150_000, 30);
cmp_ok(custom_records(wal_stats($primary, $start, flush_lsn($primary))), '>', 0,
	'crash: the load after the checkpoint wrote custom records');
cmp_ok(index_info($primary, 'urls_f', 'stages'), '>', $stages, 'crash: the load grew urls_f further');
is($primary->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()'),
	$redo, 'crash: no checkpoint ran during the load');
my $before = index_state($primary);
my $log_offset = -s $primary->logfile;
$primary->stop('immediate');
ok($primary->start(fail_ok => 1), 'crash: the server recovers')
  or diag(join "\n", grep { /PANIC|FATAL|inconsistent|CONTEXT/ } split /\n/, log_since($primary, $log_offset));
if (!defined $primary->{_pid})
{
	done_testing();
	exit 1;
}
like(log_since($primary, $log_offset), qr/redo starts at/, 'crash: recovery replayed WAL');
is($primary->safe_psql('postgres', 'SELECT count(*) FROM urls'), '350000', 'crash: every committed row is there');
is(index_false_negatives($primary, 'urls', 'urls_f', 'url'), '0', 'crash: every key is found after recovery');
is(array_false_negatives($primary), '0/0', 'crash: every array item is found');
is(index_state($primary), $before, 'crash: bloom_index_info and bits of both indexes as before the kill');
unlike(log_since($primary, $log_offset), qr/inconsistent page|PANIC/,
	'crash: no inconsistent page in the replay');

# ---- 4. bloomfilter.index_wal = 'generic' ----
$primary->safe_psql('postgres', "ALTER SYSTEM SET bloomfilter.index_wal = 'generic'");
$primary->reload;
$primary->poll_query_until('postgres', 'SHOW bloomfilter.index_wal', 'generic')
  or die 'bloomfilter.index_wal not reloaded';
$start = insert_lsn($primary);
load($primary, 'c', 20_000, 5);
$stats = wal_stats($primary, $start, flush_lsn($primary));
is(custom_records($stats), 0, 'generic: the load wrote no custom records');
cmp_ok($stats->{'Generic/Generic'} // 0, '>', 0, 'generic: it wrote generic records');
is(index_false_negatives($primary, 'urls', 'urls_f', 'url'), '0', 'generic: every key is found');
is(array_false_negatives($primary), '0/0', 'generic: every array item is found');

# ---- 5. custom records to replay, the module not preloaded ----
$primary->safe_psql('postgres', 'ALTER SYSTEM RESET bloomfilter.index_wal');
$primary->reload;
$primary->poll_query_until('postgres', 'SHOW bloomfilter.index_wal', 'auto')
  or die 'bloomfilter.index_wal not reloaded';
$primary->safe_psql('postgres', 'CHECKPOINT');
$start = insert_lsn($primary);
load($primary, 'd', 20_000, 5);
cmp_ok(custom_records(wal_stats($primary, $start, flush_lsn($primary))), '>', 0,
	'no preload: the load after the checkpoint wrote custom records');
$before = index_state($primary);
$primary->stop('immediate');
$primary->append_conf('postgresql.conf',
	"shared_preload_libraries = ''\nwal_consistency_checking = 'all'\n");
$log_offset = -s $primary->logfile;
ok(!$primary->start(fail_ok => 1), 'no preload: the server does not start');
like(log_since($primary, $log_offset), qr/resource manager with ID 128 not registered/,
	'no preload: because it cannot replay the custom records');
$primary->append_conf('postgresql.conf',
	"shared_preload_libraries = 'bloomfilter'\nwal_consistency_checking = 'all,bloomfilter'\n");
$primary->start;
is($primary->safe_psql('postgres', 'SELECT count(*) FROM urls'), '390000',
	'preloaded again: every committed row is there');
is(index_false_negatives($primary, 'urls', 'urls_f', 'url'), '0', 'preloaded again: every key is found');
is(array_false_negatives($primary), '0/0', 'preloaded again: every array item is found');
is(index_state($primary), $before, 'preloaded again: both indexes as before the kill');
$primary->stop;

done_testing();
