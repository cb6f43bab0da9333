/*
 * bloomindex_insert.c
 *		What goes into the bloomfilter index after its build: aminsert
 *		keeps a transaction's hashes until it commits (or a probe in it
 *		reads the index), then they go in a page at a time.
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"

#include "bloomindex_int.h"

/* ---- adding ---- */

/*
 * What a page that needs `need` more rate units takes from its stage's
 * pool: a little more than needed, so that the metapage is written a few
 * times in a page's life, not on every add; but little, as what a page
 * holds unused is lost to the others.
 */
static inline uint64
borrow_amount(const BfIdxStage *s, const BfIdxPageOpaque *o, uint64 need, uint64 pool)
{
	return Max(need, Min(pool, s->page_share * o->nblocks / BFIDX_BORROW_DIVISOR));
}

/* how a group of page changes is made durable */
typedef enum BfIdxLog
{
	BFIDX_LOG_NONE,				/* a build: its pages are logged whole at the end */
	BFIDX_LOG_GENERIC,			/* generic WAL */
	BFIDX_LOG_OWN				/* the module's own record (bloomindex_wal.c) */
} BfIdxLog;

/*
 * Where a page's adds borrow from: the stage's pool in the metapage,
 * which the writer locks (after its data pages, as every writer does)
 * only when a page must borrow; a dry run reads a copy instead.
 */
typedef struct BfIdxPool
{
	Relation	index;
	bool		dry;			/* pool is the caller's copy: lock nothing */
	Buffer		metabuf;		/* locked once a page has borrowed */
	uint64		pool;
	bool		borrowed;
} BfIdxPool;

/*
 * Work out the adds of pos[j .. e) (sorted, all on page p of stage st) on
 * copies of their blocks: c->opaque becomes the page's special space
 * after them, and c->adds (if not NULL) each add that sets a bit.  Each
 * add that would take the page past its budget borrows from the pool; one
 * the pool cannot cover stops it (the stage is full).  Returns where it
 * stopped: e if it took them all.  page is locked by the caller.
 */
static int
page_changes(const BfIdxMeta *meta, uint32 st, Page page, uint64 p, const BfIdxHashPos *pos,
			 int j, int e, BfIdxPageChange *c, BfIdxPool *pl)
{
	const BfIdxStage *s = &meta->stages[st];
	BfIdxPageOpaque *o = &c->opaque;
	uint64		cur[BFIDX_BLOCK_BYTES / sizeof(uint64)];
	int64		curslot = -1;
	int			i;

	c->init = PageIsNew(page);
	if (c->init)
		bfidx_init_opaque(o, meta, st, p);
	else
	{
		*o = *bfidx_opaque_of(page);
		if (o->stage != st || o->page_id != bfidx_page_id(meta->format))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" block %llu is not a page of stage %u",
							RelationGetRelationName(pl->index),
							(unsigned long long) (s->first_block + p), st)));
	}
	c->nadds = 0;
	for (i = j; i < e; i++)
	{
		uint16		slot = (uint16) (pos[i].block % BFIDX_BLOCKS_PER_PAGE);
		uint64		delta;
		int			newbits;

		if (slot != curslot)
		{
			if (c->init)
				memset(cur, 0, sizeof(cur));
			else
				memcpy(cur, bfidx_block_of(page, slot), sizeof(cur));
			curslot = slot;
		}
		newbits = bloom_block_preview(cur, pos[i].h, &s->geo, &delta);
		if (newbits == 0)
			continue;
		if (o->units + delta > o->budget)
		{
			uint64		need = o->units + delta - o->budget,
						take;

			if (!pl->dry && !BufferIsValid(pl->metabuf))
			{
				pl->metabuf = bfidx_read_page(pl->index, BFIDX_META_BLKNO);
				LockBuffer(pl->metabuf, BUFFER_LOCK_EXCLUSIVE);
				pl->pool = bfidx_meta_of(BufferGetPage(pl->metabuf))->stages[st].pool;
			}
			if (pl->pool < need)
				break;
			take = borrow_amount(s, o, need, pl->pool);
			pl->pool -= take;
			o->budget += take;
			pl->borrowed = true;
		}
		bloom_block_set(cur, pos[i].h, s->geo.nhashes);
		o->units += delta;
		o->bits_set += newbits;
		if (c->adds != NULL)
		{
			memcpy(c->adds + (Size) c->nadds * BFIDX_WAL_ADD_BYTES, &slot, sizeof(slot));
			memcpy(c->adds + (Size) c->nadds * BFIDX_WAL_ADD_BYTES + sizeof(slot),
				   &pos[i].h, sizeof(uint64));
		}
		c->nadds++;
	}
	return i;
}

