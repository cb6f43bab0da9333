// Write test/fixture-vectors.json (the schema of ../test-vectors.json)
// from a running server with the extension: filters of both layouts,
// formats 1 and 2, several stages, every element type, seeds other than 0,
// and the server's own answers and hashes.
//   PSQL="psql -h HOST -p PORT -U postgres" node test/make_fixture.mjs
// (from the repository: PSQL="bash tools/dev.sh psql").
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const psql = process.env.PSQL ?? 'psql';

function query(sql) {
  return execSync(`${psql} -X -q -At -v ON_ERROR_STOP=1 -f -`, { input: sql, maxBuffer: 1 << 28 })
    .toString().trim();
}

// a filter value with its seed replaced (no bits set yet), as SQL: the
// seed is int8send's big-endian bytes read little-endian
const FORMAT1_STANDARD = "'AQEBAAAAAAAAAAAAAAAAAAAAAAAAAQMAAAAAAHsUrkfheoQ/KAAAAAAAAAAAAQAAAAAAAAACAAAAAAAAKAAAAAAAAAAHAQAAAAAAAAcBAAAAAAAAAAAAAAAAAAB7FK5H4Xp0PwgAAAAAAAAAQAEAAAAAAABABAAAAAAAAFAAAAAAAAAALQIAAAAAAAAtAgAAAAAAAAAAAAAAAAAAexSuR+F6ZD8JAAAAAAAAAAACAAAAAAAAQAkAAAAAAACgAAAAAAAAALoEAAAAAAAAGwIAAAAAAAAAAAAAAAAAAHsUrkfhelQ/CgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAv4fQcDRB30T0XFoBMPE0WcrK/SS/a8TK6WBfI54PYp/hxcTdmIL0aAM8kXN4spzFPhy1JolXc+rtb7LdvpPwY8x6+QW45tOrs5nS4gyTTnSn2Ab+3JpghB+Pg7prpGZ3qdnsjcgRyD/LuhXi93JYg9/VuLGo3m/t9jG8Cp1zWIdkybWF0BLYSMZ0qI8GR63UhM2hPYYaZ1nJJMr4wm8P13kv2ukGpug24QcVR+97SYx8U+p1a6qJj5o1uyekgELhGE2uRD9Br5kAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA8CCQBAIYgAiIEKVsGEKCBgAhQUICoAgIDgxAgikBHIjGFAtUAAAQZ+CRAKBVAAACBYEAhFEgDUJwAD8FEqEMBAgAABZAAA8gRgo0DUocEFAQCELAQAEUjEBBEGQEGAEGAwGSBCCQCjgMCIAFIghSsyDBAAAAMTAAZAGAoToEVBRYkCBABAAFkoABBRGwgIkAKQSQAUGKIBHhIAAcjgQACIaFAgAAUGSSEiAAIIAD2gJAgAgQsKBMBCwMAEQAMAAAMHAAEAsAACmuCAFA6AAiQMDpiioUBowUQAoAiQACAyA0oAQU0IBAAADKCEAgkYCGAJAhCIAIQCFiyEvBgB0IQAgQRAYlAAMFLrlBkmiBgoqHAABUpgAKCCgxiBgggkhBIGMAAwABUQ'::bloomfilter";

const seeded = (create, seed) =>
  `overlay(bytea(${create}) placing int8send(${seed}::int8) from 5 for 8)::bloomfilter`;

// [name, element type, SQL of the filter over the added elements in table a(x),
//  SQL of the added elements, SQL of other probes]
// every 25th a long one, for XXH3's longer length paths
const textAdded = (n, p = 'url-') => `SELECT '${p}' || g || '/ü' ||
    CASE WHEN g % 25 = 0 THEN repeat('x', g % 300) ELSE '' END FROM generate_series(1, ${n}) g`;
