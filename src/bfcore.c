/*
 * bfcore.c
 *		Shared plain-C pieces: header checks, element hashing, base64.
 */
#include "bfcore.h"

#include <stdarg.h>
#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/*
 * Element hashes are XXH3-64 and part of the stored format: XXH3's output
 * is stable from xxHash 0.8.0 on (earlier releases marked it experimental
 * and changed it), so an older header would make filters whose bits mean
 * something else.
 */
#if !defined(XXH_VERSION_NUMBER) || XXH_VERSION_NUMBER < 800
#error "bloomfilter needs xxHash 0.8.0 or later (libxxhash-dev): XXH3 output is part of the stored format"
#endif

BfInterruptHook bf_interrupt_hook = NULL;

void
bf_zero(void *p, size_t n)
{
	char	   *c = (char *) p;

	for (; n > BF_INTERRUPT_BYTES; c += BF_INTERRUPT_BYTES, n -= BF_INTERRUPT_BYTES)
	{
		memset(c, 0, BF_INTERRUPT_BYTES);
		bf_check_interrupts();
	}
	memset(c, 0, n);
}

void
bf_copy(void *dst, const void *src, size_t n)
{
	char	   *d = (char *) dst;
	const char *s = (const char *) src;

	for (; n > BF_INTERRUPT_BYTES; d += BF_INTERRUPT_BYTES, s += BF_INTERRUPT_BYTES,
		 n -= BF_INTERRUPT_BYTES)
	{
		memcpy(d, s, BF_INTERRUPT_BYTES);
		bf_check_interrupts();
	}
	memcpy(d, s, n);
}

BfStatus
bf_fail(char *errbuf, BfStatus status, const char *fmt,...)
{
	va_list		ap;

	if (errbuf)
	{
		va_start(ap, fmt);
		vsnprintf(errbuf, BF_ERRLEN, fmt, ap);
		va_end(ap);
	}
	return status;
}

void
bf_init_header(void *data, BfKind kind, uint64_t seed)
{
	BfHeader   *h = (BfHeader *) data;

	h->kind = (uint8_t) kind;
	h->version = BF_FORMAT_VERSION;
	h->hash_id = BF_HASH_XXH3_64;
	h->flags = 0;
	h->seed = seed;
	h->reserved = 0;
}

/*
 * The checks every value passes before its type looks at it.  Flags are
 * type specific, so they are left to the caller.
 */
BfStatus
bf_check_header(const void *data, size_t len, size_t min_len, BfKind kind,
				const char *type_name, char *errbuf)
{
	return bf_check_header_versions(data, len, min_len, kind, type_name,
									BF_FORMAT_VERSION, errbuf);
}

BfStatus
bf_check_header_versions(const void *data, size_t len, size_t min_len, BfKind kind,
						 const char *type_name, uint8_t max_version, char *errbuf)
{
	const BfHeader *h = (const BfHeader *) data;

	if (len < sizeof(BfHeader) || len < min_len)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "%s value is too short (%zu bytes, need at least %zu)",
					   type_name, len, min_len > sizeof(BfHeader) ? min_len : sizeof(BfHeader));
	if (h->kind != (uint8_t) kind)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "value is not a %s (type tag %u, expected %u)",
					   type_name, h->kind, (unsigned) kind);
	if (h->version > max_version)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "%s format version %u is newer than this build reads (up to %u): "
					   "made by a later bloomfilter release",
					   type_name, h->version, max_version);
	if (h->version < BF_FORMAT_VERSION)
	{
		if (max_version == BF_FORMAT_VERSION)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "unsupported %s format version %u (this build reads version %u)",
						   type_name, h->version, BF_FORMAT_VERSION);
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "unsupported %s format version %u (this build reads versions %u to %u)",
					   type_name, h->version, BF_FORMAT_VERSION, max_version);
	}
	if (h->hash_id != BF_HASH_XXH3_64)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "unsupported %s hash function %u", type_name, h->hash_id);
	if (h->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "%s header reserved field is not zero", type_name);
	return BF_OK;
}

/* capacity and fpr checks shared by every create function and aggregate */
BfStatus
bf_check_params(int64_t capacity, double fpr, char *errbuf)
{
	if (capacity < 1)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "capacity must be at least 1 (got %lld)", (long long) capacity);
	if (!(fpr > 0.0 && fpr < 1.0))
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr must be greater than 0 and less than 1 (got %g)", fpr);
	if (fpr < 1e-15)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr must be at least 1e-15 (got %g)", fpr);
	return BF_OK;
}

