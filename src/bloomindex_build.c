/*
 * bloomindex_build.c
 *		CREATE INDEX and REINDEX of a bloomfilter index (ambuild), and the
 *		init fork of an unlogged one (ambuildempty).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/memutils.h"

#include "bloomindex_int.h"

/* ---- the access method ---- */

/*
 * Write the in-memory stage 0 of a build into its pages: each page that
 * holds a bit gets its blocks, their rate units and bits, and a budget.
 * The adds were checked against the whole stage's limit, as a value's
 * are; a page's budget is its base share or what it holds, whichever is
 * more, if the limit allows that for every page, else what it holds plus
 * an equal share of what is left; the pool keeps the rest, and a page
 * left empty gets its budget (page_share a block) when first written.
 */
/*
 * The build's phases in pg_stat_progress_create_index (after
 * PostgreSQL's own "initializing"), named by bfidx_buildphasename
 */
#define BFIDX_PHASE_SCAN	2
#define BFIDX_PHASE_WRITE	3

char *
bfidx_buildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case BFIDX_PHASE_SCAN:
			return "adding table rows";
		case BFIDX_PHASE_WRITE:
			return "writing the filter's pages";
		default:
			return NULL;
	}
}

/*
 * The table's rows added so far, every BF_INTERRUPT_CHUNK of them; in a
 * parallel build, every participant's, and whether another one filled.
 */
static inline void
report_tuples(BfIdxBuildState *bs)
{
	uint64		all;

	bs->reported += 1;
	if ((bs->reported & (BF_INTERRUPT_CHUNK - 1)) != 0)
		return;
	all = bs->reported;
	if (bs->tuples_done != NULL)
	{
		all = pg_atomic_add_fetch_u64(bs->tuples_done, BF_INTERRUPT_CHUNK);
		if (pg_atomic_read_u32(bs->stop) != 0)
			bs->full = true;
	}
	if (!bs->worker)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) all);
}

