/*
 * bloomindex_pages.c
 *		The bloomfilter index's pages: the metapage and its stages, a
 *		stage's data pages and the buffer each was last found in, the
 *		hashes of an indexed value, and the probe of hashes that readers
 *		and writers share.
 */
#include "postgres.h"

#include <math.h>

#include "access/generic_xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bloomindex_int.h"

/* ---- pages ---- */

/* blocks of stage s on its page p */
uint32
bfidx_page_blocks(const BfIdxStage *s, uint64 p)
{
	uint64		nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;
	uint64		first = p * BFIDX_BLOCKS_PER_PAGE;

	return (uint32) Min((uint64) BFIDX_BLOCKS_PER_PAGE, nblocks - first);
}

/* the special space of stage s's page p before anything is added */
void
bfidx_init_opaque(BfIdxPageOpaque *o, const BfIdxMeta *meta, uint32 stage, uint64 p)
{
	const BfIdxStage *s = &meta->stages[stage];

	memset(o, 0, sizeof(*o));
	o->stage = stage;
	o->nblocks = bfidx_page_blocks(s, p);
	o->budget = s->page_share * o->nblocks;
	o->page_id = bfidx_page_id(meta->format);
}

void
bfidx_init_stage_page(Page page, const BfIdxMeta *meta, uint32 stage, uint64 p)
{
	bfidx_init_data_page(page);
	bfidx_init_opaque(bfidx_opaque_of(page), meta, stage, p);
}

/*
 * A page of the index, pinned.  Each backend remembers, in the index's
 * relcache entry, the buffer each page was last found in, and asks that
 * buffer first (ReadRecentBuffer checks that it still holds the page):
 * a probe or an add then skips the shared buffer mapping's lookup (a hash
 * of the tag and a partition lock), the largest cost of reading one
 * page of a busy index.  The relcache frees the hints with the
 * entry; a stale hint only costs the lookup.
 */
#define BFIDX_HINT_MAX_PAGES	(1 << 20)	/* 4 MB of hints, an 8 GB index */

typedef struct BfIdxBufHints
{
	BlockNumber n;
	uint32		misses;			/* lookups since the hints were made */
	bool		swept;			/* filled from the descriptors once */
	Buffer		buf[FLEXIBLE_ARRAY_MEMBER];
} BfIdxBufHints;

/*
 * A new backend has no hints: its first pass over a large index pays a
 * mapping lookup for nearly every page it reads (a microsecond or two in
 * a backend whose memory is still cold), and a batch of 1,000 over an
 * index of 1e9 keys reads 1,000 pages.  After enough lookups it reads
 * every buffer's tag instead, once, about 10 ns a buffer, and takes the
 * index's pages from them.  It sweeps after 1/256 of the buffers' worth
 * of lookups (at least 1,024), about what the sweep costs, so a backend
 * that reads a few pages never pays for it and one that reads many pays
 * at most twice what it would have.  The tags are read without their
 * header locks: a torn or changing one only makes a bad hint, which
 * ReadRecentBuffer turns down.
 */
static void
hints_sweep(Relation index, BfIdxBufHints *hints)
{
	uint32		found = 0;

	for (int i = 0; i < NBuffers; i++)
	{
		BufferDesc *d = GetBufferDescriptor(i);
		BufferTag	tag;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!(pgbf_buffer_state(d) & BM_VALID))
			continue;
		tag = d->tag;
		if (pgbf_buftag_in_main_fork(&tag, index) && tag.blockNum < hints->n)
		{
			hints->buf[tag.blockNum] = BufferDescriptorGetBuffer(d);
			found++;
		}
	}
	hints->swept = true;
	elog(DEBUG1, "index \"%s\": %u page hints from %d buffers",
		 RelationGetRelationName(index), found, NBuffers);
}

