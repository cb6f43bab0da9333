--
-- catalog: the extension's functions agree where they are copies of one
-- another (src/sql's templates write them once; this holds them to it).
--
-- A family: the functions of one name that differ only by the element
-- type (text, bytea, bigint, uuid, or arrays of them), e.g.
-- bloom_add(bloomfilter, text) .. bloom_add(bloomfilter, uuid).  Each has
-- one member per element type.
-- An operation: the families (or functions) that do the same for each
-- filter type: the same name after the type's prefix (bloom_,
-- counting_bloom_, cuckoo_, stable_bloom_) and the same arguments but for
-- the filter and element types, e.g. bloom_contains(bloomfilter, text) ..
-- stable_bloom_contains(stablebloom, uuid).
-- Both must agree on volatility, strictness, parallel safety, cost and
-- support function; every function has a comment.  Only violations are
-- listed; the counts of what was checked change only when a family or an
-- operation is added or removed.
--
CREATE TEMP VIEW ext_proc AS
SELECT p.oid, p.oid::regprocedure::text AS signature, p.proname,
       regexp_replace(p.proname, '^(bloom|counting_bloom|cuckoo|stable_bloom)_', '') AS operation,
       coalesce((SELECT string_agg(CASE
                 WHEN a.t IN ('text'::regtype, 'bytea'::regtype, 'bigint'::regtype, 'uuid'::regtype) THEN 'E'
                 WHEN a.t IN ('text[]'::regtype, 'bytea[]'::regtype, 'bigint[]'::regtype, 'uuid[]'::regtype) THEN 'E[]'
                 ELSE format_type(a.t, NULL) END, ', ' ORDER BY a.i)
                 FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)), '') AS elem_args,
       coalesce((SELECT string_agg(CASE
                 WHEN a.t IN ('text'::regtype, 'bytea'::regtype, 'bigint'::regtype, 'uuid'::regtype) THEN 'E'
                 WHEN a.t IN ('text[]'::regtype, 'bytea[]'::regtype, 'bigint[]'::regtype, 'uuid[]'::regtype) THEN 'E[]'
                 WHEN a.t IN ('bloomfilter'::regtype, 'countingbloom'::regtype,
                              'cuckoofilter'::regtype, 'stablebloom'::regtype) THEN 'F'
                 ELSE format_type(a.t, NULL) END, ', ' ORDER BY a.i)
                 FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)), '') AS filter_args,
       obj_description(p.oid, 'pg_proc') AS comment,
       x.property, x.value
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
CROSS JOIN LATERAL (VALUES ('1 volatility', p.provolatile::text), ('2 strict', p.proisstrict::text),
                           ('3 parallel', p.proparallel::text), ('4 cost', p.procost::text),
                           ('5 support', p.prosupport::regproc::text)) AS x(property, value);

-- families: key name(E, ...)
CREATE TEMP VIEW family AS
SELECT proname || '(' || elem_args || ')' AS family, count(DISTINCT oid) AS members
FROM ext_proc WHERE elem_args ~ '\mE\M' GROUP BY proname, elem_args HAVING count(DISTINCT oid) > 1;
-- operations: key operation(F, E, ...)
CREATE TEMP VIEW operation AS
SELECT operation || '(' || filter_args || ')' AS operation, count(DISTINCT proname) AS filter_types
FROM ext_proc WHERE filter_args ~ '\m[EF]\M' GROUP BY operation, filter_args HAVING count(DISTINCT proname) > 1;

-- a family without one member per element type
SELECT family, members FROM family WHERE members <> 4 ORDER BY 1;

-- a property on which a family's members disagree
SELECT f.family, s.property, s.value, s.functions
FROM (SELECT proname || '(' || elem_args || ')' AS family, property, value,
             string_agg(DISTINCT signature, ' ') AS functions,
             count(*) OVER (PARTITION BY proname, elem_args, property) AS nvalues
      FROM ext_proc GROUP BY proname, elem_args, property, value) s
JOIN family f USING (family)
WHERE s.nvalues > 1 ORDER BY 1, 2, 3;

-- a property on which an operation's filter types disagree
SELECT o.operation, s.property, s.value, s.functions
FROM (SELECT operation || '(' || filter_args || ')' AS operation, property, value,
             string_agg(DISTINCT proname, ' ') AS functions,
             count(*) OVER (PARTITION BY operation, filter_args, property) AS nvalues
      FROM ext_proc GROUP BY operation, filter_args, property, value) s
JOIN operation o USING (operation)
WHERE s.nvalues > 1 ORDER BY 1, 2, 3;

-- a function without a comment
SELECT DISTINCT signature AS uncommented FROM ext_proc WHERE comment IS NULL ORDER BY 1;

-- what was checked
SELECT (SELECT count(*) FROM family) AS families,
       (SELECT count(*) FROM operation) AS operations,
       (SELECT count(*) FROM operation WHERE filter_types = 4) AS of_every_filter_type;

DROP VIEW operation, family, ext_proc;

-- column storage by type (bench/storage.sql): random bytes (bloomfilter,
-- cuckoofilter) are stored without trying to compress them; types with
-- many zero bytes when under-filled keep compression
SELECT typname, typstorage FROM pg_type
WHERE typname IN ('bloomfilter', 'countingbloom', 'cuckoofilter', 'stablebloom', 'bloom_keyset')
ORDER BY 1;