static void
build_write_local(Relation index, BloomFilter *f)
{
	BfIdxMeta	meta;
	BfIdxStage *s;
	const uint8 *bits = bloom_stage_bits_const(f, 0);
	uint64		nblocks;
	uint64		held = 0,
				want = 0,
				given = 0,
				share;
	uint64	   *units;
	Buffer		metabuf;

	bfidx_read_meta(index, &meta);
	s = &meta.stages[0];
	nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;
	units = palloc_extended(sizeof(uint64) * s->npages, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (uint64 b = 0; b < nblocks; b++)
	{
		units[b / BFIDX_BLOCKS_PER_PAGE] +=
			bloom_block_units((const uint64 *) (bits + b * BFIDX_BLOCK_BYTES), &s->geo);
		bfidx_check_interrupts_every(b, BFIDX_BLOCKS_PER_CHECK);
	}
	share = s->page_share;
	for (uint64 p = 0; p < s->npages; p++)
	{
		held += units[p];
		want += Max(share * bfidx_page_blocks(s, p), units[p]);
	}
	if (want > BLOOM_RATE_LIMIT)
		share = (BLOOM_RATE_LIMIT - Min(held, BLOOM_RATE_LIMIT)) / nblocks;

	for (uint64 p = 0; p < s->npages; p++)
	{
		uint32		nb = bfidx_page_blocks(s, p);
		const uint8 *src = bits + p * BFIDX_BLOCKS_PER_PAGE * BFIDX_BLOCK_BYTES;
		uint64		set = bf_popcount_bytes(src, (size_t) nb * BFIDX_BLOCK_BYTES);
		uint64		budget = want > BLOOM_RATE_LIMIT ? units[p] + share * nb
			: Max(share * nb, units[p]);
		Buffer		buf;
		Page		page;
		BfIdxPageOpaque *o;

		given += budget;
		/* an empty page stays zero (the last is always written) */
		if (set == 0 && p != s->npages - 1)
			continue;
		CHECK_FOR_INTERRUPTS();
		buf = bfidx_read_page(index, (BlockNumber) (s->first_block + p));
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		bfidx_init_stage_page(page, &meta, 0, p);
		memcpy(bfidx_block_of(page, 0), src, (size_t) nb * BFIDX_BLOCK_BYTES);
		o = bfidx_opaque_of(page);
		o->units = units[p];
		o->bits_set = set;
		o->budget = budget;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
	}
	pfree(units);

	metabuf = bfidx_read_page(index, BFIDX_META_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bfidx_meta_of(BufferGetPage(metabuf))->stages[0].page_share = share;
	bfidx_meta_of(BufferGetPage(metabuf))->stages[0].pool = BLOOM_RATE_LIMIT - Min(given, BLOOM_RATE_LIMIT);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);
}

void
bfidx_build_flush(Relation index, BfIdxBuildState *bs)
{
	if (bs->local != NULL)
	{
		BloomAddResult r;
		size_t		done = bs->full ? 0 : bloom_add_hashes(bs->local, bs->h, bs->n, &r);

		if (done == (size_t) bs->n)
		{
			bs->n = 0;
			return;
		}
		/* a parallel participant's stage 0 is full: the others stop too */
		if (bs->parallel)
		{
			bs->full = true;
			pg_atomic_write_u32(bs->stop, 1);
			bs->n = 0;
			return;
		}
		/* stage 0 is full: it goes to the pages, the rest follow there */
		build_write_local(index, bs->local);
		pfree(bs->local_alloc);
		bs->local = NULL;
		memmove(bs->h, bs->h + done, sizeof(uint64) * (bs->n - done));
		bs->n -= (int) done;
	}
	bfidx_add_hashes(index, bs->h, bs->n, false);
	bs->n = 0;
}

static void
build_add_key(Relation index, BfIdxBuildState *bs, Datum key)
{
	MemoryContext old;
	uint64	   *h;
	int			n;

	/* a parallel build that will be serial: no use hashing the rest */
	if (bs->full)
		return;
	/* a scalar: no array of one (a reset of an unused context is free) */
	if (!OidIsValid(bs->hasher.elemtype))
	{
		uint64		h1;

		old = MemoryContextSwitchTo(bs->tmpcxt);
		h1 = bfidx_hash_one(&bs->hasher, key);
		MemoryContextSwitchTo(old);
		if (bs->n == bs->max)
			bfidx_build_flush(index, bs);
		bs->h[bs->n++] = h1;
		bs->indtuples += 1;
		MemoryContextReset(bs->tmpcxt);
		return;
	}
	old = MemoryContextSwitchTo(bs->tmpcxt);
	h = bfidx_hash_key(&bs->hasher, key, &n);
	MemoryContextSwitchTo(old);
	for (int i = 0; i < n; i++)
	{
		if (bs->n == bs->max)
			bfidx_build_flush(index, bs);
		bs->h[bs->n++] = h[i];
	}
	bs->indtuples += n;
	MemoryContextReset(bs->tmpcxt);
}

void
bfidx_build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
					 bool tupleIsAlive, void *state)
{
	if (!isnull[0])
		build_add_key(index, (BfIdxBuildState *) state, values[0]);
	report_tuples((BfIdxBuildState *) state);
}

/* can the build read the table a page at a time (below)? */
bool
bfidx_build_scan_pages_applies(Relation heap, IndexInfo *indexInfo)
{
	return heap->rd_rel->relam == HEAP_TABLE_AM_OID && !indexInfo->ii_Concurrent &&
		indexInfo->ii_Expressions == NIL && indexInfo->ii_Predicate == NIL &&
		indexInfo->ii_NumIndexAttrs == 1 && indexInfo->ii_IndexAttrNumbers[0] > 0;
}

/*
 * One heap page of the build's own scan (build_scan_pages below, or a
 * chunk of a parallel participant's): adds its tuples' elements, returns
 * how many of them are live.
 */
double
bfidx_build_scan_block(Relation heap, Relation index, BlockNumber blk, TransactionId oldest,
					   BufferAccessStrategy strategy, AttrNumber attnum, BfIdxBuildState *bs)
{
	TupleDesc	desc = RelationGetDescr(heap);
	PGAlignedBlock copy;
	bool		add[MaxHeapTuplesPerPage + 1];
	double		live = 0;
	Buffer		buf;
	Page		page;
	OffsetNumber maxoff;

	CHECK_FOR_INTERRUPTS();
	buf = ReadBufferExtended(heap, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	if (maxoff > MaxHeapTuplesPerPage)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("table \"%s\" block %u has %u line pointers",
						RelationGetRelationName(heap), blk, maxoff)));
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleData tup;

		add[off] = false;
		if (!pgbf_page_tuple(heap, page, blk, off, &tup))
			continue;
		switch (HeapTupleSatisfiesVacuum(&tup, oldest, buf))
		{
			case HEAPTUPLE_DEAD:
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				add[off] = true;
				break;
			default:
				add[off] = true;
				live += 1;
				break;
		}
	}
	memcpy(copy.data, page, BLCKSZ);
	UnlockReleaseBuffer(buf);

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleData tup;
		Datum		key;
		bool		isnull;

		if (!add[off] || !pgbf_page_tuple(heap, (Page) copy.data, blk, off, &tup))
			continue;
		key = heap_getattr(&tup, attnum, desc, &isnull);
		if (!isnull)
			build_add_key(index, bs, key);
		report_tuples(bs);
	}
	return live;
}