Buffer
bfidx_read_page(Relation index, BlockNumber blk)
{
	BfIdxBufHints *hints = (BfIdxBufHints *) index->rd_amcache;
	Buffer		buf;

	if (RelationUsesLocalBuffers(index) || blk >= BFIDX_HINT_MAX_PAGES)
		return ReadBuffer(index, blk);
	if (hints != NULL && blk < hints->n && BufferIsValid(hints->buf[blk]) &&
		ReadRecentBuffer(pgbf_rel_locator(index), MAIN_FORKNUM, blk, hints->buf[blk]))
		return hints->buf[blk];
	buf = ReadBuffer(index, blk);
	if (hints == NULL || blk >= hints->n)
	{
		BlockNumber n = Min(Max(Max(blk + 1, RelationGetNumberOfBlocks(index)), 64),
							BFIDX_HINT_MAX_PAGES);
		BfIdxBufHints *grown;

		grown = MemoryContextAllocExtended(index->rd_indexcxt,
										   offsetof(BfIdxBufHints, buf) + sizeof(Buffer) * n,
										   MCXT_ALLOC_ZERO);
		grown->n = n;
		if (hints != NULL)
		{
			grown->misses = hints->misses;
			grown->swept = hints->swept;
			memcpy(grown->buf, hints->buf, sizeof(Buffer) * hints->n);
			pfree(hints);
		}
		index->rd_amcache = grown;
		hints = grown;
	}
	hints->buf[blk] = buf;
	if (!hints->swept && ++hints->misses >= (uint32) Max(NBuffers / 256, 1024))
		hints_sweep(index, hints);
	return buf;
}

/* The metapage, read and checked: a copy in *meta. */
void
bfidx_read_meta(Relation index, BfIdxMeta *meta)
{
	Buffer		buf = bfidx_read_page(index, BFIDX_META_BLKNO);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	memcpy(meta, bfidx_meta_of(page), sizeof(BfIdxMeta));
	UnlockReleaseBuffer(buf);
	if (meta->magic != BFIDX_MAGIC || meta->format < 1 || meta->format > BFIDX_PAGE_FORMAT ||
		meta->nstages < 1 || meta->nstages > BLOOM_MAX_STAGES)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a valid bloomfilter index",
						RelationGetRelationName(index))));
}

/*
 * The metapage's stage count alone: whether a copy of the metapage read
 * before is still whole (stages are only ever added, and a stage's
 * descriptor never changes once written)
 */
uint32
bfidx_meta_nstages(Relation index)
{
	Buffer		buf = bfidx_read_page(index, BFIDX_META_BLKNO);
	uint32		n;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	n = bfidx_meta_of(BufferGetPage(buf))->nstages;
	UnlockReleaseBuffer(buf);
	return n;
}

static void
stage_geometry(const BfIdxMeta *meta, int i, BfIdxStage *s, Relation index)
{
	char		errbuf[BF_ERRLEN];
	BfStatus	st;

	st = bloom_paged_stage(meta->capacity, meta->fpr, meta->scalable != 0, i, &s->geo, errbuf);
	if (st != BF_OK)
		ereport(ERROR,
				(errcode(st == BF_ERR_PARAM ? ERRCODE_INVALID_PARAMETER_VALUE
						 : ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter index \"%s\": %s", RelationGetRelationName(index), errbuf)));
	s->npages = (s->geo.nbits / BLOOM_BLOCK_BITS + BFIDX_BLOCKS_PER_PAGE - 1) / BFIDX_BLOCKS_PER_PAGE;
	s->page_share = (uint64) floor((double) BLOOM_RATE_LIMIT * BFIDX_PAGE_SHARE /
								   (double) (s->geo.nbits / BLOOM_BLOCK_BITS));
	s->pool = BLOOM_RATE_LIMIT - s->page_share * (s->geo.nbits / BLOOM_BLOCK_BITS);
}

/* an add to a full index of fixed size (scalable = false) */
void
bfidx_report_full(Relation index, const BfIdxMeta *meta)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("bloomfilter index \"%s\" is full", RelationGetRelationName(index)),
			 errdetail("It was created with scalable = false and holds as many elements as its capacity, %llu, allows at rate %g.",
					   (unsigned long long) meta->capacity, meta->fpr),
			 errhint("REINDEX it with a larger capacity, or with scalable = true.")));
}

/*
 * Add stage meta->nstages (the caller holds the relation's extension
 * lock): extend the relation by its pages and write its last one.  With
 * wal, the last page and the metapage go in one WAL record; without
 * (during a build, whose pages are logged when it ends), they are only
 * dirtied.  Returns false if someone else added it first.
 */