/*
 * Make a group's page changes durable and visible: apply each (the pages
 * locked exclusively), and the stage's new pool to the metapage if a page
 * borrowed, logged as log says.
 */
static void
commit_changes(Relation index, const BfIdxMeta *meta, uint32 st, BfIdxPageChange *pages,
			   int n, BfIdxPool *pl, BfIdxLog log)
{
	uint32		nhashes = meta->stages[st].geo.nhashes;
	Buffer		metabuf = pl->borrowed ? pl->metabuf : InvalidBuffer;

	if (log == BFIDX_LOG_OWN)
		bfidx_log_adds(nhashes, pages, n, metabuf, st, pl->pool);
	else if (log == BFIDX_LOG_GENERIC)
		bfidx_log_adds_generic(nhashes, pages, n, metabuf, st, pl->pool);
	else
	{
		for (int k = 0; k < n; k++)
		{
			bfidx_apply_change(BufferGetPage(pages[k].buf), pages[k].init, &pages[k].opaque,
							   nhashes, pages[k].adds, pages[k].nadds);
			MarkBufferDirty(pages[k].buf);
		}
		if (BufferIsValid(metabuf))
		{
			bfidx_meta_of(BufferGetPage(metabuf))->stages[st].pool = pl->pool;
			MarkBufferDirty(metabuf);
		}
	}
}

/*
 * The adds of pos[j .. m) (sorted by block, all in the newest stage st),
 * one group of pages at a time, the one write path of every add: from
 * pos[j]'s page on, up to as many pages with something to add as one
 * record takes (BFIDX_WAL_MAX_PAGES for the module's record, three and
 * the metapage for generic WAL).  The pages are locked in block order, as
 * every writer locks them, and the metapage after them only if a page
 * must borrow from the pool; the adds are worked out on copies of their
 * blocks (page_changes), then applied and logged at once
 * (commit_changes).  What a page cannot take (the stage is full) goes to
 * h[*left ..].  The pages of the adds a few on are prefetched as each
 * page is read; *prefetched is how far.  Returns where the next group
 * starts.
 */
