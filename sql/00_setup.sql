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

-- explain_plan(options, q): EXPLAIN (options) q, its text made the same on
-- every PostgreSQL major the extension supports.  Written as 17 and 18
-- write it: an InitPlan is "InitPlan 1" and its value "(InitPlan 1).col1"
-- (16 and older: "InitPlan 1 (returns $0)" and "$0"; 19: "InitPlan
-- expr_1"), a row count is a whole number (18 and later print "rows=1.00"),
-- EXPLAIN ANALYZE shows no buffers (on by default from 18), a Gather
-- does not list the params it evaluates (18 and later print them only
-- under VERBOSE), and a Result does not say which scan it replaces (19).
CREATE FUNCTION explain_plan(options text, q text) RETURNS TABLE ("QUERY PLAN" text)
LANGUAGE plpgsql AS $$
DECLARE
	lines text[] := '{}';
	line text;
	m text[];
	params text[] := '{}';
	names text[] := '{}';
	p text[];
BEGIN
	IF options ~* 'analyze' THEN
		options := options || ', BUFFERS OFF';
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (' || options || ') ' || q LOOP
		-- 16 and older: the $n each InitPlan returns
		m := regexp_match(line, 'InitPlan (\d+) \(returns ([^)]*)\)');
		IF m IS NOT NULL THEN
			p := string_to_array(m[2], ',');
			FOR i IN 1 .. cardinality(p) LOOP
				params := params || p[i];
				names := names || format('(InitPlan %s).col%s', m[1], i);
			END LOOP;
			line := regexp_replace(line, 'InitPlan (\d+) \(returns [^)]*\)', 'InitPlan \1');
		END IF;
		CONTINUE WHEN line ~ '^\s*(Params Evaluated|Replaces): ';
		lines := lines || line;
	END LOOP;
	FOREACH line IN ARRAY lines LOOP
		FOR i IN 1 .. cardinality(params) LOOP
			line := regexp_replace(line, '\' || params[i] || '(?!\d)', names[i], 'g');
		END LOOP;
		line := regexp_replace(line, 'InitPlan [a-z]+_(\d+)', 'InitPlan \1', 'g');
		line := regexp_replace(line, '(rows=\d+)\.00\M', '\1', 'g');
		"QUERY PLAN" := line;
		RETURN NEXT;
	END LOOP;
END $$;

SELECT * FROM explain_plan('COSTS OFF', 'SELECT 1 WHERE 2 = (SELECT 2)');