/*
 * The build's scan of a heap table's pages, for a plain CREATE INDEX or
 * REINDEX of a column (no expression, no predicate, not CONCURRENTLY: the
 * table AM's build scan does those).  That scan reads with SnapshotAny,
 * which has no page mode, so it locks the buffer again for every tuple,
 * and costs more than the Bloom work.  Here each page is locked once:
 * which tuples to add is decided under the share lock (every one not
 * DEAD, the versions a snapshot may still see, as the table AM's scan
 * chooses; no other session can be writing, the table
 * is locked against writes), then their elements are read from a copy
 * of the page.  Returns the live tuples, the table's new reltuples.
 */
static double
build_scan_pages(Relation heap, Relation index, IndexInfo *indexInfo, BfIdxBuildState *bs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(heap);
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	TransactionId oldest = GetOldestNonRemovableTransactionId(heap);
	AttrNumber	attnum = indexInfo->ii_IndexAttrNumbers[0];
	double		live = 0;

	pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL, nblocks);
	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		live += bfidx_build_scan_block(heap, index, blk, oldest, strategy, attnum, bs);
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE, blk + 1);
	}
	FreeAccessStrategy(strategy);
	return live;
}

IndexBuildResult *
bfidx_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	BfIdxBuildState bs;
	BfIdxOptions opts;
	BfIdxMeta	meta;
	IndexBuildResult *result;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));
	bfidx_preload_notice(index);
	bfidx_get_options(index, &opts);
	bfidx_create_filter(index, MAIN_FORKNUM, &opts);
	bfidx_read_meta(index, &meta);

	memset(&bs, 0, sizeof(bs));
	bfidx_hasher_init(&bs.hasher, index, meta.seed);
	/* hashes are applied a page at a time, maintenance_work_mem of them */
	bs.max = (int) Min((Size) maintenance_work_mem * 1024 / (sizeof(uint64) * 4),
					   (Size) 64 * 1024 * 1024);
	bs.max = Max(bs.max, 16384);
	bs.h = palloc_extended(sizeof(uint64) * bs.max, MCXT_ALLOC_HUGE);
	bs.tmpcxt = AllocSetContextCreate(CurrentMemoryContext, "bloomfilter index build",
									  ALLOCSET_DEFAULT_SIZES);

	/*
	 * Stage 0 is built in memory, at a value's speed (the core's batched
	 * adds), when it fits in maintenance_work_mem, and written to the pages
	 * once; a bigger one is built in the pages, a sorted batch at a time.
	 */
	{
		size_t		size;
		char		errbuf[BF_ERRLEN];

		if (bloom_paged_value_size(&meta.stages[0].geo, 1, &size, errbuf) == BF_OK &&
			size <= (Size) maintenance_work_mem * 1024)
		{
			bs.local = pgbf_alloc_value_aligned(CurrentMemoryContext, size, &bs.local_alloc);
			bloom_paged_value_init(bs.local, size, meta.capacity, meta.fpr,
								   meta.scalable != 0, &meta.stages[0].geo, 1, meta.seed);
		}
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BFIDX_PHASE_SCAN);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_TOTAL,
								 (int64) Max(heap->rd_rel->reltuples, 0));
	/* the planner's workers (17+: amcanbuildparallel), unless that falls back */
	if (indexInfo->ii_ParallelWorkers == 0 ||
		!bfidx_build_parallel(heap, index, indexInfo, &meta, &bs, &reltuples))
	{
		if (bfidx_build_scan_pages_applies(heap, indexInfo))
			reltuples = build_scan_pages(heap, index, indexInfo, &bs);
		else
			reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
											   bfidx_build_callback, &bs, NULL);
	}
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) bs.reported);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BFIDX_PHASE_WRITE);
	bfidx_build_flush(index, &bs);
	if (bs.local != NULL)
	{
		build_write_local(index, bs.local);
		pfree(bs.local_alloc);
	}
	MemoryContextDelete(bs.tmpcxt);

	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

void
bfidx_buildempty(Relation index)
{
	BfIdxOptions opts;

	bfidx_get_options(index, &opts);
	bfidx_create_filter(index, INIT_FORKNUM, &opts);
}
