--
-- URLs: the key a URL-seen filter is asked about
--
CREATE FUNCTION url_normalize(url text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_normalize_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_normalize(text) IS 'RFC 3986 syntax-based normalization (lower-case scheme and host, percent-encodings, dot segments, default port, no fragment, "/" for an empty http(s) path), so two spellings of one URL give one key; text that is not an absolute URL is returned unchanged';
