--
-- url_normalize: RFC 3986 6.2.2 - 6.2.3 syntax-based normalization
--
SET client_min_messages = warning;

-- the function's contract
SELECT p.provolatile, p.proisstrict, p.proparallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p WHERE p.proname = 'url_normalize';
SELECT url_normalize(NULL) IS NULL AS null_in_null_out;

-- RFC 3986 6.2.2: the equivalent pair, and 6.2.3: four spellings of one URL
SELECT u, url_normalize(u) FROM (VALUES
  ('example://a/b/c/%7Bfoo%7D'),
  ('eXAMPLE://a/./b/../b/%63/%7bfoo%7d'),
  ('HTTP://www.EXAMPLE.com/'),
  ('http://example.com'),
  ('http://example.com/'),
  ('http://example.com:/'),
  ('http://example.com:80/')
) AS t(u);

-- RFC 3986 5.2.4 / 5.4: dot segments (on absolute paths)
SELECT u, url_normalize(u) FROM (VALUES
  ('http://a/b/c/./../../g'),
  ('http://a/b/c/.'),
  ('http://a/b/c/..'),
  ('http://a/b/c/../..'),
  ('http://a/../../g'),
  ('http://a/b/c/g..'),
  ('http://a/b/c/..g'),
  ('http://a/b/g;x=1/../y'),
  ('http://a/b/c/g?y/./x'),
  ('http://a/b/c/g#s/../x'),
  ('http://a/x/%2E%2e/y/%2e/z')
) AS t(u);

-- each rule on its own
SELECT u, url_normalize(u) FROM (VALUES
  ('HtTpS://WWW.Example.ORG/Path/File.HTML?Q=Value'),   -- scheme, host only
  ('https://example.com:443/x'),                         -- default port
  ('https://example.com:80/x'),                          -- not https's default
  ('http://example.com:08080'),                          -- leading zeros
  ('http://example.com/%7euser/%41%2d%5f%2E'),           -- unreserved decoded
  ('http://example.com/%3a%2f%c3%a9'),                   -- others upper-cased
  ('http://example.com/a%2F..%2Fb'),                     -- %2F is not a '/'
  ('http://example.com/a?q=%7e%2f+x&r=/../s#frag'),      -- query kept, fragment dropped
  ('http://example.com?q'),                              -- empty path gets '/'
  ('http://User:P%61ss@Example.COM:80/'),                -- userinfo case kept
  ('http://[2001:DB8::1]:80/x'),                         -- IPv6 literal
  ('http://[2001:DB8::1]:8080'),
  ('http://%41BC.com/'),                                 -- host escapes
  ('ftp://Example.com:21/a/./b'),                        -- no default port for ftp here
  ('mailto:Someone@Example.COM'),                        -- opaque path left alone
  ('urn:isbn:a/../b'),
  ('x:/..//evil/p')                                      -- no authority appears
) AS t(u);

-- non-ASCII bytes are never touched (booleans: the display width of such
-- characters depends on the database encoding)
SELECT url_normalize('http://ex.com/été') = 'http://ex.com/été' AS path_untouched,
       url_normalize('HTTP://EXÉ.com/') = 'http://exÉ.com/' AS only_ascii_lowered;

-- spellings a crawler meets must fold into one key
SELECT count(DISTINCT url_normalize(u)) AS keys FROM (VALUES
  ('http://www.debian.org/doc/'),
  ('HTTP://WWW.DEBIAN.ORG/doc/'),
  ('http://www.debian.org:80/doc/'),
  ('http://www.debian.org/doc/./'),
  ('http://www.debian.org/doc/manuals/../'),
  ('http://www.debian.org/%64oc/'),
  ('http://www.debian.org/doc/#top')
) AS t(u);

-- text that is not an absolute URL is returned unchanged
SELECT u, url_normalize(u) = u AS unchanged FROM (VALUES
  (''), ('not a url'), ('www.example.com/a/../b'), ('/a/../b'), ('//Host/a'),
  ('C:\Windows\..\x'), ('c:/a/../b'), ('1http://X/'), (' http://X/'),
  ('ht tp://X/'), (':'), ('http'), ('%41')
) AS t(u);

-- invalid escapes are left as they were, and never assemble a new one
SELECT u, url_normalize(u) FROM (VALUES
  ('http://h/%'), ('http://h/%4'), ('http://h/%G1'), ('http://h/a%'),
  ('http://h/?q=%zz'), ('http://h%4/'), ('http://h/%%41'), ('http://h/%4%31'),
  ('http://h/%00')
) AS t(u);

-- hostile strings: huge, truncated, control bytes; the result is bounded
-- (at most one byte longer) and normalizing again changes nothing
CREATE TEMP TABLE hostile(u text);
INSERT INTO hostile VALUES
  ('http://h' || repeat('/a', 500000) || repeat('/..', 500000)),
  ('HTTP://' || repeat('A', 2000000)),
  ('http://h/' || repeat('%', 1000001)),
  ('http://h/' || repeat('%7e', 300000) || '%7'),
  ('http://h/?' || repeat('%2', 100000)),
  ('http://' || repeat('@', 100000) || repeat(':', 100000)),
  ('http://' || repeat('[', 100000)),
  ('http:' || repeat('/', 100000) || repeat('/.', 100000)),
  (repeat('a', 100000) || ':'),
  ('http://h/' || chr(1) || chr(127) || E'\t\n\r' || '/../x'),
  (E'http://h/\\x00/..');
