# Updates between extension versions.  For every earlier version that
# ships (its frozen install script in the installation): CREATE EXTENSION
# bloomfilter VERSION '<old>', store values of every type, ALTER EXTENSION
# bloomfilter UPDATE; the catalog must then be the one a fresh install of
# the current version makes (every object, definition, property and
# comment), and the stored values must read back byte for byte, answer for
# every element added, and take new elements.  Also: the scripts' guard
# against a module older than the catalog.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $sharedir = `pg_config --sharedir`;
chomp $sharedir;
my $control = slurp_file("$sharedir/extension/bloomfilter.control");
my ($current) = $control =~ /^default_version\s*=\s*'([^']+)'/m;
ok(defined $current, "control file names the current version ($current)");

sub vkey { return join('.', map { sprintf('%05d', $_) } split(/\./, $_[0])); }
my @old = sort { vkey($a) cmp vkey($b) }
  grep { $_ ne $current }
  map { m{/bloomfilter--([0-9.]+)\.sql$} ? $1 : () }
  glob("$sharedir/extension/bloomfilter--*.sql");
ok(scalar(@old) >= 1, 'earlier versions ship: ' . join(', ', @old));

my $node = new_node('upgrade');

# One line per fact of the extension's catalog, sorted: every member
# object, each function's full definition and ACL, each aggregate's,
# type's, operator's and cast's properties, every comment.
my $catalog_sql = q{
WITH ext AS (SELECT oid, extversion, extrelocatable FROM pg_extension WHERE extname = 'bloomfilter'),
m AS (SELECT classid, objid FROM pg_depend
      WHERE refclassid = 'pg_extension'::regclass AND refobjid = (SELECT oid FROM ext) AND deptype = 'e')
SELECT line FROM (
  SELECT format('extension %s relocatable %s', extversion, extrelocatable) AS line FROM ext
  UNION ALL
  SELECT 'object ' || pg_describe_object(classid, objid, 0) || ' comment: '
         || coalesce((SELECT description FROM pg_description d
                      WHERE d.classoid = m.classid AND d.objoid = m.objid AND d.objsubid = 0), '<none>')
  FROM m
  UNION ALL
  SELECT 'function ' || replace(pg_get_functiondef(p.oid), E'\n', ' ') || ' acl ' || coalesce(p.proacl::text, '<default>')
  FROM m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  WHERE p.prokind <> 'a'
  UNION ALL
  SELECT format('aggregate %s: kind %s direct %s trans %s final %s combine %s serial %s deserial %s '
                'mtrans %s minv %s mfinal %s extra %s %s modify %s %s sortop %s stype %s sspace %s '
                'mstype %s init %s minit %s parallel %s acl %s',
                p.oid::regprocedure, a.aggkind, a.aggnumdirectargs,
                a.aggtransfn::oid::regprocedure, nullif(a.aggfinalfn::oid, 0)::regprocedure,
                nullif(a.aggcombinefn::oid, 0)::regprocedure, nullif(a.aggserialfn::oid, 0)::regprocedure,
                nullif(a.aggdeserialfn::oid, 0)::regprocedure, nullif(a.aggmtransfn::oid, 0)::regprocedure,
                nullif(a.aggminvtransfn::oid, 0)::regprocedure, nullif(a.aggmfinalfn::oid, 0)::regprocedure,
                a.aggfinalextra, a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify,
                nullif(a.aggsortop, 0)::regoperator, a.aggtranstype::regtype, a.aggtransspace,
                nullif(a.aggmtranstype, 0)::regtype, a.agginitval, a.aggminitval, p.proparallel,
                coalesce(p.proacl::text, '<default>'))
  FROM m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  JOIN pg_aggregate a ON a.aggfnoid = p.oid
  UNION ALL
  SELECT format('type %s: type %s len %s byval %s category %s preferred %s delim %s in %s out %s '
                'recv %s send %s modin %s modout %s analyze %s align %s storage %s elem %s array %s '
                'default %s acl %s',
                t.oid::regtype, t.typtype, t.typlen, t.typbyval, t.typcategory, t.typispreferred,
                t.typdelim, t.typinput::oid::regprocedure, t.typoutput::oid::regprocedure,
                nullif(t.typreceive::oid, 0)::regprocedure, nullif(t.typsend::oid, 0)::regprocedure,
                nullif(t.typmodin::oid, 0)::regprocedure, nullif(t.typmodout::oid, 0)::regprocedure,
                nullif(t.typanalyze::oid, 0)::regprocedure, t.typalign, t.typstorage,
                nullif(t.typelem, 0)::regtype, nullif(t.typarray, 0)::regtype, t.typdefault,
                coalesce(t.typacl::text, '<default>'))
  FROM m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
  UNION ALL
  SELECT format('operator %s: code %s commutator %s negator %s restrict %s join %s merges %s hashes %s',
                o.oid::regoperator, o.oprcode::oid::regprocedure, nullif(o.oprcom, 0)::regoperator,
                nullif(o.oprnegate, 0)::regoperator, nullif(o.oprrest::oid, 0)::regprocedure,
                nullif(o.oprjoin::oid, 0)::regprocedure, o.oprcanmerge, o.oprcanhash)
  FROM m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
  UNION ALL
  SELECT format('cast %s -> %s: function %s context %s method %s',
                c.castsource::regtype, c.casttarget::regtype, nullif(c.castfunc, 0)::regprocedure,
                c.castcontext, c.castmethod)
  FROM m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
  UNION ALL
  SELECT format('opfamily member %s', pg_describe_object('pg_amop'::regclass, ao.oid, 0))
  FROM m JOIN pg_amop ao ON m.classid = 'pg_opfamily'::regclass AND ao.amopfamily = m.objid
  UNION ALL
  SELECT format('opfamily member %s', pg_describe_object('pg_amproc'::regclass, ap.oid, 0))
  FROM m JOIN pg_amproc ap ON m.classid = 'pg_opfamily'::regclass AND ap.amprocfamily = m.objid
) s ORDER BY line COLLATE "C"
};