static int
add_group(Relation index, const BfIdxMeta *meta, uint32 st, BfIdxHashPos *pos, int j, int m,
		  int *prefetched, const bool *fresh, uint64 *h, int *left, BfIdxLog log)
{
	const BfIdxStage *s = &meta->stages[st];
	BfIdxPageChange pages[BFIDX_WAL_MAX_PAGES];
	int			first[BFIDX_WAL_MAX_PAGES],
				count[BFIDX_WAL_MAX_PAGES];
	int			maxpages = log == BFIDX_LOG_GENERIC ? MAX_GENERIC_XLOG_PAGES - 1 : BFIDX_WAL_MAX_PAGES;
	int			np = 0,
				nc = 0;
	BfIdxPool	pl = {index, false, InvalidBuffer, 0, false};

	while (j < m && np < maxpages)
	{
		uint64		p = pos[j].block / BFIDX_BLOCKS_PER_PAGE;
		int			e = j + 1,
					i;
		bool		split;
		Buffer		buf;
		Page		page;

		while (e < m && e - j < BFIDX_WAL_MAX_ADDS && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p)
			e++;
		/* the rest of a page's adds go in the next group, not this one */
		split = e < m && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p;
		if (*prefetched < Min(m, e + BFIDX_PREFETCH_AHEAD))
		{
			bfidx_prefetch_positions(index, s, pos, Max(*prefetched, j),
									 Min(m, e + BFIDX_PREFETCH_AHEAD), true);
			*prefetched = Min(m, e + BFIDX_PREFETCH_AHEAD);
		}
		CHECK_FOR_INTERRUPTS();
		buf = bfidx_read_page(index, (BlockNumber) (s->first_block + p));
		/*
		 * a batch of elements already in: nothing to write (not asked when
		 * the page's first element is known to be absent)
		 */
		if (fresh != NULL && fresh[pos[j].idx])
			i = j;
		else
		{
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			for (i = j; i < e; i++)
				if (!bfidx_page_contains(page, s, pos[i].block, pos[i].h))
					break;
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		if (i == e)
			ReleaseBuffer(buf);
		else
		{
			pages[np].buf = buf;
			first[np] = j;
			count[np] = e - j;
			np++;
		}
		j = e;
		if (split)
			break;
	}
	if (np == 0)
		return j;

	for (int k = 0; k < np; k++)
		LockBuffer(pages[k].buf, BUFFER_LOCK_EXCLUSIVE);
	for (int k = 0; k < np; k++)
	{
		BfIdxPageChange *c = &pages[k];
		int			end = first[k] + count[k],
					i;

		c->adds = palloc((Size) count[k] * BFIDX_WAL_ADD_BYTES);
		i = page_changes(meta, st, BufferGetPage(c->buf),
						 pos[first[k]].block / BFIDX_BLOCKS_PER_PAGE, pos, first[k], end, c, &pl);
		for (; i < end; i++)
			h[(*left)++] = pos[i].h;
	}

	/* the pages with adds are committed; the others only released */
	for (int k = 0; k < np; k++)
	{
		if (pages[k].nadds > 0)
			pages[nc++] = pages[k];
		else
		{
			UnlockReleaseBuffer(pages[k].buf);
			pfree(pages[k].adds);
		}
	}
	if (nc > 0)
		commit_changes(index, meta, st, pages, nc, &pl, log);
	for (int k = 0; k < nc; k++)
	{
		UnlockReleaseBuffer(pages[k].buf);
		pfree(pages[k].adds);
	}
	if (BufferIsValid(pl.metabuf))
		UnlockReleaseBuffer(pl.metabuf);
	return j;
}

/*
 * Whether stage st takes all of pos[0 .. m) (sorted by block): the adds
 * worked out as add_group works them out, under share locks, borrowing
 * from meta's copy of the pool (read under the fixed-size index's lock),
 * nothing written.
 */
static bool
stage_takes_all(Relation index, const BfIdxMeta *meta, uint32 st, const BfIdxHashPos *pos, int m)
{
	const BfIdxStage *s = &meta->stages[st];
	BfIdxPool	pl = {index, true, InvalidBuffer, s->pool, false};

	for (int j = 0; j < m;)
	{
		uint64		p = pos[j].block / BFIDX_BLOCKS_PER_PAGE;
		BfIdxPageChange c = {0};
		Buffer		buf;
		int			e = j + 1,
					took;

		while (e < m && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p)
			e++;
		CHECK_FOR_INTERRUPTS();
		buf = bfidx_read_page(index, (BlockNumber) (s->first_block + p));
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		took = page_changes(meta, st, BufferGetPage(buf), p, pos, j, e, &c, &pl);
		UnlockReleaseBuffer(buf);
		if (took < e)
			return false;
		j = e;
	}
	return true;
}

/* add_hashes calls made by this backend (a probe site's check, bloomindex_probe.c) */
uint64		bfidx_add_calls = 0;

/*
 * Add h[0 .. n) to the filter: each not already in an older stage goes to
 * the newest one, a page at a time; when a page cannot take one, the stage
 * is full: a new stage is added and what that page could not take goes
 * there.  h is overwritten.
 *
 * An index of fixed size (scalable = false) takes all of a flush or none
 * of it: one that would not fit is refused (54000) before a bit is set,
 * so a failed statement or commit leaves neither adds nor spent rate
 * behind, and the next insert that fits succeeds.  The flushes into such
 * an index take turns (a heavyweight lock on its metapage's block, which
 * nothing else takes), so none spends the pool between another's check
 * and its adds.
 */
static void add_hashes(Relation index, uint64 *h, int n, bool wal, const bool *fresh,
					   uint32 fresh_nstages);

void
bfidx_add_hashes(Relation index, uint64 *h, int n, bool wal)
{
	add_hashes(index, h, n, wal, NULL, 0);
}

/*
 * fresh (or NULL): which of h a probe of this transaction found in none
 * of the fresh_nstages stages the index had then.  If it has as many
 * now, those need not be probed in the older stages again, nor their
 * pages asked under a share lock whether they hold them already, as only
 * the newest stage takes adds.  (A writer that read the metapage before
 * the newest stage was added may still add to the stage before it; a key
 * it adds there and this flush adds to the newest is in twice: a few
 * bits spent, not a wrong answer.)
 */
static void
add_hashes(Relation index, uint64 *h, int n, bool wal, const bool *fresh, uint32 fresh_nstages)
{
	BfIdxHashPos *pos = palloc(sizeof(BfIdxHashPos) * Max(n, 1));
	bool	   *seen = palloc(sizeof(bool) * Max(n, 1));
	bool		fixed_locked = false;
	BfIdxLog	log = !wal ? BFIDX_LOG_NONE :
		RelationNeedsWAL(index) && pgbf_index_own_wal() ? BFIDX_LOG_OWN :
		RelationNeedsWAL(index) ? BFIDX_LOG_GENERIC : BFIDX_LOG_NONE;

	bfidx_add_calls++;

	while (n > 0)
	{
		BfIdxMeta	meta;
		uint32		last;
		const BfIdxStage *s;
		uint64		nblocks;
		int			m = 0,
					j,
					prefetched,
					left;

		bfidx_read_meta(index, &meta);
		if (wal && !meta.scalable && !fixed_locked)
		{
			LockPage(index, BFIDX_META_BLKNO, ExclusiveLock);
			fixed_locked = true;
			bfidx_read_meta(index, &meta);
		}
		last = meta.nstages - 1;
		s = &meta.stages[last];
		nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;

		memset(seen, 0, sizeof(bool) * n);
		if (meta.nstages != fresh_nstages)
			fresh = NULL;
		if (last > 0)
		{
			BfIdxMeta	older = meta;

			older.nstages = last;
			/* the probe passes over what seen marks: the fresh hashes */
			if (fresh != NULL)
				memcpy(seen, fresh, sizeof(bool) * n);
			bfidx_contains_hashes(index, &older, h, n, seen);
			if (fresh != NULL)
				for (int i = 0; i < n; i++)
					if (fresh[i])
						seen[i] = false;
		}
		m = bfidx_stage_positions(pos, h, n, seen, nblocks, true);
		if (fixed_locked && !stage_takes_all(index, &meta, last, pos, m))
			bfidx_report_full(index, &meta);

		/*
		 * A page whose budget and the pool cannot take an element leaves it
		 * and the rest of its own for a new stage; the other pages take
		 * theirs (each within its budget, so the stage's rate holds).
		 */
		left = 0;
		prefetched = 0;
		for (j = 0; j < m;)
			j = add_group(index, &meta, last, pos, j, m, &prefetched, fresh, h, &left, log);
		/* h is the caller's only on the first pass: then fresh applies */
		fresh = NULL;
		if (left == 0)
			break;

		/* the stage is full: the rest go to a new one */
		n = left;
		bfidx_grow(index, meta.nstages, wal);
	}
	if (fixed_locked)
		UnlockPage(index, BFIDX_META_BLKNO, ExclusiveLock);
	pfree(pos);
	pfree(seen);
}

/* ---- adds waiting for the end of the transaction ---- */

/*
 * A row's entries are not added when it is inserted but kept, per index,
 * until its transaction commits (or prepares), a probe in the transaction
 * reads the index, or PENDING_MAX of them wait (more in a big index,
 * below): then they go in a group of pages at a time, a WAL record a
 * group rather than one a row.  They are
 * added, and WAL-logged, before the commit record, so a committed row's
 * bits survive a crash; an aborted transaction's waiting ones are
 * dropped.  What went in earlier stays, as do a rolled-back
 * subtransaction's, a prepared transaction's and those of a commit that
 * fails after this point (40001): false positives, the safe direction
 * (doc/index.md lists them).  Other sessions see the bits from when they
 * go in.
 */
#define PENDING_MAX		(256 * 1024)

/*
 * An index of more pages than PENDING_MAX / PENDING_PER_PAGE lets up to
 * PENDING_PER_PAGE a page wait, at most PENDING_MAX_BIG: a flush of 256k
 * adds into a 1.4 GB index (180,000 pages) visits most of its pages for
 * one or two adds each, and logs each page's special space (64 bytes) and
 * block header for them, about 60 bytes of WAL a key in a bulk load.
 */
#define PENDING_PER_PAGE	8
#define PENDING_MAX_BIG		(2 * 1024 * 1024)

typedef struct PendingAdds
{
	Oid			indexoid;
	int			n;
	int			max;
	int			limit;			/* flush when this many wait */
	uint64	   *h;
	bool	   *fresh;			/* h[i] found absent by a probe (below) */
	int			nfresh;
	/* what probes found absent, in order, at most limit; absent_at: next */
	uint64	   *absent;
	int			nabsent;
	int			maxabsent;
	int			absent_at;
	uint32		absent_nstages;
} PendingAdds;

static List *pending = NIL;		/* of PendingAdds *, in TopTransactionContext */

static void
flush_one(PendingAdds *pa)
{
	Relation	index;

	if (pa->n == 0)
		return;
	/* an index dropped since: nothing to add to */
	index = try_relation_open(pa->indexoid, RowExclusiveLock);
	if (index != NULL)
	{
		if (index->rd_rel->relkind == RELKIND_INDEX && index->rd_indam != NULL &&
			index->rd_indam->aminsert == bfidx_insert)
			add_hashes(index, pa->h, pa->n, true, pa->nfresh > 0 ? pa->fresh : NULL,
					   pa->absent_nstages);
		relation_close(index, RowExclusiveLock);
	}
	pa->n = 0;
	pa->nfresh = 0;
}

/* add what waits for indexoid (every index: InvalidOid) */
void
bfidx_flush_pending(Oid indexoid)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingAdds *pa = (PendingAdds *) lfirst(lc);

		if (!OidIsValid(indexoid) || pa->indexoid == indexoid)
			flush_one(pa);
	}
}