static bool
add_stage(Relation index, uint32 expect_nstages, bool wal)
{
	Buffer		metabuf,
				lastbuf;
	BfIdxMeta	meta;
	BfIdxStage	s;
	uint32		n;
	BlockNumber first;
	GenericXLogState *state = NULL;
	Page		metapage,
				lastpage;

	bfidx_read_meta(index, &meta);
	if (meta.nstages != expect_nstages)
		return false;
	n = meta.nstages;
	if (!meta.scalable)
		bfidx_report_full(index, &meta);
	if (n >= BLOOM_MAX_STAGES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter index \"%s\" cannot grow past %d stages",
						RelationGetRelationName(index), BLOOM_MAX_STAGES)));
	stage_geometry(&meta, n, &s, index);
	/*
	 * The relation may be longer than its stages: a stage whose extension
	 * reached the file but whose WAL record did not survive a crash left
	 * zero pages behind.  The new stage starts after them.
	 */
	first = RelationGetNumberOfBlocks(index);
	if ((uint64) first < meta.stages[n - 1].first_block + meta.stages[n - 1].npages)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has %u blocks, its stages account for %llu",
						RelationGetRelationName(index), first,
						(unsigned long long) (meta.stages[n - 1].first_block +
											  meta.stages[n - 1].npages))));
	if ((uint64) first + s.npages >= MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter index \"%s\" cannot grow a stage of %llu pages",
						RelationGetRelationName(index), (unsigned long long) s.npages)));
	s.first_block = first;

	lastbuf = pgbf_extend_to(index, MAIN_FORKNUM, (BlockNumber) (first + s.npages));
	metabuf = bfidx_read_page(index, BFIDX_META_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	if (wal)
	{
		state = GenericXLogStart(index);
		lastpage = GenericXLogRegisterBuffer(state, lastbuf, GENERIC_XLOG_FULL_IMAGE);
		metapage = GenericXLogRegisterBuffer(state, metabuf, 0);
	}
	else
	{
		lastpage = BufferGetPage(lastbuf);
		metapage = BufferGetPage(metabuf);
	}
	bfidx_meta_of(metapage)->stages[n] = s;
	bfidx_init_stage_page(lastpage, bfidx_meta_of(metapage), n, s.npages - 1);
	bfidx_meta_of(metapage)->nstages = n + 1;
	if (wal)
		GenericXLogFinish(state);
	else
	{
		MarkBufferDirty(lastbuf);
		MarkBufferDirty(metabuf);
	}
	UnlockReleaseBuffer(lastbuf);
	UnlockReleaseBuffer(metabuf);
	return true;
}

void
bfidx_grow(Relation index, uint32 expect_nstages, bool wal)
{
	LockRelationForExtension(index, ExclusiveLock);
	(void) add_stage(index, expect_nstages, wal);
	UnlockRelationForExtension(index, ExclusiveLock);
}

/* A new index: its metapage and first stage, in fork (main or init). */
void
bfidx_create_filter(Relation index, ForkNumber fork, const BfIdxOptions *opts)
{
	BfIdxMeta	meta = {0};
	BfIdxStage	s;
	Buffer		metabuf,
				lastbuf;

	/* options stored before ALTER INDEX checked them are refused here */
	bfidx_check_options(opts);
	meta.magic = BFIDX_MAGIC;
	meta.format = BFIDX_PAGE_FORMAT;
	meta.seed = BF_DEFAULT_SEED;
	meta.fpr = opts->fpr;
	meta.capacity = (uint64) opts->capacity;
	meta.scalable = opts->scalable ? 1 : 0;
	stage_geometry(&meta, 0, &s, index);
	s.first_block = BFIDX_META_BLKNO + 1;
	if (s.first_block + s.npages >= MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomfilter index of capacity %llu at fpr %g would need %llu pages",
						(unsigned long long) meta.capacity, meta.fpr,
						(unsigned long long) s.npages)));
	meta.stages[0] = s;
	meta.nstages = 1;

	LockRelationForExtension(index, ExclusiveLock);
	lastbuf = pgbf_extend_to(index, fork, (BlockNumber) (s.first_block + s.npages));
	UnlockRelationForExtension(index, ExclusiveLock);
	metabuf = ReadBufferExtended(index, fork, BFIDX_META_BLKNO, RBM_NORMAL, NULL);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);

	START_CRIT_SECTION();
	PageInit(BufferGetPage(metabuf), BLCKSZ, 0);
	memcpy(bfidx_meta_of(BufferGetPage(metabuf)), &meta, sizeof(meta));
	((PageHeader) BufferGetPage(metabuf))->pd_lower =
		(char *) bfidx_meta_of(BufferGetPage(metabuf)) + sizeof(meta) - (char *) BufferGetPage(metabuf);
	bfidx_init_stage_page(BufferGetPage(lastbuf), &meta, 0, s.npages - 1);
	MarkBufferDirty(metabuf);
	MarkBufferDirty(lastbuf);
	/* the init fork is logged here; the main fork when the build ends */
	if (fork == INIT_FORKNUM)
	{
		log_newpage_buffer(metabuf, true);
		log_newpage_buffer(lastbuf, true);
	}
	END_CRIT_SECTION();
	UnlockReleaseBuffer(metabuf);
	UnlockReleaseBuffer(lastbuf);
}