sub catalog
{
	my ($db) = @_;
	return [ split /\n/, $node->safe_psql($db, $catalog_sql) ];
}

# lines of $a missing from $b, for a readable failure
sub missing
{
	my ($a, $b) = @_;
	my %in_b = map { $_ => 1 } @$b;
	return grep { !$in_b{$_} } @$a;
}

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION bloomfilter');
my $fresh = catalog('fresh');
ok(scalar(@$fresh) > 100, 'a fresh install: ' . scalar(@$fresh) . ' catalog facts');
is($node->safe_psql('fresh', 'SELECT bloomfilter_module_version()'), $current,
	'the loaded module is the current version');

my $n = 1000;

# The types the probe scan answers (scan.c's probe_functions).
my %probe_scan = map { $_ => 1 } qw(bloomfilter countingbloom cuckoofilter);

# Rows of NOT contains(a NULL filter, x) over $n links with the probe scan
# on or off, and whether the plan used it.  One module serves the catalog
# of every version: the scan must give the rows of the function that
# catalog has, STRICT in 1.0 (a NULL filter's answer NULL: no row
# passes) and not since 1.1 (a NULL filter contains nothing: every row
# passes).
sub null_filter_rows
{
	my ($db, $t, $scan) = @_;
	my $q = "SELECT count(*) FROM links WHERE NOT "
	  . "$t->{contains}((SELECT f FROM v_$t->{type} WHERE false), url)";
	my $set = "SET bloomfilter.enable_probe_scan = $scan;";
	my $plan = $node->safe_psql($db, "$set EXPLAIN (COSTS OFF) $q");
	my $rows = $node->safe_psql($db, "$set $q");
	return ($rows, $plan =~ /BloomProbeScan/ ? 1 : 0);
}

sub check_null_filter
{
	my ($db, $label, $types, $want) = @_;
	foreach my $t (@$types)
	{
		my ($on, $used) = null_filter_rows($db, $t, 'on');
		my ($off, $used_off) = null_filter_rows($db, $t, 'off');
		is("$on $off", "$want $want",
			"$label: $t->{type}: NOT contains(NULL filter, x) keeps $want of $n rows, probe scan on and off");
		is($used, $probe_scan{ $t->{type} } ? 1 : 0,
			"$label: $t->{type}: the probe scan answers it where it can");
		is($used_off, 0, "$label: $t->{type}: and not when it is off");
	}
}

