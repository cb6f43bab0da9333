# The extension on Citus: a coordinator and two workers on this machine
# (unix sockets), the real URLs of ../shared/data in a table distributed by
# host, and every check compared with the same query on a local copy of
# the table on the coordinator.  Run by tools/test-stages/50-citus.sh;
# doc/citus.md explains what is checked and quotes the figures printed
# here ("# citus: ..." lines).
use strict;
use warnings;
use Cwd 'abs_path';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $data = abs_path($ENV{BLOOMFILTER_SHARED} // '../shared') . '/data';
plan skip_all => "no $data" unless -f "$data/doc-links-stream.txt.gz";

# figures: printed as they come, so a slow step shows where it is
sub figure { diag sprintf('citus: %-58s %s', @_); }

sub timed
{
	my ($node, $sql) = @_;
	my $t0 = time;
	my $out = $node->safe_psql('postgres', $sql);
	return ($out, time - $t0);
}

# SQLSTATE of a statement that must fail ('' if it did not)
sub sqlstate
{
	my ($node, $sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY sqlstate\n$sql", on_error_stop => 1);
	return '' if $ret == 0;
	return $err =~ /ERROR:\s+([0-9A-Z]{5})/ ? $1 : "no SQLSTATE in: $err";
}

# ---- three nodes ----
my @nodes;
foreach my $name ('coordinator', 'worker1', 'worker2')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	# session_preload_libraries: the build scan's planner hook is there
	# from a session's first query (each safe_psql is a new session)
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'citus'
session_preload_libraries = 'bloomfilter'
jit = off
max_connections = 60
shared_buffers = 128MB
max_parallel_workers_per_gather = 2
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
	push @nodes, $node;
}
my ($coord, @workers) = @nodes;
$coord->safe_psql('postgres', sprintf(
	q{SELECT citus_set_coordinator_host('%s', %d);}, $coord->host, $coord->port));
$coord->safe_psql('postgres', sprintf(q{SELECT citus_add_node('%s', %d);}, $_->host, $_->port))
  foreach @workers;
# created on the coordinator, Citus creates it on every worker
$coord->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
my $version = $coord->safe_psql('postgres',
	q{SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'});
foreach my $w (@workers)
{
	is($w->safe_psql('postgres',
			q{SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'}),
		$version, $w->name . ': bloomfilter installed at the coordinator\'s version');
}
is($coord->safe_psql('postgres', 'SELECT count(*) FROM citus_get_active_worker_nodes()'),
	'2', 'two active workers');

# ---- the tables: real URLs, local and distributed by host ----
# the distribution key may not be NULL: '' for the URLs without a host
my $host_expr = q{coalesce(url_host(url), '')};
my (undef, $t_local) = timed($coord, qq{
	CREATE TABLE links_local (id bigint, url text NOT NULL, host text NOT NULL, batch text);
	CREATE TEMP TABLE raw (url text);
	COPY raw FROM PROGRAM 'gzip -dc $data/doc-links-stream.txt.gz';
	COPY raw FROM PROGRAM 'gzip -dc $data/debian-homepages.txt.gz';
	INSERT INTO links_local (id, url, host)
	SELECT row_number() OVER (), url, $host_expr FROM raw;
	ANALYZE links_local;
});
my $rows = $coord->safe_psql('postgres', 'SELECT count(*) FROM links_local');
cmp_ok($rows, '>', 150000, 'real URLs loaded');
my (undef, $t_dist) = timed($coord, q{
	CREATE TABLE links (LIKE links_local);
	SELECT create_distributed_table('links', 'host', shard_count => 32);
	INSERT INTO links SELECT * FROM links_local;
});
figure("load $rows real URLs: local / distributed by host",
	sprintf('%.2f s / %.2f s', $t_local, $t_dist));
is($coord->safe_psql('postgres', 'SELECT count(*) FROM links'), $rows, 'distributed copy complete');

# ---- every aggregate: split across the workers, the bytes of a local build ----
my @aggs = (
	'bloom_agg(url)', 'bloom_agg(url, 0.001)', 'bloom_agg(url, 200000, 0.01)',
	'counting_bloom_agg(url)', 'counting_bloom_agg(url, 0.001)',
	'counting_bloom_agg(url, 200000, 0.01)',
	'cuckoo_agg(url)', 'cuckoo_agg(url, 0.001)', 'cuckoo_agg(url, 200000, 0.01)');
foreach my $agg (@aggs)
{
	my ($l, $tl) = timed($coord, "SELECT md5(${agg}::bytea) FROM links_local");
	my ($d, $td) = timed($coord, "SELECT md5(${agg}::bytea) FROM links");
	is($d, $l, "$agg: Citus bytes identical to local");
	figure("$agg, local / Citus", sprintf('%.2f s / %.2f s', $tl, $td));
}
like($coord->safe_psql('postgres', 'EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(url) FROM links'),
	qr/coord_combine_agg.*worker_partial_agg/s, 'bloom_agg split: partial states on the workers');

# stable_bloom_agg has no combine function: Citus pulls the rows to the
# coordinator, which gives the same bytes, in the ORDER BY's order
my $stable = 'md5(stable_bloom_agg(url, 100000, 0.01 ORDER BY id)::bytea)';
is($coord->safe_psql('postgres', "SELECT $stable FROM links"),
	$coord->safe_psql('postgres', "SELECT $stable FROM links_local"),
	'stable_bloom_agg ... ORDER BY: Citus bytes identical to local');
unlike($coord->safe_psql('postgres',
		'EXPLAIN (VERBOSE, COSTS OFF) SELECT stable_bloom_agg(url ORDER BY id) FROM links'),
	qr/worker_partial_agg/, 'stable_bloom_agg ... ORDER BY runs on the coordinator');

# bloom_union_agg over filters of one geometry, one per host bucket
foreach my $t ('bucket_filters_local', 'bucket_filters')
{
	my $src = $t eq 'bucket_filters' ? 'links' : 'links_local';
	$coord->safe_psql('postgres', qq{
		CREATE TABLE $t (bucket int, f bloomfilter);
		@{[$t eq 'bucket_filters' ? "SELECT create_distributed_table('$t', 'bucket');" : '']}
		INSERT INTO $t SELECT abs(hashtext(host)) % 8, bloom_agg(url, 200000, 0.01)
		FROM $src GROUP BY 1;
	});
}
is($coord->safe_psql('postgres',
		q{SELECT string_agg(bucket || ':' || md5(f::bytea), ',' ORDER BY bucket) FROM bucket_filters}),
	$coord->safe_psql('postgres',
		q{SELECT string_agg(bucket || ':' || md5(f::bytea), ',' ORDER BY bucket) FROM bucket_filters_local}),
	'bloom_agg GROUP BY a non-distribution column: Citus bytes identical to local');
# filter columns have = and hash support: GROUP BY and DISTINCT over them
my $by_filter = q{SELECT count(DISTINCT f) FROM %1$s;
	SELECT string_agg(md5(f::bytea) || ':' || n, ',' ORDER BY md5(f::bytea))
	FROM (SELECT f, count(*) AS n FROM (SELECT f FROM %1$s UNION ALL SELECT f FROM %1$s WHERE bucket < 4) u GROUP BY f) g};
is($coord->safe_psql('postgres', sprintf($by_filter, 'bucket_filters')),
	$coord->safe_psql('postgres', sprintf($by_filter, 'bucket_filters_local')),
	'GROUP BY and count(DISTINCT) over a filter column: Citus identical to local');
is($coord->safe_psql('postgres', 'SELECT md5(bloom_union_agg(f)::bytea) FROM bucket_filters'),
	$coord->safe_psql('postgres', 'SELECT md5(bloom_union_agg(f)::bytea) FROM bucket_filters_local'),
	'bloom_union_agg: Citus bytes identical to local');

# ---- the 2M-row build, local vs Citus ----
my (undef, $t_big_local) = timed($coord, q{
	CREATE TABLE big_local AS
	SELECT id * 13 + g AS id, url || '?copy=' || g AS url FROM links_local, generate_series(0, 12) g;
	ANALYZE big_local;
});
my (undef, $t_big_dist) = timed($coord, q{
	CREATE TABLE big (id bigint, url text);
	SELECT create_distributed_table('big', 'id', shard_count => 32);
	INSERT INTO big SELECT * FROM big_local;
});
my $big_rows = $coord->safe_psql('postgres', 'SELECT count(*) FROM big');
figure("load $big_rows rows: local / distributed by id",
	sprintf('%.2f s / %.2f s', $t_big_local, $t_big_dist));
foreach my $agg ('bloom_agg(url, 0.01)', 'bloom_agg(url, 2100000, 0.01)', 'cuckoo_agg(url, 2100000, 0.01)')
{
	my ($l, $tl) = timed($coord, "SELECT md5(${agg}::bytea) FROM big_local");
	my ($d, $td) = timed($coord, "SELECT md5(${agg}::bytea) FROM big");
	is($d, $l, "$agg over $big_rows rows: Citus bytes identical to local");
	figure("build $agg, $big_rows rows, local / Citus", sprintf('%.2f s / %.2f s', $tl, $td));
}
# what the workers send the coordinator: each shard's partial state as text
foreach my $agg (['bloom_agg(text,float8)', 'ROW(url, 0.01::float8)', 'bloom_agg(url, 0.01)'],
	['bloom_agg(text,bigint,float8)', 'ROW(url, 2100000::bigint, 0.01::float8)', 'bloom_agg(url, 2100000, 0.01)'])
{
	my $shipped = $coord->safe_psql('postgres', sprintf(q{
		SELECT sum(result::bigint) FROM run_command_on_shards('big',
		  $$SELECT octet_length(pg_catalog.worker_partial_agg('%s'::regprocedure, %s)::text) FROM %%s$$)},
		$agg->[0], $agg->[1]));
	my $expr = $agg->[2];
	my $final = $coord->safe_psql('postgres', "SELECT octet_length(${expr}::bytea) FROM big_local");
	cmp_ok($shipped, '>', 0, "$agg->[2]: partial states measured");
	figure("$agg->[2]: text shipped by 32 shards / final filter",
		sprintf('%.1f MB / %.1f MB', $shipped / 1e6, $final / 1e6));
}

# ---- GROUP BY the distribution column: entirely on the workers ----
my $grouped = q{SELECT string_agg(host || ':' || md5(f::bytea), ',' ORDER BY host)
	FROM (SELECT host, bloom_agg(url) AS f FROM %s GROUP BY host) s};
my ($gl, $tgl) = timed($coord, sprintf($grouped, 'links_local'));
my ($gd, $tgd) = timed($coord, sprintf($grouped, 'links'));
is($gd, $gl, 'bloom_agg GROUP BY host: Citus bytes identical to local, every group');
figure('bloom_agg GROUP BY host (7k groups), local / Citus', sprintf('%.2f s / %.2f s', $tgl, $tgd));
my $plan = $coord->safe_psql('postgres',
	'EXPLAIN (VERBOSE, COSTS OFF) SELECT host, bloom_agg(url) FROM links GROUP BY host');
like($plan, qr/^\s*Custom Scan \(Citus Adaptive\)/, 'GROUP BY host: nothing aggregated on the coordinator');
like($plan, qr/Group Key: .*host.*\n.*Seq Scan on public\.links_\d+/s, 'GROUP BY host: the workers aggregate');
unlike($plan, qr/worker_partial_agg|coord_combine_agg/, 'GROUP BY host: no partial states');

# one filter per host, in a table colocated with the links
$coord->safe_psql('postgres', q{
	CREATE TABLE host_filters (host text PRIMARY KEY, f bloomfilter NOT NULL);
	SELECT create_distributed_table('host_filters', 'host', colocate_with => 'links');
	CREATE TABLE host_filters_local (host text PRIMARY KEY, f bloomfilter NOT NULL);
});
my $ins = 'INSERT INTO %s SELECT host, bloom_agg(url, 0.001) FROM %s WHERE id %% 2 = 0 GROUP BY host';
like($coord->safe_psql('postgres', 'EXPLAIN (COSTS OFF) ' . sprintf($ins, 'host_filters', 'links')),
	qr/Task.*Insert on host_filters_\d+/s, 'INSERT ... GROUP BY host into a colocated table runs on the workers');
$coord->safe_psql('postgres', sprintf($ins, 'host_filters', 'links'));
$coord->safe_psql('postgres', sprintf($ins, 'host_filters_local', 'links_local'));

# ---- probes on the workers: a filter in a reference table ----
$coord->safe_psql('postgres', q{
	CREATE TABLE url_filter (id int PRIMARY KEY, f bloomfilter NOT NULL);
	SELECT create_reference_table('url_filter');
	CREATE TABLE url_filter_local (id int PRIMARY KEY, f bloomfilter NOT NULL);
	INSERT INTO url_filter SELECT 1, bloom_agg(url, 0.01) FROM links_local WHERE id % 3 = 0;
	INSERT INTO url_filter_local SELECT * FROM url_filter;
});
my %probes = (
	'scalar subquery' => q{SELECT count(*) || ' ' || md5(string_agg(url, ',' ORDER BY url))
		FROM %1$s WHERE NOT bloom_contains((SELECT f FROM %2$s WHERE id = 1), url)},
	'join' => q{SELECT count(*) || ' ' || md5(string_agg(url, ',' ORDER BY url))
		FROM %1$s l JOIN %2$s u ON u.id = 1 WHERE bloom_contains(u.f, l.url)},
	'colocated join, a filter per host' => q{SELECT count(*) || ' ' || md5(string_agg(url, ',' ORDER BY url))
		FROM %1$s l JOIN %3$s h USING (host) WHERE NOT bloom_contains(h.f, l.url)},);
foreach my $p (sort keys %probes)
{
	my ($l, $tl) = timed($coord, sprintf($probes{$p}, 'links_local', 'url_filter_local', 'host_filters_local'));
	my ($d, $td) = timed($coord, sprintf($probes{$p}, 'links', 'url_filter', 'host_filters'));
	is($d, $l, "probe, $p: Citus rows identical to local");
	figure("probe, $p, local / Citus", sprintf('%.2f s / %.2f s', $tl, $td));
	# (the filter per host is a join qual, row by row: no probe scan)
	next if $p =~ /per host/;
	like($coord->safe_psql('postgres',
			'EXPLAIN (COSTS OFF) ' . sprintf($probes{$p}, 'links', 'url_filter', 'host_filters')),
		qr/Task.*Custom Scan \(BloomProbeScan\) on links_\d+/s, "probe, $p: the probe scan on the workers");
}

# ---- zero rows and capacity ----
# a parameter the coordinator's final function cannot see: an error, not a
# filter of other parameters (locally: an empty filter of that capacity,
# in a serial plan as in a parallel one)
is(sqlstate($coord, 'SELECT bloom_agg(url, 1000, 0.01) FROM links WHERE id < 0'),
	'0A000', 'bloom_agg(x, capacity, fpr) over zero rows on Citus: 0A000');
is($coord->safe_psql('postgres', q{SET max_parallel_workers_per_gather = 0;
	SELECT bloom_info(bloom_agg(url, 1000, 0.01))->>'capacity' FROM links_local WHERE id < 0}),
	'1000', 'bloom_agg(x, capacity, fpr) over zero rows locally: empty filter of that capacity');
is(sqlstate($coord, 'SELECT counting_bloom_agg(url, 1000, 0.01) FROM links WHERE id < 0'),
	'0A000', 'counting_bloom_agg(x, capacity, fpr) over zero rows on Citus: 0A000');
# bloom_agg(x) shares its final function with bloom_agg(x, fpr), so it
# cannot tell which one the coordinator runs either
is(sqlstate($coord, 'SELECT bloom_agg(url) FROM links WHERE id < 0'),
	'0A000', 'bloom_agg(x) over zero rows on Citus: 0A000');
is($coord->safe_psql('postgres', 'SELECT md5(bloom_union_agg(f)::bytea) FROM bucket_filters WHERE bucket < 0'),
	$coord->safe_psql('postgres', 'SELECT md5(bloom_union_agg(f)::bytea) FROM bucket_filters_local WHERE bucket < 0'),
	'bloom_union_agg over zero rows: Citus bytes identical to local');
# past capacity on a shard (the worker raises it) and only past it in the
# union (every shard of big holds ~63k, the whole 2M: the coordinator)
foreach my $case (['links', 'bloom_agg(url, 1000, 0.01)'], ['big', 'bloom_agg(url, 100000, 0.01)'])
{
	my ($t, $agg) = @$case;
	is(sqlstate($coord, "SELECT $agg FROM ${t}_local"), '54000', "$agg past capacity on $t locally: 54000");
	is(sqlstate($coord, "SELECT $agg FROM $t"), '54000', "$agg past capacity on $t on Citus: 54000");
}

# ---- the bloomfilter index access method on a distributed table ----
$coord->safe_psql('postgres',
	'CREATE INDEX links_url_bf ON links USING bloomfilter (url) WITH (capacity = 20000, fpr = 0.01)');
my @shards = split /\n/, $coord->safe_psql('postgres', q{
	SELECT shardid || ' ' || nodeport FROM citus_shards
	WHERE table_name = 'links'::regclass ORDER BY shardid});
is(scalar(@shards), 32, '32 shards');
foreach my $w (@workers)
{
	my $mine = grep { /\s(\d+)$/ && $1 == $w->port } @shards;
	is($w->safe_psql('postgres', q{SET citus.show_shards_for_app_name_prefixes = '*';
		SELECT count(*) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'bloomfilter' AND c.relname ~ '^links_url_bf_\d+$'}),
		$mine, $w->name . ": a bloomfilter index on each of its $mine shards");
}
# inserts through the coordinator maintain the shards' indexes
$coord->safe_psql('postgres', q{
	INSERT INTO links (id, url, host, batch)
	SELECT -id, url || '#after-index', host, 'after index' FROM links_local WHERE id % 100 = 0});
my ($found, $total, $added, $added_found) = (0, 0, 0, 0);
my %node_by_port = map { $_->port => $_ } @workers;
foreach my $s (@shards)
{
	my ($sid, $port) = split / /, $s;
	my ($n, $f, $a, $af) = split /\|/, $node_by_port{$port}->safe_psql('postgres', qq{
		SELECT count(*), count(*) FILTER (WHERE bloom_index_contains('links_url_bf_$sid', url)),
		       count(*) FILTER (WHERE batch = 'after index'),
		       count(*) FILTER (WHERE batch = 'after index' AND bloom_index_contains('links_url_bf_$sid', url))
		FROM links_$sid});
	$total += $n;
	$found += $f;
	$added += $a;
	$added_found += $af;
}
is($total, $rows + $added, 'the shards hold every row');
is($found, $total, 'each shard\'s index finds every row of its shard');
cmp_ok($added, '>', 1000, 'rows inserted after CREATE INDEX');
is($added_found, $added, 'inserts through the coordinator maintain the shard indexes');

# ---- a worker failing mid-batch rolls the whole batch back ----
my ($w2, $pg_ctl) = ($workers[1], $ENV{PG_BINDIR} ? "$ENV{PG_BINDIR}/pg_ctl" : 'pg_ctl');
my $stop = "\\! $pg_ctl -D " . $w2->data_dir . " -m immediate -w stop >/dev/null";
my $batch = q{INSERT INTO links (id, url, host, batch)
	SELECT -g, 'https://h' || (g % 50) || '.example/' || g, 'h' || (g % 50) || '.example', '%s'
	FROM generate_series(1, 2000) g;};
my %fail = (
	'before COMMIT' => "BEGIN;\n" . sprintf($batch, 'failed 1') . "\n$stop\n"
	  . sprintf($batch, 'failed 1') . "\nCOMMIT;\n",
	'at COMMIT' => "BEGIN;\n" . sprintf($batch, 'failed 2') . "\n$stop\nCOMMIT;\n",);
foreach my $case (sort keys %fail)
{
	my ($ret, $out, $err) = $coord->psql('postgres', $fail{$case});
	like($err, qr/ERROR:.*(closed the connection|connection to the remote node|could not connect)/s,
		"worker stopped $case: the batch fails");
	# psql stopped it behind the node object's back: let it see so
	$w2->_update_pid(0);
	$w2->start;
	my $label = $case eq 'at COMMIT' ? 'failed 2' : 'failed 1';
	is($coord->safe_psql('postgres', "SELECT count(*) FROM links WHERE batch = '$label'"),
		'0', "worker stopped $case: no row of the batch through the coordinator");
	is($coord->safe_psql('postgres', qq{
		SELECT sum(result::bigint) FROM run_command_on_shards('links',
		  \$\$SELECT count(*) FROM %s WHERE batch = '$label'\$\$)}),
		'0', "worker stopped $case: no row of the batch on any shard");
}
# the coordinator's transaction recovery leaves no prepared transaction
$coord->safe_psql('postgres', 'SELECT recover_prepared_transactions()');
is($coord->safe_psql('postgres', q{
	SELECT sum(result::bigint) FROM run_command_on_workers('SELECT count(*) FROM pg_prepared_xacts')}),
	'0', 'no prepared transaction left on the workers');
is($coord->safe_psql('postgres', "SELECT count(*) FROM links WHERE batch IS NULL OR batch = 'after index'"),
	$rows + $added, 'rows committed before the failures are all there');

$_->stop foreach reverse @nodes;
done_testing();