uint64_t
bf_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	return XXH3_64bits_withSeed(data, len, seed);
}

/* bigint elements hash as their 8 little-endian bytes on every platform */
uint64_t
bf_hash_int64(int64_t value, uint64_t seed)
{
	uint8_t		b[8];
	uint64_t	v = (uint64_t) value;

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t) (v >> (8 * i));
	return XXH3_64bits_withSeed(b, 8, seed);
}

uint64_t
bf_hash_uuid(const uint8_t bytes[16], uint64_t seed)
{
	return XXH3_64bits_withSeed(bytes, 16, seed);
}

/*
 * Population counts.  PostgreSQL builds for the baseline x86-64 ISA, where
 * __builtin_popcountll is a libgcc call doing it bit-twiddling style; a
 * blocked filter counts a block's bits on every add, so use the POPCNT
 * instruction when the CPU has it (checked once, with cpuid).
 */
static int	isa_limit = 2;

int
bf_set_isa_limit(int limit)
{
	int			old = isa_limit;

	isa_limit = limit;
	return old;
}

#ifdef BF_POPCNT_DISPATCH
#include <cpuid.h>

static int	have_popcnt = -1;

bool
bf_have_popcnt(void)
{
	if (have_popcnt < 0)
	{
		unsigned int a,
					b,
					c = 0,
					d;

		have_popcnt = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_POPCNT) != 0;
	}
	return have_popcnt && isa_limit >= 1;
}

__attribute__((target("popcnt")))
static int
popcount64_hw(uint64_t x)
{
	return __builtin_popcountll(x);
}

__attribute__((target("popcnt")))
static int
popcount_block_hw(const uint64_t *w)
{
	return __builtin_popcountll(w[0]) + __builtin_popcountll(w[1]) +
		__builtin_popcountll(w[2]) + __builtin_popcountll(w[3]) +
		__builtin_popcountll(w[4]) + __builtin_popcountll(w[5]) +
		__builtin_popcountll(w[6]) + __builtin_popcountll(w[7]);
}

__attribute__((target("popcnt")))
static uint64_t
popcount_words_hw(const uint8_t *p, size_t n)
{
	uint64_t	c = 0;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	w;

		memcpy(&w, p + i * 8, 8);
		c += (uint64_t) __builtin_popcountll(w);
	}
	return c;
}
#endif

#ifdef BF_AVX512_DISPATCH
static int	have_avx512 = -1;
static int	have_avx512bw = -1;

/*
 * AVX-512F and AVX512_VPOPCNTDQ (cpuid leaf 7), and an OS that saves the
 * opmask and all 512 bits of the 32 vector registers: XCR0 bits 1, 2, 5,
 * 6 and 7, readable once cpuid says OSXSAVE.  (Under valgrind, whose
 * virtual CPU has no AVX-512, this is false.)
 */
bool
bf_have_avx512(void)
{
	if (have_avx512 < 0)
	{
		unsigned int a,
					b = 0,
					c = 0,
					d;
		bool		ok = false;

		if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_POPCNT))
		{
			uint32_t	xlo,
						xhi;

			__asm__ volatile ("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
			if ((xlo & 0xe6) == 0xe6 && __get_cpuid_max(0, NULL) >= 7)
			{
				__cpuid_count(7, 0, a, b, c, d);
				ok = (b & (1u << 16)) != 0 &&	/* AVX512F */
					(c & (1u << 14)) != 0;	/* AVX512_VPOPCNTDQ */
				have_avx512bw = ok &&
					(b & (1u << 30)) != 0 &&	/* AVX512BW */
					(b & (1u << 8)) != 0 &&		/* BMI2 */
					(b & (1u << 3)) != 0;	/* BMI1 */
			}
		}
		have_avx512 = ok;
		if (have_avx512bw < 0)
			have_avx512bw = 0;
	}
	return have_avx512 && isa_limit >= 2;
}

bool
bf_have_avx512bw(void)
{
	return bf_have_avx512() && have_avx512bw > 0;
}
#endif

int
bf_popcount64(uint64_t x)
{
#ifdef BF_POPCNT_DISPATCH
	if (bf_have_popcnt())
		return popcount64_hw(x);
#endif
	return __builtin_popcountll(x);
}

