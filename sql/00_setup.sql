--
-- helpers shared by every test file (pg_regress runs them in one database,
-- in name order)
--
-- err(sql): run sql, show its SQLSTATE, message and detail instead of failing
CREATE FUNCTION err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '');
END $$;

SELECT err('SELECT 1/0') AS err_works;
