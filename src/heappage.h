/*
 * heappage.h
 *		A heap table scanned a page at a time: the one place (heappage.c)
 *		that reads a heap scan's private state, so the probe and build
 *		scans can answer every visible tuple of the page the scan is on at
 *		once, and move the scan past tuples they have answered.  Where the
 *		heap scan's layout is not known (pg_compat.h), nothing is paged and
 *		the scans answer slot by slot.
 */
#ifndef PGBF_HEAPPAGE_H
#define PGBF_HEAPPAGE_H

#include "postgres.h"

#include "access/htup.h"
#include "access/relscan.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

#include "pg_common.h"

typedef struct PgbfHeapPage
{
	Page		page;			/* pinned by the scan while it is on it */
	BlockNumber block;
	int			ntuples;		/* the page's visible tuples */
	const OffsetNumber *offsets;	/* theirs, in the scan's order */
	int			current;		/* index of the one the scan returned last */
} PgbfHeapPage;

/* can a scan of rel be read a page at a time? */
extern bool pgbf_heap_paged(Relation rel);

/*
 * The page a scan of such a rel is on, if it is block and the scan reads
 * it in page mode (its visible tuples known): then true and *pg.
 */
extern bool pgbf_heap_scan_page(TableScanDesc scan, BlockNumber block, PgbfHeapPage *pg);

/* have the scan go on after visible tuple i of its current page */
extern void pgbf_heap_scan_skip_to(TableScanDesc scan, int i);

/*
 * Column attno of the tuple at offset off of a heap page the caller has
 * pinned (a visible one, from pgbf_heap_scan_page); false if its line
 * pointer is not a normal one (pgbf_page_tuple, pg_common.h)
 */
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

#endif							/* PGBF_HEAPPAGE_H */