/* the transaction's waiting adds of index, made on first use */
static PendingAdds *
pending_of(Relation index)
{
	Oid			indexoid = RelationGetRelid(index);
	PendingAdds *pa;
	ListCell   *lc;
	MemoryContext old;
	uint64		per_pages;

	foreach(lc, pending)
		if (((PendingAdds *) lfirst(lc))->indexoid == indexoid)
			return (PendingAdds *) lfirst(lc);
	old = MemoryContextSwitchTo(TopTransactionContext);
	per_pages = (uint64) RelationGetNumberOfBlocks(index) * PENDING_PER_PAGE;
	pa = palloc0(sizeof(PendingAdds));
	pa->indexoid = indexoid;
	pa->limit = (int) Max(PENDING_MAX, Min(per_pages, PENDING_MAX_BIG));
	pa->max = 1024;
	pa->h = palloc(sizeof(uint64) * pa->max);
	pa->fresh = palloc(sizeof(bool) * pa->max);
	pending = lappend(pending, pa);
	MemoryContextSwitchTo(old);
	return pa;
}

/*
 * Keep h[i], where !in[i], as found in none of the nstages stages of
 * index by a probe of this transaction (bloom_index_absent's), in order:
 * a crawler then inserts those as a row, in that order, and pending_add
 * marks each such add fresh as it meets them, which is cheaper than a
 * lookup.  Each probe's hashes replace the last one's, so what is kept
 * is one call's, at most the flush limit of them; fresh marks of adds
 * made before a probe of an index grown since are dropped.
 */
