--
-- URLs: the key a URL-seen filter is asked about
--
CREATE FUNCTION url_normalize(url text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_normalize_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_normalize(text) IS 'RFC 3986 syntax-based normalization (lower-case scheme and host, percent-encodings, dot segments, default port, no fragment, "/" for an empty http(s) path), so two spellings of one URL give one key; text that is not an absolute URL is returned unchanged';

CREATE FUNCTION url_host(url text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_host_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_host(text) IS 'the host of url_normalize(url) (no userinfo, no port; an IP literal keeps its brackets), NULL when it has none: the natural key to distribute or partition a crawl by';

CREATE FUNCTION url_normalize(ref text, base text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_normalize_ref' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_normalize(text, text) IS 'ref, a link found on the page at base, resolved against base (RFC 3986 section 5.2), then url_normalize''d';