SELECT length(u) AS len_in, length(url_normalize(u)) AS len_out,
       length(url_normalize(u)) <= length(u) + 1 AS bounded,
       url_normalize(url_normalize(u)) = url_normalize(u) AS idempotent,
       left(url_normalize(u), 20) AS starts
FROM hostile;
SELECT url_normalize('http://h/' || chr(1) || chr(127) || E'\t\n\r' || '/../x') = 'http://h/x' AS control_bytes_are_bytes;

-- works the same in a parallel plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE url_par AS
  SELECT 'HTTP://Host' || (i % 100) || '.Example.com:80/a/./b/' || i || '#f' AS u
  FROM generate_series(1, 20000) i;
ANALYZE url_par;
EXPLAIN (COSTS OFF) SELECT count(*) FROM url_par WHERE url_normalize(u) LIKE 'http://host%.example.com/a/b/%';
SELECT count(*) FROM url_par WHERE url_normalize(u) LIKE 'http://host%.example.com/a/b/%';
DROP TABLE url_par;
RESET ALL;

-- url_host: the normalized host, for distributing or partitioning by host
SELECT u, url_host(u)
FROM (VALUES ('HTTP://User:Pw@WWW.Example.COM:8080/a?b#c'), ('https://example.org'),
             ('http://[::1]:80/x'), ('http://[2001:DB8::1]/'), ('mailto:someone@example.org'),
             ('not a url'), ('http:///nohost'), ('file:///etc/hosts'), ('http://a@b@c.example/'),
             ('http://%41bc.example/'), ('')) v(u);

-- url_normalize(ref, base): RFC 3986 section 5.4's examples, resolved
-- against its base and then normalized (so "#s" loses its fragment and
-- "//g" gains "/"; and the RFC's "g:h" is "gg:h" here, as a one-letter
-- scheme is taken for a Windows drive letter): every row listed here is a
-- difference
SELECT ref, url_normalize(ref, 'http://a/b/c/d;p?q') AS got, expected
FROM (VALUES ('gg:h', 'gg:h'), ('g', 'http://a/b/c/g'), ('./g', 'http://a/b/c/g'),
             ('g/', 'http://a/b/c/g/'), ('/g', 'http://a/g'), ('//g', 'http://g/'),
             ('?y', 'http://a/b/c/d;p?y'), ('g?y', 'http://a/b/c/g?y'), ('#s', 'http://a/b/c/d;p?q'),
             ('g#s', 'http://a/b/c/g'), ('g?y#s', 'http://a/b/c/g?y'), (';x', 'http://a/b/c/;x'),
             ('g;x', 'http://a/b/c/g;x'), ('g;x?y#s', 'http://a/b/c/g;x?y'), ('', 'http://a/b/c/d;p?q'),
             ('.', 'http://a/b/c/'), ('./', 'http://a/b/c/'), ('..', 'http://a/b/'), ('../', 'http://a/b/'),
             ('../g', 'http://a/b/g'), ('../..', 'http://a/'), ('../../', 'http://a/'),
             ('../../g', 'http://a/g'), ('../../../g', 'http://a/g'), ('../../../../g', 'http://a/g'),
             ('/./g', 'http://a/g'), ('/../g', 'http://a/g'), ('g.', 'http://a/b/c/g.'),
             ('.g', 'http://a/b/c/.g'), ('g..', 'http://a/b/c/g..'), ('..g', 'http://a/b/c/..g'),
             ('./../g', 'http://a/b/g'), ('./g/.', 'http://a/b/c/g/'), ('g/./h', 'http://a/b/c/g/h'),
             ('g/../h', 'http://a/b/c/h'), ('g;x=1/./y', 'http://a/b/c/g;x=1/y'),
             ('g;x=1/../y', 'http://a/b/c/y'), ('g?y/./x', 'http://a/b/c/g?y/./x'),
             ('g?y/../x', 'http://a/b/c/g?y/../x'), ('g#s/./x', 'http://a/b/c/g'),
             ('g#s/../x', 'http://a/b/c/g'), ('http:g', 'http:g')) v(ref, expected)
WHERE url_normalize(ref, 'http://a/b/c/d;p?q') IS DISTINCT FROM expected;
-- a crawler's links: relative to the page, normalized the same way as
-- absolute ones; a base that is not absolute leaves the link as it is
SELECT url_normalize('../Guide/%7Eintro.html#top', 'HTTP://Docs.Example.COM:80/v2/api/index.html') AS relative,
       url_normalize('https://Other.example/x', 'http://docs.example.com/') AS absolute,
       url_normalize('a/b', 'not a base') AS no_base,
       url_normalize('//cdn.example.com/lib.js', 'https://docs.example.com/') AS network_path;
-- http(s): a backslash ends the host, as browsers read it: the path's case is kept
SELECT url_normalize('http://Example.com\Docs') AS upper, url_normalize('http://example.com\docs') AS lower,
       url_host('http://Example.COM\Docs') AS host;