foreach my $old (@old)
{
	(my $db = "from_$old") =~ s/\./_/g;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION bloomfilter VERSION '$old'");
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
		$old, "$old: installed as $old");
	isnt(join("\n", @{ catalog($db) }), join("\n", @$fresh),
		"$old: its catalog differs from the current one before the update");

	# values stored under the old version: one of each type, $n keys
	my @types = present_types($node, $db);
	ok(scalar(@types) >= 4, "$old: " . scalar(@types) . ' filter types');
	foreach my $t (@types)
	{
		$node->safe_psql($db,
			"CREATE TABLE v_$t->{type} AS SELECT 1 AS id, $t->{add}($t->{create}, "
			  . "array_agg('key-' || i)) AS f FROM generate_series(1, $n) i");
	}
	my %before;
	foreach my $tab (map { "v_$_->{type}" } @types)
	{
		$before{$tab} = md5_rows($node, $db, $tab);
	}
	$node->safe_psql($db,
		"CREATE TABLE links AS SELECT 'key-' || i AS url FROM generate_series(1, $n) i; ANALYZE links");
	check_null_filter($db, $old, \@types, $old eq '1.0' ? 0 : $n);

	$node->safe_psql($db, 'ALTER EXTENSION bloomfilter UPDATE');
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
		$current, "$old: updated to $current");
	my $updated = catalog($db);
	my @lost = missing($fresh, $updated);
	my @extra = missing($updated, $fresh);
	ok(!@lost && !@extra, "$old -> $current: the catalog is a fresh install's")
	  or diag("only in a fresh install:\n  " . join("\n  ", @lost)
		  . "\nonly after the update:\n  " . join("\n  ", @extra));

	check_null_filter($db, "$old -> $current", \@types, $n);
	foreach my $t (@types)
	{
		my $tab = "v_$t->{type}";
		is(md5_rows($node, $db, $tab), $before{$tab}, "$old: $t->{type} value unchanged by the update");
		is($node->safe_psql($db, valid_check($t->{type}, $tab)), 't',
			"$old: $t->{type} value passes the checker (text and bytea)");
		next if $t->{lossy};
		is( $node->safe_psql($db,
				"SELECT count(*) FROM $tab, generate_series(1, $n) i "
				  . "WHERE NOT $t->{contains}(f, 'key-' || i)"),
			'0', "$old: $t->{type}: all $n keys present after the update");
		is( $node->safe_psql($db,
				"SELECT $t->{contains}($t->{add}(f, 'new key'::text), 'new key'::text) FROM $tab"),
			't', "$old: $t->{type}: takes a new key after the update");
	}
}

# The guard at the head of the install and update scripts, as shipped: a
# module older than the script stops it with 55000 and says which
# versions met (run here as if the script were of a version 99.0).
my $script = slurp_file("$sharedir/extension/bloomfilter--$current.sql");
my ($guard) = $script =~ /^-- guard: module older than this script\n(.*?)^-- end guard$/ms;
ok(defined $guard, 'the install script has the module-version guard');
like(slurp_file("$sharedir/extension/bloomfilter--$old[-1]--$current.sql"),
	qr/^-- guard: module older than this script\n\Q$guard\E^-- end guard$/ms,
	"the update script to $current has the same guard");
$guard =~ s/\Q$current\E/99.0/g;
my ($ret, $out, $err) = $node->psql('fresh', "\\set VERBOSITY verbose\n$guard");
isnt($ret, 0, 'the guard stops a script newer than the module');
like($err, qr/ERROR:\s+55000: the loaded bloomfilter module is version \Q$current\E, older than this script's 99\.0/,
	'it names both versions (SQLSTATE 55000)');
like($err, qr/HINT:\s+Install bloomfilter 99\.0/, 'and says what to do');
$guard =~ s/99\.0/$current/g;
($ret) = $node->psql('fresh', $guard);
is($ret, 0, 'the guard passes a module of the script\'s own version');

$node->stop;
done_testing();

sub valid_check
{
	my ($type, $tab) = @_;
	return "SELECT bool_and(" . valid_sql($type, 'f') . ") FROM $tab";
}