void
bfidx_note_absent(Relation index, const uint64 *h, const bool *in, int n, uint32 nstages)
{
	PendingAdds *pa = pending_of(index);

	if (pa->absent_nstages != nstages)
	{
		pa->absent_nstages = nstages;
		if (pa->nfresh > 0)
			memset(pa->fresh, 0, sizeof(bool) * pa->n);
		pa->nfresh = 0;
	}
	pa->nabsent = pa->absent_at = 0;
	for (int i = 0; i < n; i++)
	{
		if (in[i])
			continue;
		if (pa->nabsent == pa->maxabsent)
		{
			if (pa->maxabsent >= pa->limit)
				return;
			pa->maxabsent = pa->maxabsent == 0 ? 1024 : pa->maxabsent * 2;
			pa->absent = pa->absent == NULL ?
				MemoryContextAlloc(TopTransactionContext, sizeof(uint64) * pa->maxabsent) :
				repalloc(pa->absent, sizeof(uint64) * pa->maxabsent);
		}
		pa->absent[pa->nabsent++] = h[i];
	}
}

static void
pending_add(Relation index, const uint64 *h, int n)
{
	PendingAdds *pa = pending_of(index);

	for (int i = 0; i < n; i++)
	{
		if (pa->n == pa->max)
		{
			if (pa->max >= pa->limit)
				flush_one(pa);
			else
			{
				pa->max *= 2;
				pa->h = repalloc(pa->h, sizeof(uint64) * pa->max);
				pa->fresh = repalloc(pa->fresh, sizeof(bool) * pa->max);
			}
		}
		pa->fresh[pa->n] = pa->absent_at < pa->nabsent && pa->absent[pa->absent_at] == h[i];
		if (pa->fresh[pa->n])
		{
			pa->absent_at++;
			pa->nfresh++;
		}
		pa->h[pa->n++] = h[i];
	}
}

