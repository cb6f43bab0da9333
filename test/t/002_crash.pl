# Crash: kill -9 the server (postmaster and every backend) in the middle
# of a concurrent add load, restart, and check that crash recovery kept
# every committed key and that every stored filter validates.  Then the
# same with kill -9 of one backend, which makes the postmaster itself
# reset and recover.  Load time before each kill: BF_CRASH_SECONDS (5).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use BFTest;

my $secs = $ENV{BF_CRASH_SECONDS} // 5;

my $node = new_node('crash');
# a checkpoint in the middle of the load too, so recovery starts from one
$node->append_conf('postgresql.conf', "checkpoint_timeout = 30s\nrestart_after_crash = on\n");
$node->restart;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
my @types = present_types($node, 'postgres');
my @lossless = grep { !$_->{lossy} } @types;

$node->safe_psql('postgres',
	"CREATE TABLE committed (t text, k text); CREATE SEQUENCE keyseq;");
my $dir = PostgreSQL::Test::Utils::tempdir;
my @scripts;
foreach my $t (@types)
{
	my $tab = "filt_$t->{type}";
	# row 1 takes the load; rows 2.. are filters of other shapes that
	# must come through recovery intact as well
	$node->safe_psql('postgres',
		"CREATE TABLE $tab (id int PRIMARY KEY, f $t->{type}); "
		  . "INSERT INTO $tab VALUES (1, $t->{create}), (2, $t->{big});");
	my $has_array = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_proc WHERE proname = '$t->{add}' "
		  . "AND proargtypes[1] = 'text[]'::regtype");
	$t->{npre} = $has_array ? 2000 : 200;
	if ($has_array)
	{
		$node->safe_psql('postgres',
			"UPDATE $tab SET f = $t->{add}(f, ARRAY(SELECT 'pre-' || i "
			  . "FROM generate_series(1, 2000) i)) WHERE id = 2");
	}
	else
	{
		$node->safe_psql('postgres',
			"DO \$\$ BEGIN FOR i IN 1..200 LOOP "
			  . "UPDATE $tab SET f = $t->{add}(f, 'pre-' || i) WHERE id = 2; END LOOP; END \$\$");
	}
	my $file = "$dir/$t->{type}.sql";
	open my $fh, '>', $file or die $!;
	print $fh <<"SQL";
BEGIN;
SELECT nextval('keyseq') AS n \\gset
UPDATE $tab SET f = $t->{add}(f, 'key-' || :n) WHERE id = 1;
INSERT INTO committed VALUES ('$t->{type}', 'key-' || :n);
END;
SQL
	close $fh;
	push @scripts, '-f', $file;
}

my $log_offset = 0;

# start the load, let it run, kill, and return the count committed before
sub load_and_kill
{
	my ($how) = @_;
	my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM committed');
	$log_offset = -s $node->logfile;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[
			'pgbench', '-n', '-c', 8, '-j', 2, '-T', $secs + 60,
			'-h', $node->host, '-p', $node->port, @scripts, 'postgres'
		],
		'>', \$out, '2>', \$err);
	sleep $secs;
	my $pid = $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' "
		  . "AND pid <> pg_backend_pid() AND datname = 'postgres' LIMIT 1");
	die "no pgbench backend to kill: $err" if $how ne 'server' && $pid eq '';
	if ($how eq 'server')
	{
		# the postmaster and every child, as a power cut would
		my $pm = $node->{_pid};
		my @children = split ' ', `ps -o pid= --ppid $pm`;
		kill 9, $pm, @children;
		$node->{_pid} = undef;
		# wait until every one of them is gone before restarting
		for (1 .. 100)
		{
			last unless grep { kill 0, $_ } ($pm, @children);
			usleep(100_000);
		}
		note "killed postmaster $pm and " . scalar(@children) . " children";
	}
	else
	{
		kill 9, $pid;
		note "killed backend $pid";
	}
	$h->finish;
	if ($how eq 'server')
	{
		$node->start;
	}
	else
	{
		# the postmaster restarts after crash recovery; pg_isready asks
		# without writing to a server that may drop the connection (psql's
		# input pipe could break mid-restart and kill the test)
		my $up = 0;
		foreach (1 .. 600)
		{
			if (system('pg_isready', '-q', '-h', $node->host, '-p', $node->port) == 0)
			{
				$up = 1;
				last;
			}
			usleep(100_000);
		}
		$up or die 'server did not come back after a backend crash';
	}
	return $before;
}

foreach my $how ('server', 'backend')
{
	my $before = load_and_kill($how);
	my $after = $node->safe_psql('postgres', 'SELECT count(*) FROM committed');
	ok($after > $before, "kill -9 of the $how mid-load: " . ($after - $before) . " keys committed before it");
	like(substr(slurp_file($node->logfile), $log_offset), qr/database system was (interrupted|not properly shut down)|terminating any other active server processes/,
		"$how crash: recovery ran");

	foreach my $t (@lossless)
	{
		my $tab = "filt_$t->{type}";
		my ($n, $missing) = split /\|/, $node->safe_psql('postgres',
			"SELECT count(*), count(*) FILTER (WHERE NOT $t->{contains}(x.f, c.k)) "
			  . "FROM committed c, $tab x WHERE c.t = '$t->{type}' AND x.id = 1");
		is($missing, '0', "$how crash: $t->{type}: all $n committed keys present");
		diag("crash ($how) $t->{type}: $n committed keys, $missing lost") if $how eq 'server';
		my $pre = $node->safe_psql('postgres',
			"SELECT count(*) FROM generate_series(1, $t->{npre}) i, $tab x "
			  . "WHERE x.id = 2 AND NOT $t->{contains}(x.f, 'pre-' || i)");
		is($pre, '0', "$how crash: $t->{type}: the other filter kept its keys");
	}
	foreach my $t (@types)
	{
		my $tab = "filt_$t->{type}";
		is($node->safe_psql('postgres',
				"SELECT count(*) FROM $tab WHERE NOT (" . valid_sql($t->{type}, 'f') . ')'),
			'0', "$how crash: every stored $t->{type} validates");
	}
}

# and the table as a whole is readable (no toast damage)
foreach my $t (@types)
{
	my $tab = "filt_$t->{type}";
	$node->safe_psql('postgres', "VACUUM $tab");
	ok($node->safe_psql('postgres', "SELECT sum(length(f::bytea)) FROM $tab") > 0,
		"$t->{type}: table readable after recovery and vacuum");
}

$node->stop;
done_testing();
