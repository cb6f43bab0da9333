# Security: the extension is trusted (bloomfilter.control), so a database
# owner without superuser can create it; nobody else can.  Its install
# script is safe against search_path tricks by a hostile schema owner, it
# has no SECURITY DEFINER or SET-carrying function and nothing but C
# functions, and an unprivileged user calling anything it installs, with
# any input, gets an error and never a crash.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BFTest;

my $node = new_node('security');
$node->safe_psql('postgres', q{
	CREATE ROLE owner LOGIN;
	CREATE ROLE mallory LOGIN;
	CREATE ROLE nobody LOGIN;
	CREATE DATABASE ownerdb OWNER owner;
	REVOKE CREATE ON DATABASE ownerdb FROM PUBLIC;
});

sub psql_as
{
	my ($role, $db, $sql) = @_;
	my ($ret, $out, $err) = $node->psql($db, "\\set VERBOSITY verbose\n$sql",
		extra_params => [ '-U', $role ]);
	my ($state) = $err =~ /ERROR:\s+([0-9A-Z]{5}):/;
	return ($ret, $out, $state // '', $err);
}

# ---- the install script as shipped ----
my $sharedir = `pg_config --sharedir`;
chomp $sharedir;
my $control = slurp_file("$sharedir/extension/bloomfilter.control");
like($control, qr/^trusted\s*=\s*true/m, 'control file: trusted = true');
# every install and update script that ships
my @scripts = glob("$sharedir/extension/bloomfilter--*.sql");
ok(scalar(@scripts) >= 2, scalar(@scripts) . ' install and update scripts');
foreach my $file (@scripts)
{
	my $script = slurp_file($file);
	my ($name) = $file =~ m{([^/]+)$};
	like($script, qr/^\\echo Use "(CREATE|ALTER) EXTENSION bloomfilter/m, "$name has the \\echo guard");
	unlike($script, qr/CREATE\s+OR\s+REPLACE/i, "$name has no CREATE OR REPLACE");
	unlike($script, qr/SECURITY\s+DEFINER/i, "$name has no SECURITY DEFINER");
	unlike($script, qr/^\s*(SET|RESET)\s+/im, "$name changes no settings");
}

# ---- a hostile schema owner plants look-alikes, then the owner installs ----
$node->safe_psql('ownerdb', q{
	CREATE SCHEMA trap AUTHORIZATION mallory;
	GRANT USAGE, CREATE ON SCHEMA trap TO owner;
	CREATE TABLE public.mallory_log (what text);
	GRANT INSERT ON public.mallory_log TO PUBLIC;
});
my ($ret, $out, $state, $err) = psql_as('mallory', 'ownerdb', q{
	-- would run as whoever calls it, e.g. the bootstrap superuser
	-- installing a trusted extension
	CREATE FUNCTION trap.pwn() RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO public.mallory_log VALUES (current_user);
		BEGIN
			EXECUTE 'ALTER ROLE mallory SUPERUSER';
		EXCEPTION WHEN OTHERS THEN NULL;
		END;
		RETURN true;
	END $$;
	-- (look-alikes of contsel/contjoinsel would need internal arguments,
	-- which only C functions, so only superusers, can have)
	CREATE FUNCTION trap.bloom_contains(anyelement, text) RETURNS boolean
		LANGUAGE plpgsql AS $$ BEGIN RETURN trap.pwn(); END $$;
	CREATE FUNCTION trap.bloom_add(anyelement, text) RETURNS anyelement
		LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.pwn(); RETURN $1; END $$;
	CREATE FUNCTION trap.text(anyelement) RETURNS text
		LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.pwn(); RETURN ''; END $$;
	CREATE FUNCTION trap."="(text, text) RETURNS boolean
		LANGUAGE plpgsql AS $$ BEGIN RETURN trap.pwn(); END $$;
	CREATE OPERATOR trap.= (LEFTARG = text, RIGHTARG = text, FUNCTION = trap."=");
});
is($ret, 0, 'mallory planted look-alikes in schema trap') or diag($err);

($ret, $out, $state, $err) =
  psql_as('owner', 'ownerdb', 'CREATE EXTENSION bloomfilter SCHEMA trap');
is($ret, 0, 'a database owner without superuser can CREATE EXTENSION (trusted)') or diag($err);
is($node->safe_psql('ownerdb', 'SELECT count(*) FROM public.mallory_log'), '0',
	'no planted function ran during the install');
is($node->safe_psql('ownerdb', "SELECT rolsuper FROM pg_roles WHERE rolname = 'mallory'"),
	'f', 'mallory is not superuser');
is($node->safe_psql('ownerdb', q{
	SELECT string_agg(DISTINCT oprrest::text || ' ' || oprjoin::text, ', ')
	  FROM pg_operator WHERE oprname IN ('@>', '<@')
	   AND (oprleft IN (SELECT oid FROM pg_type WHERE typnamespace = 'trap'::regnamespace)
	    OR oprright IN (SELECT oid FROM pg_type WHERE typnamespace = 'trap'::regnamespace))}),
	'contsel contjoinsel', 'operators use pg_catalog.contsel and contjoinsel');

my $ext_procs = q{
	SELECT p.oid FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
	 WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
	   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')};
is($node->safe_psql('ownerdb',
		"SELECT count(*) FROM pg_proc WHERE oid IN ($ext_procs) AND (prosecdef OR proconfig IS NOT NULL)"),
	'0', 'no SECURITY DEFINER function, none with SET');
is($node->safe_psql('ownerdb',
		"SELECT string_agg(DISTINCT l.lanname, ',') FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
		  . "WHERE p.oid IN ($ext_procs) AND p.prokind = 'f'"),
	'c', 'every function is C (no SQL body to resolve names at run time)');
is($node->safe_psql('ownerdb',
		"SELECT count(*) FROM pg_operator o WHERE o.oprcode::oid NOT IN ($ext_procs) "
		  . "AND (o.oprleft::regtype::text LIKE '%bloom%' OR o.oprright::regtype::text LIKE '%bloom%')"),
	'0', "every operator on the extension's types calls the extension's own function");

# at run time too, with the hostile schema first in the path
($ret, $out, $state, $err) = psql_as('owner', 'ownerdb', q{
	SET search_path = trap, public;
	SELECT bloom_create(10) @> 'x'::text, bloom_contains(bloom_add(bloom_create(10), 'x'), 'x')});
is($ret, 0, 'the extension works with the trap schema on the path') or diag($err);
is($node->safe_psql('ownerdb', 'SELECT count(*) FROM public.mallory_log'), '0',
	'no planted function ran at run time');

# ---- a name collision makes the install fail; it never replaces ----
$node->safe_psql('postgres', 'CREATE DATABASE collide OWNER owner');
($ret, $out, $state, $err) = psql_as('owner', 'collide', q{
	CREATE FUNCTION public.bloom_create(capacity bigint, fpr float8, layout text, scalable boolean)
		RETURNS text LANGUAGE sql AS $$SELECT 'planted'$$});
is($ret, 0, 'planted a function with the signature of bloom_create') or diag($err);
($ret, $out, $state, $err) = psql_as('owner', 'collide', 'CREATE EXTENSION bloomfilter');
isnt($ret, 0, 'install fails on a pre-existing object of the same name');
is($node->safe_psql('collide', "SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE proname = 'bloom_create'"),
	'sql', 'and leaves it untouched');

# ---- only someone with CREATE on the database may install it ----
$node->safe_psql('postgres', 'CREATE DATABASE other OWNER owner; REVOKE CREATE ON DATABASE other FROM PUBLIC');
($ret, $out, $state, $err) = psql_as('nobody', 'other', 'CREATE EXTENSION bloomfilter');
is($state, '42501', 'a user without CREATE on the database cannot install it');

# ---- an unprivileged user calls everything with hostile arguments ----
$node->safe_psql('postgres', 'CREATE DATABASE plain OWNER owner');
($ret, $out, $state, $err) = psql_as('owner', 'plain', 'CREATE EXTENSION bloomfilter');
is($ret, 0, 'owner installs it in a second database') or diag($err);
my @calls = (
	[ q{SELECT bloom_union_trans(NULL::bloomfilter, bloom_create(10))}, '0A000' ],
	[ q{SELECT bloom_intersection_trans(bloom_create(10), bloom_create(10))}, '0A000' ],
	[ q{SELECT bloom_keyset_combine(NULL::bloom_keyset, NULL::bloom_keyset)}, '0A000' ],
	[ q{SELECT bloom_keyset_trans(NULL::bloom_keyset, 'x'::text)}, '0A000' ],
	[ q{SELECT bloom_agg_trans(NULL::bloomfilter, 'x'::text, 10, 0.01)}, '0A000' ],
	# a final function called outside an aggregate cannot see the
	# parameters an empty filter needs: refused, not guessed
	[ q{SELECT bloom_agg_final(NULL::bloomfilter) IS NOT NULL}, '0A000' ],
	[ q{SELECT bloom_keyset_final(NULL::bloom_keyset) IS NOT NULL}, '0A000' ],
	[ "SELECT bloom_keyset_final('" . keyset_literal('0', '5', '1000000000000007') . "') @> 'x'::text", '' ],
	[ q{SELECT 'QUJD'::bloom_keyset}, '22P02' ],
	[ q{CREATE AGGREGATE pg_temp.evil(text) (SFUNC = bloom_keyset_trans, STYPE = bloom_keyset, INITCOND = 'AAAA')}, '22P02' ],
	[ q{CREATE AGGREGATE pg_temp.evil2(bloomfilter) (SFUNC = bloom_union_trans, STYPE = bloomfilter, INITCOND = 'BQEBAA==')}, '22P02' ],
	[ q{SELECT bloom_create(10) | bloom_create(20)}, '22023' ],
	[ q{SELECT bloom_create(10, 0.01, 'nope')}, '22023' ],
	[ q{SELECT bloom_create(-1)}, '22023' ],
	[ q{SELECT bloom_create(10, 'NaN')}, '22023' ],
	[ q{SELECT bloom_add(bloom_create(10), ARRAY[1.5]::numeric[]::text[])}, '' ],
);
foreach my $c (@calls)
{
	($ret, $out, $state, $err) = psql_as('nobody', 'plain', $c->[0]);
	is($state, $c->[1], "unprivileged: $c->[0]: " . ($c->[1] || 'works'));
}
# a user-defined aggregate over the extension's support functions
($ret, $out, $state, $err) = psql_as('nobody', 'plain', q{
	CREATE AGGREGATE pg_temp.myunion(bloomfilter) (SFUNC = bloom_union_trans, STYPE = bloomfilter);
	SELECT bloom_cardinality(pg_temp.myunion(f)) FROM
	  (SELECT bloom_add(bloom_create(100), g::text) f FROM generate_series(1, 50) g) s});
ok($ret == 0 || $state ne '', 'user-defined aggregate over the support functions: no crash');

like($node->safe_psql('postgres', 'SELECT 1'), qr/1/, 'server alive');
unlike(slurp_file($node->logfile), qr/terminated by signal|server process .* was terminated/,
	'no backend crashed');

$node->stop;
done_testing();