int
bf_popcount_block(const uint64_t *w)
{
#ifdef BF_POPCNT_DISPATCH
	if (bf_have_popcnt())
		return popcount_block_hw(w);
#endif
	return __builtin_popcountll(w[0]) + __builtin_popcountll(w[1]) +
		__builtin_popcountll(w[2]) + __builtin_popcountll(w[3]) +
		__builtin_popcountll(w[4]) + __builtin_popcountll(w[5]) +
		__builtin_popcountll(w[6]) + __builtin_popcountll(w[7]);
}

static uint64_t
popcount_bytes(const uint8_t *p, size_t len)
{
	uint64_t	n = 0;
	size_t		i = 0;

#ifdef BF_POPCNT_DISPATCH
	if (bf_have_popcnt())
	{
		n = popcount_words_hw(p, len / 8);
		i = len / 8 * 8;
	}
#endif
	for (; i + 8 <= len; i += 8)
	{
		uint64_t	w;

		memcpy(&w, p + i, 8);
		n += (uint64_t) __builtin_popcountll(w);
	}
	for (; i < len; i++)
		n += (uint64_t) __builtin_popcount(p[i]);
	return n;
}

/* a big value a chunk at a time, so that its pass can be interrupted */
uint64_t
bf_popcount_bytes(const uint8_t *p, size_t len)
{
	uint64_t	n = 0;

	for (; len > BF_INTERRUPT_BYTES; p += BF_INTERRUPT_BYTES, len -= BF_INTERRUPT_BYTES)
	{
		n += popcount_bytes(p, BF_INTERRUPT_BYTES);
		bf_check_interrupts();
	}
	return n + popcount_bytes(p, len);
}

static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
bf_base64_encoded_len(size_t len)
{
	return (len + 2) / 3 * 4;
}

/* the text form of a value of up to 1 GB: whole groups a stretch at a time */
#define B64_STRETCH	(BF_INTERRUPT_BYTES / 4 * 3)

void
bf_base64_encode(const uint8_t *src, size_t len, char *dst)
{
	size_t		i = 0;

	while (len - i >= 3)
	{
		size_t		end = len - i > B64_STRETCH ? i + B64_STRETCH : len;

		if (i > 0)
			bf_check_interrupts();
		for (; i + 3 <= end; i += 3)
		{
			uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

			*dst++ = b64_alphabet[(v >> 18) & 63];
			*dst++ = b64_alphabet[(v >> 12) & 63];
			*dst++ = b64_alphabet[(v >> 6) & 63];
			*dst++ = b64_alphabet[v & 63];
		}
	}
	if (len - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = b64_alphabet[(v >> 18) & 63];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (len - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = b64_alphabet[(v >> 18) & 63];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = b64_alphabet[(v >> 6) & 63];
		*dst++ = '=';
	}
}

size_t
bf_base64_decoded_maxlen(size_t len)
{
	return len / 4 * 3;
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Strict decoder: length a multiple of 4, padding only at the end, unused
 * bits of the last group zero.  So every value has exactly one text form.
 * A stretch at a time, as the encoder.
 */
size_t
bf_base64_decode(const char *src, size_t len, uint8_t *dst)
{
	size_t		out = 0;

	if (len % 4 != 0)
		return (size_t) -1;
	for (size_t i = 0; i < len;)
	{
		size_t		end = len - i > BF_INTERRUPT_BYTES ? i + BF_INTERRUPT_BYTES : len;

		if (i > 0)
			bf_check_interrupts();
		for (; i < end; i += 4)
		{
			int			v[4];
			int			pad = 0;
			bool		last = (i + 4 == len);

			for (int j = 0; j < 4; j++)
			{
				char		c = src[i + j];

				if (c == '=' && last && j >= 2)
				{
					v[j] = 0;
					pad++;
					continue;
				}
				if (pad > 0)
					return (size_t) -1;	/* data after padding */
				v[j] = b64_value(c);
				if (v[j] < 0)
					return (size_t) -1;
			}
			if (pad == 2 && (v[1] & 15) != 0)
				return (size_t) -1;
			if (pad == 1 && (v[2] & 3) != 0)
				return (size_t) -1;
			{
				uint32_t	w = ((uint32_t) v[0] << 18) | ((uint32_t) v[1] << 12) |
					((uint32_t) v[2] << 6) | (uint32_t) v[3];

				dst[out++] = (uint8_t) (w >> 16);
				if (pad < 2)
					dst[out++] = (uint8_t) (w >> 8);
				if (pad < 1)
					dst[out++] = (uint8_t) w;
			}
		}
	}
	return out;
}