const textOther = (n) => `SELECT 'https://other.example/' || g FROM generate_series(1, ${n}) g`;
const cases = [
  ['blocked_text_1stage', 'text', `bloom_agg(x, 1000, 0.01)`, textAdded(800), textOther(500)],
  ['blocked_text_stages', 'text', `bloom_add(bloom_create(50, 0.01), array_agg(x))`, textAdded(800), textOther(500)],
  ['blocked_text_k14', 'text', `bloom_agg(x, 500, 0.0001)`, textAdded(400), textOther(500)],
  ['standard_text_stages', 'text', `bloom_add(bloom_create(50, 0.01, 'standard'), array_agg(x))`, textAdded(800), textOther(500)],
  ['standard_text_fixed', 'text', `bloom_add(bloom_create(1000, 0.001, 'standard', false), array_agg(x))`, textAdded(900), textOther(500)],
  ['blocked_bytea', 'bytea', `bloom_add(bloom_create(300, 0.02), array_agg(x))`,
    `SELECT decode(md5(g::text) || repeat('ab', g % 50), 'hex') FROM generate_series(1, 500) g`,
    `SELECT decode(md5((-g)::text), 'hex') FROM generate_series(1, 1000) g`],
  ['standard_bigint', 'bigint', `bloom_add(bloom_create(300, 0.02, 'standard'), array_agg(x))`,
    `SELECT (g * 7919 - 1000000)::bigint FROM generate_series(1, 500) g UNION ALL VALUES (-9223372036854775808), (9223372036854775807)`,
    `SELECT (g * 7919 + 5)::bigint FROM generate_series(1, 1000) g`],
  ['blocked_uuid', 'uuid', `bloom_agg(x, 600, 0.01)`,
    `SELECT md5('u' || g)::uuid FROM generate_series(1, 500) g`,
    `SELECT md5('v' || g)::uuid FROM generate_series(1, 1000) g`],
  ['blocked_text_seed', 'text', `bloom_add(${seeded(`bloom_create(300, 0.01)`, '-81985529216486896')}, array_agg(x))`,
    textAdded(700, 's-'), textOther(500)],
  ['standard_text_seed', 'text', `bloom_add(${seeded(`bloom_create(300, 0.01, 'standard')`, '12345')}, array_agg(x))`,
    textAdded(700, 's-'), textOther(500)],
  // the format 1 standard filter of sql/bloom_format.sql, as a build
  // before format 2 wrote it: 'u1' .. 'u200' added, 3 stages
  ['standard_text_format1', 'text', `min(${FORMAT1_STANDARD}::text)::bloomfilter`,
    `SELECT 'u' || g FROM generate_series(1, 200) g`, `SELECT 'v' || g FROM generate_series(1, 1000) g`],
];

const json = { format: 'bloomfilter-test-vectors-1', hashes: [], filters: [] };

const asText = (type) => (type === 'bytea' ? `encode(x, 'hex')` : 'x::text');
for (const [name, type, agg, added, other] of cases) {
  const out = query(`
    CREATE TEMP TABLE a AS SELECT x::${type} AS x FROM (${added}) s(x);
    CREATE TEMP TABLE o AS SELECT x::${type} AS x FROM (${other}) s(x);
    CREATE TEMP TABLE f AS SELECT ${agg} AS f FROM a;
    SELECT json_build_object(
      'name', '${name}',
      'sql', $q$SELECT ${agg} FROM (${added}) a(x)$q$,
      'layout', bloom_info(f)->>'layout',
      'format_version', (bloom_info(f)->>'format_version')::int,
      'nstages', (bloom_info(f)->>'stages')::int,
      'seed', (bloom_info(f)->>'seed'),
      'element_type', '${type}',
      'bytes', encode(f::bytea, 'hex'),
      'added', (SELECT json_agg(${asText(type)}) FROM a),
      'probes', (SELECT json_agg(json_build_object('value', ${asText(type)}, 'expected', bloom_contains(f, x)))
                 FROM (SELECT x FROM a UNION ALL SELECT x FROM o) p))
    FROM f;`);
  json.filters.push(JSON.parse(out));
}


