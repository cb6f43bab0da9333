--
-- countingbloom against an exact multiset model: 100k random add/remove
-- operations, then false-positive rates before and after deleting half
--

-- Operations come from md5 of the step number, not random(), so every
-- PostgreSQL version runs the same sequence.  Universe of 3000 keys,
-- capacity 2000: keys repeat, are removed while still in, and the filter
-- is often at capacity.  The model (an int array of multiplicities) says
-- what is in; the filter must never miss an element that is in, never
-- report a count under its multiplicity, agree on the element count, fail
-- exactly the adds past capacity, and leave its bytes unchanged on
-- removing an element it reports absent.
CREATE FUNCTION pg_temp.multiset_run(nops int) RETURNS TABLE (check_name text, result bigint)
LANGUAGE plpgsql AS $$
DECLARE
	nkeys constant int := 3000;
	cap constant int := 2000;
	f countingbloom := counting_bloom_create(cap, 0.01);
	g countingbloom;
	mult int[] := array_fill(0, ARRAY[nkeys]);
	inn int := 0;
	r bigint;
	k int;
	op int;
	n_add bigint := 0; n_full bigint := 0; n_remove bigint := 0; n_absent bigint := 0;
	bad_full bigint := 0; bad_count bigint := 0; bad_unchanged bigint := 0;
	false_neg bigint := 0; under bigint := 0;
BEGIN
	FOR i IN 1 .. nops LOOP
		r := ('x' || substr(md5(i::text), 1, 15))::bit(60)::bigint;
		k := (r % nkeys)::int + 1;
		op := ((r / nkeys) % 100)::int;
		IF op < 50 THEN
			BEGIN
				f := counting_bloom_add(f, k::bigint);
				IF inn >= cap THEN bad_full := bad_full + 1; END IF;
				mult[k] := mult[k] + 1;
				inn := inn + 1;
				n_add := n_add + 1;
			EXCEPTION WHEN program_limit_exceeded THEN
				IF inn < cap THEN bad_full := bad_full + 1; END IF;
				n_full := n_full + 1;
			END;
		ELSIF mult[k] > 0 THEN
			f := counting_bloom_remove(f, k::bigint);
			mult[k] := mult[k] - 1;
			inn := inn - 1;
			n_remove := n_remove + 1;
		ELSIF NOT counting_bloom_contains(f, k::bigint) THEN
			g := counting_bloom_remove(f, k::bigint);
			IF bytea(g) <> bytea(f) THEN bad_unchanged := bad_unchanged + 1; END IF;
			n_absent := n_absent + 1;
		END IF;
		IF (counting_bloom_info(f)->>'count')::int <> inn THEN bad_count := bad_count + 1; END IF;
		IF i % 10000 = 0 THEN
			SELECT count(*) FILTER (WHERE mult[x] > 0 AND NOT counting_bloom_contains(f, x::bigint)),
			       count(*) FILTER (WHERE counting_bloom_count(f, x::bigint) < least(mult[x], 15))
			  INTO r, op FROM generate_series(1, nkeys) x;
			false_neg := false_neg + r;
			under := under + op;
		END IF;
	END LOOP;
	RETURN QUERY VALUES ('operations', nops::bigint),
		('adds over 10000', (n_add > 10000)::int::bigint),
		('removes over 10000', (n_remove > 10000)::int::bigint),
		('adds refused at capacity over 1000', (n_full > 1000)::int::bigint),
		('removes of absent elements over 1000', (n_absent > 1000)::int::bigint),
		('wrong capacity decisions', bad_full),
		('count disagreements', bad_count),
		('absent removes that changed bytes', bad_unchanged),
		('false negatives', false_neg),
		('counts under multiplicity', under);
END $$;
SELECT * FROM pg_temp.multiset_run(100000);

-- False-positive rate on 200k bigint keys never added, at capacity and
-- after deleting half.  The filter is sized so the model rate at capacity
-- is 0.95 * fpr; 200k probes at 1% have a standard error of 0.022 * rate,
-- so 1.3 * fpr is more than 10 standard errors above the expected rate
-- (and 0.5 * fpr as far below: a filter that is far too large fails too).
-- After deleting half the keys, the filter must be as good as one that
-- only ever held the other half: no false negatives, and a rate under the
-- rate at capacity.
CREATE TEMP TABLE cfp AS SELECT counting_bloom_agg(x, 100000, 0.01) AS f FROM generate_series(1, 100000) x;
SELECT count(*) FILTER (WHERE f @> x) / 200000.0 BETWEEN 0.01 * 0.5 AND 0.01 * 1.3 AS full_rate_ok
  FROM cfp, generate_series(1000001, 1200000) x;
UPDATE cfp SET f = counting_bloom_remove(f, ARRAY(SELECT generate_series(2, 100000, 2)::bigint));
SELECT counting_bloom_info(f)->'count' AS count FROM cfp;
SELECT count(*) FILTER (WHERE NOT f @> x) AS false_negatives FROM cfp, generate_series(1, 100000, 2) x;
SELECT count(*) FILTER (WHERE f @> x) / 200000.0 <= 0.01 * 0.3 AS half_rate_ok
  FROM cfp, generate_series(1000001, 1200000) x;
-- the deleted keys are gone too, bar false positives
SELECT count(*) FILTER (WHERE f @> x) / 50000.0 <= 0.01 * 0.3 AS deleted_rate_ok
  FROM cfp, generate_series(2, 100000, 2) x;

-- The same at 0.1%, on real URLs: the 30,089 Debian homepages in,
-- probed with the distinct documentation links that are not homepages
-- (~79k).  Expected false positives ~75, standard error ~9: 1.3 * fpr is
-- over 3 standard errors above; after deleting half, under 0.5 * fpr.
CREATE TEMP TABLE home (url text);
\copy home FROM PROGRAM 'gzip -dc ../shared/data/debian-homepages.txt.gz'
CREATE TEMP TABLE links (url text);
\copy links FROM PROGRAM 'gzip -dc ../shared/data/doc-links-stream.txt.gz'
DELETE FROM links l USING home h WHERE l.url = h.url;
CREATE TEMP TABLE probe AS SELECT DISTINCT url FROM links;
CREATE TEMP TABLE ufp AS SELECT counting_bloom_agg(url, 0.001) AS f FROM home;
SELECT counting_bloom_info(f)->'count' AS count, counting_bloom_info(f)->'hashes' AS hashes FROM ufp;
SELECT count(*) FILTER (WHERE NOT f @> url) AS false_negatives FROM ufp, home;
SELECT count(*) FILTER (WHERE f @> url)::float8 / count(*) <= 0.001 * 1.3 AS url_rate_ok FROM ufp, probe;
UPDATE ufp SET f = counting_bloom_remove(f, ARRAY(SELECT url FROM home ORDER BY url LIMIT 15000));
SELECT counting_bloom_info(f)->'count' AS count FROM ufp;
SELECT count(*) FILTER (WHERE NOT f @> url) AS false_negatives
  FROM ufp, (SELECT url FROM home ORDER BY url OFFSET 15000) h;
SELECT count(*) FILTER (WHERE f @> url)::float8 / count(*) <= 0.001 * 0.5 AS url_half_rate_ok FROM ufp, probe;
