/*
 * ops_checkonly.h
 *		Operations for a type that has no ops_<type>.h yet: the checker
 *		alone is fuzzed, from an empty corpus.  Write ops_<type>.h (see
 *		ops_bloom.h) to exercise what a user can do with an accepted value.
 */
static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	(void) value;
	(void) len;
	(void) data;
	(void) size;
}

static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	(void) emit;
}
