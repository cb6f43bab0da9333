-- cuckoofilter as a multiset: 100,000 random adds and removes over 2,000
-- keys, starting from capacity 100 (so the filter grows many times),
-- checked against an exact model.  A cuckoo filter may over-count (another
-- key's matching fingerprint) but must never under-count, never lose a key
-- that is in, and its total must equal the model's exactly.  Removes are
-- only of keys that are in (as the contract asks), or of keys the filter
-- reports absent, which must leave it byte for byte unchanged.
-- The sequence is a fixed LCG, so the run is the same everywhere.
CREATE TEMP TABLE ms_checks (at int, under_counted int, lost int, total_ok boolean, valid boolean);
DO $$
DECLARE
	f cuckoofilter := cuckoo_create(100);
	model int[] := array_fill(0, ARRAY[2000]);
	x bigint := 20240601;
	k int;
	total bigint := 0;
	changed int := 0;
BEGIN
	FOR i IN 1..100000 LOOP
		x := (x * 1103515245 + 12345) % 2147483648;
		k := ((x >> 8) % 2000)::int + 1;
		IF (x >> 20) % 100 < 55 THEN
			f := cuckoo_add(f, k::bigint);
			model[k] := model[k] + 1;
			total := total + 1;
		ELSIF model[k] > 0 THEN
			f := cuckoo_remove(f, k::bigint);
			model[k] := model[k] - 1;
			total := total - 1;
		ELSIF NOT cuckoo_contains(f, k::bigint) THEN
			IF cuckoo_remove(f, k::bigint)::bytea <> f::bytea THEN
				changed := changed + 1;
			END IF;
		END IF;
		IF i % 20000 = 0 THEN
			INSERT INTO ms_checks
			SELECT i,
				count(*) FILTER (WHERE cuckoo_count(f, j::bigint) < model[j]),
				count(*) FILTER (WHERE model[j] > 0 AND NOT f @> j::bigint),
				(cuckoo_info(f)->>'count')::bigint = total,
				f::text::cuckoofilter IS NOT NULL
			FROM generate_series(1, 2000) j;
		END IF;
	END LOOP;
	IF changed > 0 THEN
		RAISE EXCEPTION '% removes of absent keys changed the filter', changed;
	END IF;
	-- drain: take every copy out; the filter must end empty
	FOR j IN 1..2000 LOOP
		FOR c IN 1..model[j] LOOP
			IF NOT f @> j::bigint THEN
				RAISE EXCEPTION 'key % lost while draining', j;
			END IF;
			f := cuckoo_remove(f, j::bigint);
		END LOOP;
	END LOOP;
	INSERT INTO ms_checks
	SELECT -1, 0, 0, (cuckoo_info(f)->>'count')::bigint = 0, true;
END $$;
SELECT * FROM ms_checks ORDER BY at;
