# PostgreSQL::Test::Cluster for PostgreSQL 14 releases that ship only
# PostgresNode.pm (the module was renamed in 15, and the new name reached
# 14 only in later minor releases).  test/t needs just the constructor
# under the new name: every method it calls exists in PostgresNode.
# tools/test-stages/20-tap.sh puts this directory on @INC only when the
# installed PostgreSQL lacks the module.

package PostgreSQL::Test::Cluster;

use strict;
use warnings;

use PostgresNode ();

our @ISA = ('PostgresNode');

sub new
{
	my ($class, $name, @rest) = @_;

	# PostgresNode::get_new_node makes the object with
	# $class->new($name, $host, $port)
	return $class->SUPER::new($name, @rest) if @rest == 2 && $rest[1] =~ /^\d+$/;
	return PostgresNode::get_new_node($class, $name, @rest);
}

1;
