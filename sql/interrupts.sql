--
-- interrupts: a call over a long input ends at a statement timeout (or a
-- cancel, or a terminate: the same check) soon after it, not when its
-- loop is done.  Each statement below runs for seconds if nothing in it
-- answers interrupts; with a 300 ms timeout it must be cancelled (57014)
-- within a second of its start.
--
-- The inputs are made before the timeout is set, and read into memory
-- before the calls: building an array, and reading a stored one, is
-- PostgreSQL's own code, which checks for interrupts anyway.  Where one
-- call is too quick to tell, an expression makes several in a row (the
-- executor checks for interrupts between rows, not between the calls of
-- one expression).
--
-- cancelled_in_time(sql): run sql; 'cancelled in time' if the statement
-- timeout ended it within bound of the statement's start
CREATE FUNCTION cancelled_in_time(sql text, bound interval DEFAULT '1 s') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := statement_timestamp();
BEGIN
	EXECUTE sql;
	RETURN 'not cancelled, ran ' || (clock_timestamp() - t0);
EXCEPTION WHEN query_canceled THEN
	IF clock_timestamp() - t0 < bound THEN
		RETURN 'cancelled in time';
	END IF;
	RETURN 'cancelled late, after ' || (clock_timestamp() - t0);
END $$;

-- 2M bigints, stored uncompressed out of line
CREATE TABLE intr_big (xs bigint[]);
ALTER TABLE intr_big ALTER COLUMN xs SET STORAGE EXTERNAL;
INSERT INTO intr_big SELECT array(SELECT generate_series(1, 2000000)::bigint);
-- 20,000 bigints
CREATE TABLE intr_small AS SELECT array(SELECT generate_series(1, 20000)::bigint) AS xs;
-- stable_bloom_create(1000, 1e-9, 8) decrements P = 47,899 cells an
-- insert, near the 65,536 the checker takes
CREATE TABLE intr_filters AS
SELECT stable_bloom_create(1000, 1e-9, 8) AS sb,
	   bloom_create(2000000) AS b,
	   counting_bloom_create(2000000, 0.1) AS c,
	   cuckoo_create(2000000) AS k;
SELECT (stable_bloom_info(sb)->>'decrement')::int AS decrement FROM intr_filters;

-- SELECT expr FROM the filters and the 2M bigints as xs, in memory (read
-- from their table before the calls, so no call reads them)
CREATE FUNCTION intr_query(expr text) RETURNS text
LANGUAGE sql AS $$
	SELECT 'SELECT ' || expr || ' FROM intr_filters, '
		'(SELECT xs[1:2000000] AS xs FROM intr_big OFFSET 0) AS a'
$$;

-- expr n times, joined by op
CREATE FUNCTION intr_joined(expr text, n int, op text) RETURNS text
LANGUAGE sql AS $$
	SELECT string_agg(expr, op) FROM generate_series(1, n)
$$;

-- a first run, untimed: the helpers compiled, the catalogs cached
SELECT cancelled_in_time(intr_query('cardinality(xs)')) LIKE 'not cancelled%' AS ran;

SET statement_timeout = '300ms';

-- a scalable filter grown from 1 to 2M: 21 stages
SELECT cancelled_in_time(intr_query('pg_column_size(bloom_add(bloom_create(1), xs))'));
SELECT cancelled_in_time('SELECT pg_column_size(stable_bloom_add(sb, xs)) FROM intr_small, intr_filters');
-- 2M added and removed, six times
SELECT cancelled_in_time(intr_query('pg_column_size(' ||
	repeat('counting_bloom_remove(counting_bloom_add(', 6) || 'c' || repeat(', xs), xs)', 6) || ')'));
-- 2M added four times to a filter made for 1,000, which grows
SELECT cancelled_in_time(intr_query('pg_column_size(' ||
	repeat('cuckoo_add(', 4) || 'cuckoo_create(1000)' || repeat(', xs)', 4) || ')'));
SELECT cancelled_in_time(intr_query(intr_joined('cardinality(bloom_contains(b, xs))', 16, ' + ')));
SELECT cancelled_in_time(intr_query(intr_joined('cardinality(counting_bloom_contains(c, xs))', 16, ' + ')));
SELECT cancelled_in_time(intr_query(intr_joined('cardinality(cuckoo_contains(k, xs))', 16, ' + ')));
-- the array read a window at a time from its table
SELECT cancelled_in_time('SELECT pg_column_size(bloom_add(bloom_create(1), xs)) FROM intr_big');

RESET statement_timeout;
DROP TABLE intr_big, intr_small, intr_filters;
DROP FUNCTION cancelled_in_time(text, interval), intr_query(text),
	intr_joined(text, int, text);
