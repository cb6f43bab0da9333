--
-- Does this server still give clients/test-vectors.json?  Every hash,
-- every filter's bytes from its SQL, and every probe's answer; raises an
-- error naming the first differences if anything differs.  Run by
-- clients/check-test-vectors.sh, which sets :vectors to the file's text.
--
\set ON_ERROR_STOP 1
SET client_min_messages = notice;
BEGIN;
CREATE TEMP TABLE vec (j jsonb);
INSERT INTO vec VALUES (:'vectors'::jsonb);

DO $check$
DECLARE
	j jsonb := (SELECT j FROM vec);
	e jsonb;
	p jsonb;
	h bigint;
	stmts text[];
	f bloomfilter;
	committed bloomfilter;
	ok boolean;
	bad text[] := '{}';
	nhash int := 0;
	nprobe int := 0;
BEGIN
	IF j->>'format' IS DISTINCT FROM 'bloomfilter-test-vectors-1' THEN
		RAISE EXCEPTION 'not a bloomfilter-test-vectors-1 file';
	END IF;
	FOR e IN SELECT * FROM jsonb_array_elements(j->'hashes')
	LOOP
		EXECUTE format('SELECT bloom_hash(%s, $1)',
					   CASE e->>'type' WHEN 'bytea' THEN format('decode(%L, ''hex'')', e->>'value')
						   ELSE format('%L::%s', e->>'value', e->>'type') END)
			INTO h
			USING ((e->>'seed')::numeric - CASE WHEN (e->>'seed')::numeric >= 9223372036854775808
										 THEN 18446744073709551616 ELSE 0 END)::bigint;
		IF (CASE WHEN h < 0 THEN h::numeric + 18446744073709551616 ELSE h END)::text <> e->>'hash' THEN
			bad := bad || format('hash of %s %s seed %s: %s, file says %s', e->>'type',
								 left(e->>'value', 40), e->>'seed', h, e->>'hash');
		END IF;
		nhash := nhash + 1;
	END LOOP;

	FOR e IN SELECT * FROM jsonb_array_elements(j->'filters')
	LOOP
		BEGIN
			stmts := string_to_array(e->>'sql', E';\n');
			FOR i IN 1 .. array_length(stmts, 1) - 1
			LOOP
				EXECUTE stmts[i];
			END LOOP;
			EXECUTE stmts[array_length(stmts, 1)] INTO f;
		END;
		IF encode(f::bytea, 'hex') <> e->>'bytes' THEN
			bad := bad || format('filter %s: its SQL gives other bytes (md5 %s, file''s %s)',
								 e->>'name', md5(f::bytea), md5(decode(e->>'bytes', 'hex')));
		END IF;
		committed := decode(e->>'bytes', 'hex')::bloomfilter;
		FOR p IN SELECT * FROM jsonb_array_elements(e->'probes')
		LOOP
			EXECUTE format('SELECT bloom_contains($1, %s)',
						   CASE e->>'element_type' WHEN 'bytea' THEN format('decode(%L, ''hex'')', p->>'value')
							   ELSE format('%L::%s', p->>'value', e->>'element_type') END)
				INTO ok USING committed;
			IF ok <> (p->>'expected')::boolean THEN
				bad := bad || format('filter %s: probe %s gives %s, file says %s', e->>'name',
									 left(p->>'value', 40), ok, p->>'expected');
			END IF;
			nprobe := nprobe + 1;
		END LOOP;
	END LOOP;
	IF cardinality(bad) > 0 THEN
		RAISE EXCEPTION '% difference(s) from the test vectors', cardinality(bad)
			USING DETAIL = array_to_string(bad[1:20], E'\n');
	END IF;
	RAISE NOTICE 'test vectors: % hashes, % filters, % probes, all as in the file',
		nhash, jsonb_array_length(j->'filters'), nprobe;
END
$check$;
ROLLBACK;