// hashes: every length path, several seeds (as bigint: the signed form)
const seeds = ['0', '1', '-1', '-7046029254386353131', '4294967296'];
const unsigned = (s) => BigInt.asUintN(64, BigInt(s)).toString();
const hashSql = [];
for (const seed of seeds) {
  hashSql.push(`SELECT 'text', x, '${seed}', bloom_hash(x, ${seed}) FROM (
      SELECT left(repeat('ab€', 500), g) FROM generate_series(0, 40) g
      UNION ALL SELECT left(repeat('ab€', 500), g) FROM generate_series(120, 1400, 160) g
      UNION ALL VALUES (''), ('a'), ('ab'), ('abc'), ('abcd'), ('https://www.debian.org/')) s(x)`);
  hashSql.push(`SELECT 'bytea', encode(x, 'hex'), '${seed}', bloom_hash(x, ${seed}) FROM (
      SELECT decode(repeat(md5(g::text), 1 + g / 32), 'hex') FROM generate_series(0, 200, 13) g
      UNION ALL VALUES (''::bytea), ('\\x00'::bytea)) s(x)`);
  hashSql.push(`SELECT 'bigint', x::text, '${seed}', bloom_hash(x, ${seed}) FROM (
      VALUES (0::bigint), (1), (-1), (42), (9223372036854775807), (-9223372036854775808)) s(x)`);
  hashSql.push(`SELECT 'uuid', x::text, '${seed}', bloom_hash(x, ${seed}) FROM (
      VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')) s(x)`);
}
const rows = query(`SELECT json_agg(json_build_array(t, v, s, h::text)) FROM (${hashSql.join(' UNION ALL ')}) q(t, v, s, h)`);
for (const [type, value, seed, hash] of JSON.parse(rows))
  json.hashes.push({ type, value, seed: unsigned(seed), hash: unsigned(hash) });

const path = new URL('fixture-vectors.json', import.meta.url);
writeFileSync(path, JSON.stringify(json) + '\n');
console.log(`wrote ${json.filters.length} filters, ${json.hashes.length} hashes to ${path.pathname}`);

// adds: a filter before and after bloom_add of more elements (as an array:
// the same bytes as one at a time), none of which made a new stage, for
// add() to give the same bytes; and a fixed filter whose adds run out
const adds = [];
for (const [name, create, n1, n2] of [
  ['blocked', `bloom_create(2000, 0.01)`, 1000, 900],
  ['blocked_k14', `bloom_create(500, 0.0001)`, 200, 280],
  ['blocked_seed', seeded(`bloom_create(300, 0.01)`, '-81985529216486896'), 100, 180],
  ['standard', `bloom_create(2000, 0.01, 'standard')`, 1000, 900],
  ['standard_stages', `bloom_create(50, 0.01, 'standard')`, 400, 200],
  ['standard_format1', FORMAT1_STANDARD, 0, 60],
  ['blocked_full', `bloom_create(100, 0.01, 'blocked', false)`, 90, 400],
  ['standard_full', `bloom_create(100, 0.01, 'standard', false)`, 90, 60],
]) {
  const out = query(`
    CREATE TEMP TABLE e AS SELECT g, 'add-' || g || '/' || md5(g::text) AS x FROM generate_series(1, ${n1 + n2}) g;
    CREATE TEMP TABLE b AS SELECT coalesce(bloom_add(${create}, (SELECT array_agg(x ORDER BY g) FROM e WHERE g <= ${n1})),
                                           ${create}) AS f;
    CREATE FUNCTION pg_temp.add_each(f bloomfilter, xs text[]) RETURNS bloomfilter LANGUAGE plpgsql AS $$
    DECLARE x text;
    BEGIN
      FOREACH x IN ARRAY xs LOOP
        BEGIN
          f := bloom_add(f, x);
        EXCEPTION WHEN program_limit_exceeded THEN
          RETURN f;
        END;
      END LOOP;
      RETURN f;
    END $$;
    SELECT json_build_object('name', '${name}', 'before', encode(f::bytea, 'hex'),
      'added', (SELECT json_agg(x ORDER BY g) FROM e WHERE g > ${n1}),
      'after', encode(pg_temp.add_each(f, (SELECT array_agg(x ORDER BY g) FROM e WHERE g > ${n1}))::bytea, 'hex'),
      'stages_before', bloom_info(f)->>'stages',
      'stages_after', bloom_info(pg_temp.add_each(f, (SELECT array_agg(x ORDER BY g) FROM e WHERE g > ${n1})))->>'stages')
    FROM b;`);
  const a = JSON.parse(out);
  if (a.stages_before !== a.stages_after) throw new Error(`adds case ${name} grew a stage: fewer adds`);
  adds.push(a);
}
const addsPath = new URL('fixture-adds.json', import.meta.url);
writeFileSync(addsPath, JSON.stringify(adds) + '\n');
console.log(`wrote ${adds.length} add cases to ${addsPath.pathname}`);
