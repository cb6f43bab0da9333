/*
 * scan.h
 *		The probe scan (scan.c): a sequential scan that answers a
 *		bloom_contains-style qual a heap page at a time.
 */
#ifndef PGBF_SCAN_H
#define PGBF_SCAN_H

#include "pg_common.h"

#include "access/htup.h"
#include "nodes/primnodes.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

/* set up the GUC, the planner hook and the custom scan methods: _PG_init */
extern void pgbf_scan_init(void);

/* the build scan's (buildscan.c), called by pgbf_scan_init */
extern void pgbf_build_scan_init(void);

/*
 * The Aggref a build scan computes, if context (a final function's
 * fcinfo->context) is a build scan, else NULL: what AggGetAggref gives a
 * final function called by an Agg node.
 */
extern Aggref *pgbf_build_scan_aggref(Node *context);

/*
 * The C symbol of one of this module's functions, and of one of its
 * per-element entry points without the element suffix (scan.c)
 */
extern char *pgbf_module_symbol(Oid funcid, int nargs, Oid rettype);
extern char *pgbf_module_elem_symbol(Oid funcid, int nargs, Oid rettype, PgbfElem *kind);

/*
 * The tuple at offset off of a heap page the caller has pinned (a visible
 * one, from a page-at-a-time scan's rs_vistuples), pointing into the page,
 * and its column attno; false if its line pointer is not a normal one
 */
extern bool pgbf_page_tuple(Relation rel, Page page, BlockNumber block, OffsetNumber off,
							HeapTuple tup);
extern bool pgbf_page_attr(Relation rel, Page page, BlockNumber block, OffsetNumber off,
						   AttrNumber attno, Datum *d, bool *isnull);

/*
 * Start loading a pinned heap page's tuple area (pd_upper .. pd_special)
 * as data read once, before a page pass reads every tuple of it.  Locality
 * 0 is PREFETCHNTA on x86: the lines come in for this pass and go first,
 * where the pass's ordinary loads of them pushed the filter's own lines
 * out of L2 (8 kB a page; a standard-layout probe reads k lines of a filter
 * bigger than a 1 MB L2).  The bounds come from a page the buffer manager
 * checked, and a prefetch cannot fault, but they are clamped to the page.
 * Always inlined: GCC may judge a function that only prefetches to be
 * pure and delete calls to it (see prefetch_add in bloom.c).
 */
static inline __attribute__((always_inline)) void
pgbf_page_prefetch_once(Page page)
{
	PageHeader	ph = (PageHeader) page;
	uint32		lo = Min(ph->pd_upper, BLCKSZ) & ~63;
	uint32		hi = Min(ph->pd_special, BLCKSZ);

	for (uint32 o = lo; o < hi; o += 64)
		__builtin_prefetch((const char *) page + o, 0, 0);
}

/*
 * The column an element expression reads (of relid; of any rel if 0), and
 * how the element is made of its value (ELEM_*), or NULL when e is not one
 * of those forms (scan.c); the hash of that element of a column value d.
 */
#define ELEM_COLUMN	0			/* the column itself, or a binary-compatible cast */
#define ELEM_INT4	1			/* integer column cast to bigint */
#define ELEM_INT2	2			/* smallint column cast to bigint */
#define ELEM_URL	3			/* url_normalize(column) */
extern Var *pgbf_element_column(Node *e, Index relid, int *elem);
extern uint64 pgbf_element_hash(int elem, PgbfElem kind, uint64 seed, Datum d);

/* each type's answer for n hashes at once (the array probes' cores) */
extern void pgbf_bloom_probe_many(const void *f, const uint64 *h, size_t n, bool *out);
extern void pgbf_counting_probe_many(const void *f, const uint64 *h, size_t n, bool *out);
extern void pgbf_cuckoo_probe_many(const void *f, const uint64 *h, size_t n, bool *out);

/*
 * A cuckoofilter argument (arg 0 of fcinfo) for a scan expected to probe
 * it about expected_probes times, and *alt its table of alternate-bucket
 * offsets when that pays (else NULL); the answers through them.
 */
extern const void *pgbf_cuckoo_scan_filter(FunctionCallInfo fcinfo, double expected_probes,
										   const void **alt);
extern void pgbf_cuckoo_probe_many_alt(const void *f, const void *alt, const uint64 *h,
									   size_t n, bool *out);

#endif
