# The crawler's URL-seen loop on Citus: `seen`, `frontier` and one filter
# per host distributed by host, and enqueue_host_links(host, links), a
# distributed function that Citus runs on the worker owning the host.  The
# real link stream of ../shared/data goes through it in batches, grouped by
# host on the way in, and through the walk-through's single-node
# enqueue_new_links (taken from doc/getting-started.md) in a database without Citus;
# the two frontiers must hold the same URLs, each once.  Run by
# tools/test-stages/50-citus.sh; doc/citus.md ("The crawler loop on Citus")
# explains it and quotes the figures printed here ("# crawler: ..." lines).
use strict;
use warnings;
use Cwd 'abs_path';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $data = abs_path($ENV{BLOOMFILTER_SHARED} // '../shared') . '/data';
plan skip_all => "no $data" unless -f "$data/doc-links-stream.txt.gz";

sub figure { diag sprintf('crawler: %-52s %s', @_); }

# ---- three nodes ----
my @nodes;
foreach my $name ('crawl_coordinator', 'crawl_worker1', 'crawl_worker2')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'citus'
session_preload_libraries = 'bloomfilter'
jit = off
max_connections = 60
fsync = off
log_statement = none
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
$coord->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

# ---- the Citus form (doc/citus.md shows the same statements) ----
my $citus_schema = <<'SQL';
CREATE TABLE seen (host text NOT NULL, url text NOT NULL, PRIMARY KEY (host, url));
SELECT create_distributed_table('seen', 'host', shard_count => 32);
CREATE TABLE frontier (host text NOT NULL, id bigserial, url text NOT NULL,
                       PRIMARY KEY (host, id));
SELECT create_distributed_table('frontier', 'host', colocate_with => 'seen');
CREATE TABLE host_filter (host text PRIMARY KEY, f bloomfilter NOT NULL);
SELECT create_distributed_table('host_filter', 'host', colocate_with => 'seen');

CREATE FUNCTION enqueue_host_links(host text, links text[]) RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    filter bloomfilter;
    batch text[];
    maybe_seen text[];
    fresh text[];
BEGIN
    IF EXISTS (SELECT 1 FROM unnest(links) AS x
               WHERE coalesce(url_host(x), '') <> enqueue_host_links.host) THEN
        RAISE EXCEPTION 'a link whose host is not "%"', enqueue_host_links.host
            USING ERRCODE = '22023';
    END IF;
    SELECT array_agg(DISTINCT url_normalize(x)) INTO batch FROM unnest(links) AS x;
    SELECT h.f INTO filter FROM host_filter h WHERE h.host = enqueue_host_links.host;
    -- the filter's "no" is final; its "probably" goes to seen
    SELECT array_agg(url) INTO maybe_seen FROM unnest(batch) AS url
    WHERE bloom_contains(filter, url);
    IF maybe_seen IS NOT NULL THEN
        batch := ARRAY(SELECT url FROM unnest(batch) AS url
                       EXCEPT
                       SELECT s.url FROM seen s
                       WHERE s.host = enqueue_host_links.host AND s.url = ANY (maybe_seen));
    END IF;
    WITH inserted AS (
        INSERT INTO seen (host, url)
        SELECT enqueue_host_links.host, url FROM unnest(batch) AS url
        ON CONFLICT DO NOTHING RETURNING url)
    SELECT array_agg(url) INTO fresh FROM inserted;
    IF fresh IS NOT NULL THEN
        INSERT INTO frontier (host, url)
        SELECT enqueue_host_links.host, url FROM unnest(fresh) AS url;
        INSERT INTO host_filter AS h (host, f)
        VALUES (enqueue_host_links.host, bloom_add(bloom_create(1000, 0.01), fresh))
        ON CONFLICT (host) DO UPDATE SET f = bloom_add(h.f, fresh);
    END IF;
    RETURN coalesce(cardinality(fresh), 0);
END
$$;
SELECT create_distributed_function('enqueue_host_links(text,text[])', 'host',
                                   colocate_with := 'seen');
SQL
$coord->safe_psql('postgres', $citus_schema);

# ---- the single-node loop, as doc/getting-started.md writes it ----
open my $fh, '<', 'doc/getting-started.md' or die "doc/getting-started.md: $!";
my $readme = do { local $/; <$fh> };
close $fh;
my ($readme_tables) = $readme =~ /^(CREATE TABLE seen \(url text PRIMARY KEY\);.*?^INSERT INTO url_filter [^\n]*\n)/ms;
my ($readme_function) = $readme =~ /^(CREATE FUNCTION enqueue_new_links\(links text\[\]\).*?^\$\$;)/ms;
ok(defined $readme_tables && defined $readme_function, 'doc/getting-started.md: the tables and enqueue_new_links found');

# single node: a database without Citus on the coordinator's server
$coord->safe_psql('postgres', 'CREATE DATABASE single');
$coord->safe_psql('single', "CREATE EXTENSION bloomfilter;\n$readme_tables\n$readme_function");

# on Citus, the walk-through's tables distributed as they stand (seen by url)
my $readme_citus = qq{SET search_path = readme, public;
	$readme_tables
	SELECT create_distributed_table('seen', 'url');
	SELECT create_distributed_table('frontier', 'id');
	SELECT create_reference_table('url_filter');
	$readme_function};
$coord->safe_psql('postgres', "CREATE SCHEMA readme;\n$readme_citus");
my $sample = q{ARRAY['https://www.postgresql.org/docs/', 'https://www.debian.org/']};
my ($ret, $out, $err) = $coord->psql('postgres',
	"SET search_path = readme, public; SELECT enqueue_new_links($sample)");
like($err, qr/could not create distributed plan.*parameters in SQL functions/s,
	'getting-started enqueue_new_links on Citus: fails, Citus cannot plan a SQL function\'s parameters');
(my $body) = $readme_function =~ /^\s*(WITH batch AS.*?SELECT count\(\*\) FROM fresh;)/ms;
$body =~ s/unnest\(links\)/unnest($sample)/;
($ret, $out, $err) = $coord->psql('postgres', "SET search_path = readme, public;\n$body");
like($err, qr/correlated subqueries are not supported when the FROM clause contains a CTE or subquery/,
	'getting-started enqueue_new_links body as one statement on Citus: fails on the correlated NOT EXISTS');

# ---- enqueue_host_links: distributed, one call on one worker ----
is($coord->safe_psql('postgres', q{
	SELECT o.distribution_argument_index || ' ' || (o.colocationid = p.colocationid)
	FROM pg_dist_object o, pg_dist_partition p
	WHERE o.objid = 'enqueue_host_links'::regproc AND p.logicalrelid = 'seen'::regclass}),
	'0 true', 'enqueue_host_links distributed by its first argument, colocated with seen');
my $host = 'www.example.org';
my $owner = $coord->safe_psql('postgres', qq{
	SELECT nodeport FROM citus_shards
	WHERE shardid = get_shard_id_for_distribution_column('seen', '$host')});
($ret, $out, $err) = $coord->psql('postgres', qq{
	SET citus.log_remote_commands = on;
	SELECT enqueue_host_links('$host', ARRAY['https://$host/a', 'HTTPS://WWW.EXAMPLE.ORG:443/a#x', 'https://$host/b']);
	SELECT enqueue_host_links('$host', ARRAY['https://$host/b', 'https://$host/c']);});
is($out, "2\n1", 'enqueue_host_links: new URLs counted once, seen ones skipped');
my @remote = $err =~ /NOTICE:\s+issuing (.*?)\nDETAIL:\s+on server \S+:(\d+)/g;
is_deeply(\@remote, [
		"SELECT public.enqueue_host_links('$host'::text, '{https://$host/a,HTTPS://WWW.EXAMPLE.ORG:443/a#x,https://$host/b}'::text[]) AS enqueue_host_links", $owner,
		"SELECT public.enqueue_host_links('$host'::text, '{https://$host/b,https://$host/c}'::text[]) AS enqueue_host_links", $owner],
	'each call: one command, sent to the worker owning the host, nothing else');
# on the worker, every statement of the function ran on the host's local shards
my ($owner_node) = grep { $_->port == $owner } @workers;
($ret, $out, $err) = $owner_node->psql('postgres', qq{
	SET citus.log_remote_commands = on; SET citus.log_local_commands = on;
	SELECT enqueue_host_links('$host', ARRAY['https://$host/d', 'https://$host/a']);});
is($out, '1', 'called on the owning worker directly: same answer');
unlike($err, qr/issuing/, 'on the owning worker: no command sent to another node');
like($err, qr/executing the command locally/, 'on the owning worker: the shards are local');
is($coord->psql('postgres', qq{SELECT enqueue_host_links('$host', ARRAY['https://other.example/'])},
		stderr => \$err), 3, 'a link of another host: an error');
like($err, qr/a link whose host is not "$host"/, 'a link of another host: rejected, not filed under the wrong host');
$coord->safe_psql('postgres', 'TRUNCATE seen, frontier, host_filter');

# ---- the loop: the real link stream, in batches, both ways ----
# the stream's first 60,000 links (of 124,776): the stage's time budget
my ($batch_size, $max_links) = (200, 60000);
my @links = split /\n/, `gzip -dc $data/doc-links-stream.txt.gz`;
cmp_ok(scalar(@links), '>', $max_links, 'the link stream read');
splice @links, $max_links;
sub sql_array { 'ARRAY[' . join(',', map { (my $l = $_) =~ s/'/''/g; "'$l'" } @_) . ']' }
# one psql script per form: psql's \timing gives each statement's round
# trip; a batch's latency is the sum of its statements' times
my ($citus_script, $single_script) = ("\\timing on\n") x 2;
for (my $i = 0; $i < @links; $i += $batch_size)
{
	my $end = $i + $batch_size - 1;
	$end = $#links if $end > $#links;
	my $array = sql_array(@links[$i .. $end]);
	my $marker = sprintf("\\echo batch %d\n", $i / $batch_size);
	# the client groups the batch by host, then one call per host
	# (\gexec: each row is a statement of its own, sent at the top level)
	$citus_script .= $marker . qq{SELECT format('SELECT enqueue_host_links(%L, %L)', host, links)
FROM (SELECT coalesce(url_host(l), '') AS host, array_agg(l) AS links
      FROM unnest($array) AS l GROUP BY 1) AS by_host \\gexec\n};
	$single_script .= $marker . "SELECT enqueue_new_links($array);\n";
}

# per-batch latencies (ms) from psql's output
sub latencies
{
	my ($out) = @_;
	my (@ms, @each);
	foreach (split /\n/, $out)
	{
		if (/^batch \d+$/) { push @ms, 0; push @each, []; }
		elsif (/^Time: ([\d.]+) ms/) { $ms[-1] += $1; push @{ $each[-1] }, $1; }
	}
	return (\@ms, \@each);
}

sub quantile
{
	my ($q, @v) = @_;
	@v = sort { $a <=> $b } @v;
	return $v[int($q * $#v + 0.5)];
}

my %run;
foreach my $form (['single', 'single', $single_script], ['citus', 'postgres', $citus_script])
{
	my ($name, $db, $script) = @$form;
	my ($stdout, $stderr) = ('', '');
	my $t0 = time;
	my $rc = $coord->psql($db, $script, stdout => \$stdout, stderr => \$stderr, on_error_stop => 1);
	my $total = time - $t0;
	is($rc, 0, "$name loop: every batch ran") or diag substr($stderr, 0, 2000);
	my ($ms, $each) = latencies($stdout);
	$run{$name} = { total => $total, ms => $ms, each => $each };
}
my $batches = scalar(@{ $run{citus}{ms} });
is(scalar(@{ $run{single}{ms} }), $batches, "both loops timed $batches batches");

# ---- same frontier, each URL once, none lost ----
my $set = q{SELECT count(*) || ' ' || count(DISTINCT url) || ' ' || md5(string_agg(url, E'\n' ORDER BY url)) FROM %s};
my $single_frontier = $coord->safe_psql('single', sprintf($set, 'frontier'));
my $citus_frontier = $coord->safe_psql('postgres', sprintf($set, 'frontier'));
my ($n_frontier, $n_distinct) = split / /, $citus_frontier;
is($n_frontier, $n_distinct, 'Citus frontier: each URL once');
is($citus_frontier, $single_frontier, 'Citus frontier: the same URLs as the single-node one');
is($coord->safe_psql('postgres', sprintf($set, 'seen')), $citus_frontier,
	'Citus seen: the frontier\'s URLs');
# every distinct normalized URL of the stream, computed apart from either loop
my $stream_file = "$PostgreSQL::Test::Utils::tmp_check/crawler_stream.txt";
open my $sf, '>', $stream_file or die "$stream_file: $!";
print $sf "$_\n" foreach @links;
close $sf;
$coord->safe_psql('single', qq{CREATE TABLE stream (url text);
	COPY stream FROM '$stream_file';});
is($coord->safe_psql('single', sprintf($set, '(SELECT DISTINCT url_normalize(url) AS url FROM stream) s')),
	$citus_frontier, 'no URL lost: the stream\'s distinct normalized URLs, all in seen and queued');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM seen s JOIN host_filter h USING (host) WHERE NOT bloom_contains(h.f, s.url)}),
	'0', 'each host\'s filter holds every URL of its host');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM host_filter'),
	$coord->safe_psql('postgres', 'SELECT count(DISTINCT host) FROM seen'), 'one filter per host');
# a batch sent again (a client retrying after a lost answer) adds nothing
my ($again) = $citus_script =~ /^\\echo batch 1\n(.*?\\gexec)\n/ms;
my $before = $coord->safe_psql('postgres', 'SELECT count(*) FROM frontier');
my $answers = $coord->safe_psql('postgres', $again);
unlike($answers, qr/[1-9]/, 'a batch sent again: no URL new');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM frontier'), $before, 'a batch sent again: nothing queued');

# ---- figures ----
foreach my $name ('single', 'citus')
{
	my $r = $run{$name};
	figure(sprintf('%s, %d links in %d batches of %d', $name eq 'citus' ? 'Citus' : 'single node',
			scalar(@links), $batches, $batch_size),
		sprintf('per batch median %.1f ms, p90 %.1f ms; total %.1f s',
			quantile(0.5, @{ $r->{ms} }), quantile(0.9, @{ $r->{ms} }), $r->{total}));
}
# a Citus batch: the grouping query (its last statement), then one call per host
my @grouping = map { $_->[-1] } @{ $run{citus}{each} };
my @calls = map { @{$_}[0 .. $#$_ - 1] } @{ $run{citus}{each} };
figure('Citus: calls per batch (one per host): mean, max',
	sprintf('%.1f, %d', @calls / $batches, (sort { $b <=> $a } map { $#$_ } @{ $run{citus}{each} })[0]));
figure('Citus: one call, median / p90',
	sprintf('%.1f ms / %.1f ms', quantile(0.5, @calls), quantile(0.9, @calls)));
figure('Citus: the grouping query, median', sprintf('%.1f ms', quantile(0.5, @grouping)));
figure('URLs queued (distinct normalized)', $n_frontier);

$_->stop foreach reverse @nodes;
done_testing();
