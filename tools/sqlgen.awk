# sqlgen.awk: the current version's install script from its pieces.
#
#   awk -v extversion=1.1 -f tools/sqlgen.awk src/sql/*.sql > bloomfilter--1.1.sql
#
# Writes the pieces one after the other, in the order given (the Makefile
# gives them in name order), with @EXTVERSION@ replaced by extversion.  A
# block of lines between
#
#   -- @each element
#   -- @end
#
# is a template of what every element type has: it is written once for
# each, text, bytea, bigint, uuid in that order, with
#
#   placeholder  text       bytea      bigint                     uuid
#   @ELEM@       text       bytea      bigint                     uuid
#                the SQL type (@ELEM@[] is its array type)
#   @SYM@        text       text       int8                       uuid
#                suffix of the C entry points PGBF_ELEM_ENTRY_POINTS
#                defines (bytea shares text's: both hash their bytes)
#   @NAME@       text       bytea      int8                       uuid
#                the type in an object's name (operator classes)
#   @HASH@       bytes      bytes      int8                       uuid
#                suffix of bloom_hash's C functions
#   @HASHED@     its bytes  its bytes  its 8 little-endian bytes  its 16 bytes
#                what the hash of an element is taken of
#
# The marker lines themselves are not written.  A block that is nested or
# left open at the end of its piece, an @end without @each, another
# "-- @" directive, or a placeholder left over (an unknown @WORD@) is an
# error: a message on stderr and exit status 1.
#
# POSIX awk only (mawk, gawk, busybox): the build needs no other tool.

BEGIN {
	nelem = split("text bytea bigint uuid", ELEM, " ")
	split("text text int8 uuid", SYM, " ")
	split("text bytea int8 uuid", NAME, " ")
	split("bytes bytes int8 uuid", HASH, " ")
	HASHED[1] = "its bytes"
	HASHED[2] = "its bytes"
	HASHED[3] = "its 8 little-endian bytes"
	HASHED[4] = "its 16 bytes"
	if (extversion == "")
		fail("no version: run with -v extversion=X.Y")
	inblock = 0
	failed = 0
}

function fail(msg) {
	if (!failed)
		printf "sqlgen.awk: %s\n", msg > "/dev/stderr"
	failed = 1
	exit 1
}

function where() {
	return FILENAME ":" FNR
}

# line s with element k's values (k = 0: outside a block)
function expand(s, k) {
	gsub(/@EXTVERSION@/, extversion, s)
	if (k > 0) {
		gsub(/@ELEM@/, ELEM[k], s)
		gsub(/@SYM@/, SYM[k], s)
		gsub(/@NAME@/, NAME[k], s)
		gsub(/@HASHED@/, HASHED[k], s)
		gsub(/@HASH@/, HASH[k], s)
	}
	if (s ~ /@[A-Z][A-Z_]*@/)
		fail((k > 0 ? blockfile ":" blockstart ": block" : where()) ": unknown placeholder in: " s)
	return s
}

FNR == 1 && inblock {
	fail(blockfile ":" blockstart ": -- @each element without -- @end")
}

/^-- @each element[ \t]*$/ {
	if (inblock)
		fail(where() ": -- @each element inside another")
	inblock = 1
	nlines = 0
	blockfile = FILENAME
	blockstart = FNR
	next
}

/^-- @end[ \t]*$/ {
	if (!inblock)
		fail(where() ": -- @end without -- @each element")
	for (k = 1; k <= nelem; k++)
		for (i = 1; i <= nlines; i++)
			print expand(block[i], k)
	inblock = 0
	next
}

/^-- @/ {
	fail(where() ": unknown directive: " $0)
}

inblock {
	block[++nlines] = $0
	next
}

{
	print expand($0, 0)
}

END {
	if (failed)
		exit 1
	if (inblock)
		fail(blockfile ":" blockstart ": -- @each element without -- @end")
}