void
bfidx_pending_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			bfidx_flush_pending(InvalidOid);
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
			pending = NIL;		/* its memory goes with the transaction's */
			break;
		default:
			break;
	}
}

/* what aminsert keeps between the rows of one statement */
typedef struct BfIdxInsertCache
{
	BfIdxHasher hasher;
	MemoryContext tmpcxt;
} BfIdxInsertCache;

bool
bfidx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
			 Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
			 IndexInfo *indexInfo)
{
	BfIdxInsertCache *c = (BfIdxInsertCache *) indexInfo->ii_AmCache;
	MemoryContext old;
	uint64	   *h;
	int			n;

	if (isnull[0])
		return false;
	if (c == NULL)
	{
		BfIdxMeta	meta;

		bfidx_read_meta(index, &meta);
		c = MemoryContextAllocZero(indexInfo->ii_Context, sizeof(BfIdxInsertCache));
		old = MemoryContextSwitchTo(indexInfo->ii_Context);
		bfidx_hasher_init(&c->hasher, index, meta.seed);
		c->tmpcxt = AllocSetContextCreate(indexInfo->ii_Context, "bloomfilter index insert",
										  ALLOCSET_SMALL_SIZES);
		MemoryContextSwitchTo(old);
		indexInfo->ii_AmCache = c;
	}
	old = MemoryContextSwitchTo(c->tmpcxt);
	h = bfidx_hash_key(&c->hasher, values[0], &n);
	pending_add(index, h, n);
	MemoryContextSwitchTo(old);
	MemoryContextReset(c->tmpcxt);
	return false;
}
