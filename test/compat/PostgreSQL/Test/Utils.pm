# PostgreSQL::Test::Utils for PostgreSQL 14 releases that ship only
# TestLib.pm: the same functions and variables under the new name (see
# Cluster.pm beside this file).

package PostgreSQL::Test::Utils;

use strict;
use warnings;

use TestLib ();
use Exporter 'import';

our @EXPORT = @TestLib::EXPORT;

{
	no strict 'refs';
	foreach my $sym (@TestLib::EXPORT, 'tempdir', 'tempdir_short')
	{
		if ($sym =~ /^\$(\w+)$/)
		{
			*{"PostgreSQL::Test::Utils::$1"} = \${"TestLib::$1"};
		}
		else
		{
			*{"PostgreSQL::Test::Utils::$sym"} = \&{"TestLib::$sym"};
		}
	}
}

1;
