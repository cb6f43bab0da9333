--
-- demo/generator.sql: a crawl-like link stream, in plain SQL.
--
-- Not part of the extension: the demo's stand-in for a crawler's parser.
-- demo_links(first, n) returns links number first .. first+n-1 of an
-- endless, reproducible stream (link i is a pure function of i), shaped
-- like what a crawler extracts (Mercator, Heydon & Najork 1999):
--
--  * pages are parsed 25 links at a time; each page lives on a host picked
--    by Zipf-like popularity (rank r with probability ~ 1/r among 20,000
--    hosts; the 370 real hosts of data/urls-sample.txt.gz take the top
--    ranks, in the order of their frequency there);
--  * locality: the first 4 links of a page are its host's navigation ("/"
--    and three section pages), and 70% of the others stay on the same
--    host; the rest point to another host, again by popularity;
--  * each host has a tree of pages, also picked by Zipf-like popularity,
--    so popular pages repeat all the time and new ones keep appearing;
--  * every 5th link is the next line of the real sample (in its order,
--    round and round);
--  * 12% of links are spelled differently, as real pages spell them:
--    upper-case host or scheme, explicit default port, "#fragment",
--    "/./" or "/x/../" in the path, a percent-encoded unreserved
--    character.  url_normalize must fold all of them back.
--

-- the real URLs, split once into scheme, host and the rest
CREATE TABLE demo_real (
	n		int PRIMARY KEY,
	url		text NOT NULL,
	scheme	text,
	host	text,
	rest	text
);

-- real hosts by frequency in the sample, and their usual scheme
CREATE TABLE demo_hosts (
	rank	int PRIMARY KEY,
	host	text NOT NULL,
	scheme	text NOT NULL
);

-- loads demo_real from demo_real_raw(n, url) (filled by \copy)
CREATE FUNCTION demo_prepare() RETURNS void LANGUAGE sql AS $$
	INSERT INTO demo_real
	SELECT n, url, m[1], m[2], coalesce(m[3], '')
	FROM (SELECT n, url, regexp_match(url, '^(https?)://([^/?#]*)(.*)$') AS m
		  FROM demo_real_raw) r;
	INSERT INTO demo_hosts
	SELECT row_number() OVER (ORDER BY count(*) DESC, host), host, mode() WITHIN GROUP (ORDER BY scheme)
	FROM demo_real WHERE host <> '' GROUP BY host;
	ANALYZE demo_real;
	ANALYZE demo_hosts;
$$;

-- uniform [0, 1) from (i, salt): a hash, not random(), so link i is the
-- same link in every run and in both passes
CREATE FUNCTION demo_u(i bigint, salt bigint) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT ((hashint8extended(i, salt) >> 11) & 9007199254740991)::float8 / 9007199254740992.0
$$;

-- Zipf-like rank in 1 .. n: P(r) ~ 1/r
CREATE FUNCTION demo_zipf(u float8, n bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT least(n, floor(exp(u * ln(n + 1)))::bigint)
$$;

-- the page of rank k on a host: "/", three sections, then a tree
CREATE FUNCTION demo_path(k bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE
		WHEN k = 1 THEN '/'
		WHEN k <= 4 THEN (ARRAY['/docs/', '/news/', '/download/'])[k - 1]
		ELSE '/' || (ARRAY['docs', 'news', 'wiki', 'blog', 'doc', 'src', 'pub', 'en',
						   'archive', 'releases', 'issues', 'manual', 'api', 'faq', 'lists', 'tags'])[1 + k % 16]
			|| '/' || (ARRAY['intro', 'install', 'usage', 'config', 'history', 'team', 'guide', 'ref',
							 'v1', 'v2', 'old', 'new', 'misc', 'data', 'tools', 'index'])[1 + (k / 16) % 16]
			|| CASE k % 3
				WHEN 0 THEN '/' || (k / 256) || '.html'
				WHEN 1 THEN '/page-' || (k / 256) || '/'
				ELSE '/view?id=' || (k / 256) || '&lang=en'
			END
	END
$$;

-- a link respelled by variant v (0 .. 5): same URL to url_normalize
CREATE FUNCTION demo_respell(scheme text, host text, rest text, v int, i bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE v
		WHEN 0 THEN scheme || '://' || upper(host) || rest
		WHEN 1 THEN upper(scheme) || '://' || host || CASE scheme WHEN 'https' THEN ':443' ELSE ':80' END || rest
		WHEN 2 THEN scheme || '://' || host || rest || '#section-' || (i % 7)
		WHEN 3 THEN scheme || '://' || host || '/.' || CASE WHEN rest = '' THEN '/' ELSE rest END
		WHEN 4 THEN scheme || '://' || host || '/x/..' || CASE WHEN rest = '' THEN '/' ELSE rest END
		ELSE scheme || '://' || host ||
			CASE WHEN rest ~ '^/[A-Za-z0-9]'
				THEN '/%' || lower(encode(convert_to(substr(rest, 2, 1), 'UTF8'), 'hex')) || substr(rest, 3)
				ELSE rest END
	END
$$;

-- links first .. first+n-1 of the stream, in stream order
CREATE FUNCTION demo_links(first bigint, n int) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
	WITH consts AS (
		SELECT (SELECT count(*) FROM demo_real) AS nreal,
			   (SELECT count(*) FROM demo_hosts) AS nhosts,
			   20000::bigint AS hosts,
			   20000::bigint AS pages
	), l AS (
		SELECT i,
			   i % 25 AS slot,
			   demo_zipf(demo_u(i / 25, 1), c.hosts) AS page_host,
			   demo_u(i, 2) AS r_local,
			   demo_zipf(demo_u(i, 3), c.hosts) AS other_host,
			   demo_zipf(demo_u(i, 4), c.pages) AS page_rank,
			   demo_u(i, 5) AS r_spell,
			   CASE WHEN i % 5 = 0 THEN (i / 5) % c.nreal + 1 END AS real_n,
			   c.nhosts
		FROM consts c, generate_series(first, first + n - 1) AS i
	), parts AS (
		SELECT l.i, l.r_spell,
			   coalesce(r.scheme, h.scheme, CASE WHEN t.host % 4 = 0 THEN 'http' ELSE 'https' END) AS scheme,
			   coalesce(r.host, h.host, 'www.site' || t.host || '.example') AS host,
			   coalesce(r.rest, demo_path(CASE WHEN l.slot < 4 THEN l.slot + 1 ELSE l.page_rank END)) AS rest,
			   r.url AS real_url
		FROM l
		CROSS JOIN LATERAL (SELECT CASE WHEN l.slot < 4 OR l.r_local < 0.7
									THEN l.page_host ELSE l.other_host END AS host) t
		LEFT JOIN demo_real r ON r.n = l.real_n
		LEFT JOIN demo_hosts h ON h.rank = t.host AND l.real_n IS NULL
	)
	SELECT CASE
		WHEN r_spell < 0.12 AND scheme IS NOT NULL
			THEN demo_respell(scheme, host, rest, floor(r_spell / 0.02)::int, i)
		ELSE coalesce(real_url, scheme || '://' || host || rest)
	END
	FROM parts
	ORDER BY i
$$;