/* ---- elements ---- */

/*
 * Support function 1 of the operator class hashes one element with a
 * seed, as the bloomfilter type hashes it (bloom_hash).  An array column
 * (the operator class's type is an array) has an entry for each non-NULL
 * item.
 */
void
bfidx_hasher_init(BfIdxHasher *hs, Relation index, uint64 seed)
{
	Oid			keytype = index->rd_opcintype[0];

	hs->proc = index_getprocinfo(index, 1, 1);
	hs->kind = hs->proc->fn_addr == bloom_hash_bytes ? (int) PGBF_ELEM_BYTES :
		hs->proc->fn_addr == bloom_hash_int8 ? (int) PGBF_ELEM_INT8 :
		hs->proc->fn_addr == bloom_hash_uuid ? (int) PGBF_ELEM_UUID :
		hs->proc->fn_addr == bloom_hash_identity ? BFIDX_KIND_IDENTITY : -1;
	hs->elemtype = get_element_type(keytype);
	if (OidIsValid(hs->elemtype))
		get_typlenbyvalalign(hs->elemtype, &hs->elmlen, &hs->elmbyval, &hs->elmalign);
	hs->seed = seed;
}

/* hashes of a key (one, or an array's items): palloc'd, count in *n */
uint64 *
bfidx_hash_key(const BfIdxHasher *hs, Datum key, int *n)
{
	uint64	   *h;

	if (!OidIsValid(hs->elemtype))
	{
		h = palloc(sizeof(uint64));
		h[0] = bfidx_hash_one(hs, key);
		*n = 1;
		return h;
	}
	else if (hs->kind >= 0)
	{
		/* the module's hash: the glue's, reading the items in place */
		*n = pgbf_hash_array(DatumGetArrayTypeP(key), hs->seed, &h);
		return h;
	}
	else
	{
		ArrayType  *arr = DatumGetArrayTypeP(key);
		Datum	   *items;
		bool	   *nulls;
		int			count,
					m = 0;

		deconstruct_array(arr, hs->elemtype, hs->elmlen, hs->elmbyval, hs->elmalign,
						  &items, &nulls, &count);
		h = palloc(sizeof(uint64) * Max(count, 1));
		for (int i = 0; i < count; i++)
		{
			if (!nulls[i])
				h[m++] = bfidx_hash_one(hs, items[i]);
			bfidx_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		}
		*n = m;
		return h;
	}
}

/* ---- probing ---- */

/* what bfidx_sort_positions orders by */
static inline uint64
sort_key(const BfIdxHashPos *p, bool by_block)
{
	return by_block ? p->block : p->block / BFIDX_BLOCKS_PER_PAGE;
}

/*
 * Order pos[0 .. n) by page, the order the pages are then visited in,
 * and with by_block by block within a page (an add's block is then next
 * to the others of its block): an LSD radix sort of the key, linear in
 * the batch where a comparison sort is n log n with a call per
 * comparison.  The passes are as few as the largest key needs, of at
 * most 10 bits for a commit's or a probe's batch (a count array of 4 kB)
 * and 13 for a build's, the key's bits shared evenly among them: a probe
 * of an index of up to 1,024 pages a stage sorts in one pass.
 */
