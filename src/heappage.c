/*
 * heappage.c
 *		The heap scan's private state (HeapScanDescData), read and moved on
 *		for the probe and build scans: see heappage.h.
 */
#include "postgres.h"

#include "pg_compat.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "heappage.h"

bool
pgbf_heap_paged(Relation rel)
{
#ifdef PGBF_HEAP_PAGE_ACCESS
	return rel->rd_tableam == GetHeapamTableAmRoutine();
#else
	return false;
#endif
}

bool
pgbf_heap_scan_page(TableScanDesc scan, BlockNumber block, PgbfHeapPage *pg)
{
#ifdef PGBF_HEAP_PAGE_ACCESS
	HeapScanDesc hscan = (HeapScanDesc) scan;

	if (!(scan->rs_flags & SO_ALLOW_PAGEMODE) || hscan->rs_cblock != block ||
		!BufferIsValid(hscan->rs_cbuf))
		return false;
	pg->page = BufferGetPage(hscan->rs_cbuf);
	pg->block = block;
	pg->ntuples = hscan->rs_ntuples;
	pg->offsets = hscan->rs_vistuples;
	pg->current = hscan->rs_cindex;
	return true;
#else
	return false;
#endif
}

void
pgbf_heap_scan_skip_to(TableScanDesc scan, int i)
{
#ifdef PGBF_HEAP_PAGE_ACCESS
	/* heapgettup_pagemode goes on after rs_cindex */
	((HeapScanDesc) scan)->rs_cindex = i;
#endif
}

bool
pgbf_page_attr(Relation rel, Page page, BlockNumber block, OffsetNumber off,
			   AttrNumber attno, Datum *d, bool *isnull)
{
	HeapTupleData tup;

	if (!pgbf_page_tuple(rel, page, block, off, &tup))
		return false;
	*d = heap_getattr(&tup, attno, RelationGetDescr(rel), isnull);
	return true;
}