void
bfidx_sort_positions(BfIdxHashPos *pos, int n, bool by_block)
{
	BfIdxHashPos *src = pos,
			   *dst;
	uint32	   *count;
	uint64		maxkey = 0;
	const int	maxbits = n < 16384 ? 10 : 13;
	int			keybits,
				passes,
				bits;
	uint32		mask;

	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		maxkey = Max(maxkey, sort_key(&pos[i], by_block));
	if (maxkey == 0)
		return;
	keybits = pg_leftmost_one_pos64(maxkey) + 1;
	passes = (keybits + maxbits - 1) / maxbits;
	bits = (keybits + passes - 1) / passes;
	mask = ((uint32) 1 << bits) - 1;
	dst = palloc_extended(sizeof(BfIdxHashPos) * (Size) n, MCXT_ALLOC_HUGE);
	count = palloc(sizeof(uint32) << bits);
	for (int shift = 0; shift < keybits; shift += bits)
	{
		uint32		sum = 0;
		BfIdxHashPos *t;

		CHECK_FOR_INTERRUPTS();
		memset(count, 0, sizeof(uint32) << bits);
		for (int i = 0; i < n; i++)
			count[(sort_key(&src[i], by_block) >> shift) & mask]++;
		for (uint32 k = 0; k <= mask; k++)
		{
			uint32		c = count[k];

			count[k] = sum;
			sum += c;
		}
		for (int i = 0; i < n; i++)
			dst[count[(sort_key(&src[i], by_block) >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != pos)
	{
		memcpy(pos, src, sizeof(BfIdxHashPos) * (Size) n);
		dst = src;
	}
	pfree(dst);
	pfree(count);
}

/*
 * pos[0 .. m) = the hashes h[i] not skipped (skip[i] false), each with
 * its block among nblocks, sorted by page (and by block, by_block);
 * returns m
 */
int
bfidx_stage_positions(BfIdxHashPos *pos, const uint64 *h, int n, const bool *skip,
					  uint64 nblocks, bool by_block)
{
	int			m = 0;

	for (int i = 0; i < n; i++)
		if (!skip[i])
		{
			pos[m].h = h[i];
			pos[m].block = bloom_block_index(h[i], nblocks);
			pos[m].idx = i;
			m++;
		}
	bfidx_sort_positions(pos, m, by_block);
	return m;
}

/*
 * Prefetch what reading page blk's 64-byte block `slot` touches, from
 * the buffer the page was last found in, without pinning it: the
 * buffer's descriptor (pinning and locking write to it) and the block;
 * for an add also the page's header and special space, which the add
 * reads and rewrites.  In an index larger than the CPU's caches each is
 * a miss of its own, a key's page being seldom the last key's.  A
 * buffer's memory and descriptor are always mapped, so a stale hint
 * only fetches lines for nothing.  always_inline: GCC deletes calls to
 * a function whose only statements are prefetches (CONTRIBUTING.md).
 */
static inline __attribute__((always_inline)) void
prefetch_hinted_page(const BfIdxBufHints *hints, BlockNumber blk, uint64 slot, bool add)
{
	if (hints != NULL && blk < hints->n && hints->buf[blk] > 0)
	{
		const char *page = BufferGetBlock(hints->buf[blk]);

		__builtin_prefetch(GetBufferDescriptor(hints->buf[blk] - 1), 1);
		if (add)
		{
			__builtin_prefetch(page + BFIDX_DATA_OFFSET + slot * BFIDX_BLOCK_BYTES, 1);
			__builtin_prefetch(page, 0);
			__builtin_prefetch(page + BLCKSZ - BFIDX_SPECIAL_SIZE, 1);
		}
		else
			__builtin_prefetch(page + BFIDX_DATA_OFFSET + slot * BFIDX_BLOCK_BYTES, 0);
	}
}

/* prefetch_hinted_page for pos[from .. to) of stage s */
void
bfidx_prefetch_positions(Relation index, const BfIdxStage *s, const BfIdxHashPos *pos,
						 int from, int to, bool add)
{
	const BfIdxBufHints *hints = (const BfIdxBufHints *) index->rd_amcache;

	for (int j = from; j < to; j++)
		prefetch_hinted_page(hints, (BlockNumber) (s->first_block + pos[j].block / BFIDX_BLOCKS_PER_PAGE),
							 pos[j].block % BFIDX_BLOCKS_PER_PAGE, add);
}

/*
 * Whether h is in any stage: bfidx_contains_hashes for one hash, without
 * its sort, each stage's block prefetched before the first is read
 */
static bool
contains_hash(Relation index, const BfIdxMeta *meta, uint64 h)
{
	BfIdxHashPos pos[BLOOM_MAX_STAGES];

	for (uint32 st = 0; st < meta->nstages; st++)
	{
		pos[st].h = h;
		pos[st].block = bloom_block_index(h, meta->stages[st].geo.nbits / BLOOM_BLOCK_BITS);
		pos[st].idx = 0;
		bfidx_prefetch_positions(index, &meta->stages[st], &pos[st], 0, 1, false);
	}
	for (uint32 st = 0; st < meta->nstages; st++)
	{
		const BfIdxStage *s = &meta->stages[st];
		Buffer		buf = bfidx_read_page(index, (BlockNumber) (s->first_block +
																pos[st].block / BFIDX_BLOCKS_PER_PAGE));
		bool		in;

		in = bfidx_page_contains(BufferGetPage(buf), s, pos[st].block, h);
		ReleaseBuffer(buf);
		if (in)
			return true;
	}
	return false;
}

/*
 * out[i] |= whether h[i] is in any stage.  The probes go through each
 * stage's pages in order, each page read once, the block of the probe
 * BFIDX_PREFETCH_AHEAD further on prefetched.
 *
 * A probe holds only a pin on each page, not its content lock: a data
 * page's bits are only ever set (an add ORs its bits into the block, a
 * page's first write finds it zero, redo writes the same bits or more),
 * so a probe racing an add reads each bit either before or after it is
 * set, never one taken away, and a key committed before the probe's
 * snapshot was set before it (the pin and the snapshot are barriers).
 * Racing, a probe may see the bits of an add not yet WAL-logged: a
 * false positive should that add be lost, the direction a probe may err
 * in.  Nothing durable is written on that answer: the adds at commit
 * ask the page again under its lock (add_group), so that an add this
 * backend leaves out is one logged before its own commit.  The lock
 * would be two more atomic operations on the buffer's descriptor a page,
 * as many as the pin's.
 */
void
bfidx_contains_hashes(Relation index, const BfIdxMeta *meta, const uint64 *h, int n, bool *out)
{
	BfIdxHashPos *pos;

	if (n == 1)
	{
		if (!out[0] && contains_hash(index, meta, h[0]))
			out[0] = true;
		return;
	}
	pos = palloc(sizeof(BfIdxHashPos) * Max(n, 1));

	for (uint32 st = 0; st < meta->nstages; st++)
	{
		const BfIdxStage *s = &meta->stages[st];
		uint64		nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;
		int			m;
		Buffer		buf = InvalidBuffer;
		BlockNumber cur = InvalidBlockNumber;
		uint64		pages = 0;
		int			checked = 0;

		m = bfidx_stage_positions(pos, h, n, out, nblocks, false);
		bfidx_prefetch_positions(index, s, pos, 0, Min(m, BFIDX_PREFETCH_AHEAD), false);
		for (int j = 0; j < m; j++)
		{
			BlockNumber blk = (BlockNumber) (s->first_block + pos[j].block / BFIDX_BLOCKS_PER_PAGE);

			/* the hints may have grown (and moved) in a read: fetched each time */
			if (j + BFIDX_PREFETCH_AHEAD < m)
				bfidx_prefetch_positions(index, s, pos, j + BFIDX_PREFETCH_AHEAD,
										 j + BFIDX_PREFETCH_AHEAD + 1, false);

			if (blk != cur)
			{
				if (BufferIsValid(buf))
					ReleaseBuffer(buf);
				/* each chunk of probes or pages */
				if (++pages % BFIDX_PAGES_PER_CHECK == 0 || j - checked >= (int) BF_INTERRUPT_CHUNK)
				{
					CHECK_FOR_INTERRUPTS();
					checked = j;
				}
				buf = bfidx_read_page(index, blk);
				cur = blk;
			}
			if (bfidx_page_contains(BufferGetPage(buf), s, pos[j].block, pos[j].h))
				out[pos[j].idx] = true;
		}
		if (BufferIsValid(buf))
			ReleaseBuffer(buf);
	}
	pfree(pos);
}
