/*
 * bloomindex.c
 *		The bloomfilter index access method (see bloomindex.h for the
 *		pages): build, insert, vacuum, and the probe, info and snapshot
 *		functions.
 */
#include "postgres.h"

#include <math.h>

#include "access/amapi.h"
#include "access/amvalidate.h"
#include "access/generic_xlog.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/reloptions.h"
#include "access/relation.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"
#include "utils/json.h"
#include "utils/uuid.h"

#include "bloomindex.h"
#include "pg_common.h"

/* ---- options ---- */

typedef struct BfIdxOptions
{
	int32		vl_len_;
	double		capacity;
	double		fpr;
	bool		scalable;
} BfIdxOptions;

static relopt_kind bfidx_relopt_kind;

static void pending_xact_callback(XactEvent event, void *arg);

void
pgbf_index_init(void)
{
	RegisterXactCallback(pending_xact_callback, NULL);
	bfidx_relopt_kind = add_reloption_kind();
	add_real_reloption(bfidx_relopt_kind, "capacity",
					   "Elements the first stage is sized for",
					   1000000, 1, 1e15, AccessExclusiveLock);
	add_real_reloption(bfidx_relopt_kind, "fpr",
					   "False-positive rate the filter never passes",
					   0.01, 0, 1, AccessExclusiveLock);
	add_bool_reloption(bfidx_relopt_kind, "scalable",
					   "Add a stage when full (otherwise an insert into a full filter fails)",
					   true, AccessExclusiveLock);
}

/*
 * What CREATE INDEX and ALTER INDEX ... SET refuse alike: options the
 * index could not be built with.  Stored, they would make every later
 * rebuild (REINDEX, TRUNCATE, VACUUM FULL, a restore of a dump) fail.
 */
static void
check_options(const BfIdxOptions *opts)
{
	char		errbuf[BF_ERRLEN];
	BloomStage	geo;
	BfStatus	st;
	uint64		npages;

	if (bf_check_params(opts->capacity > (double) INT64_MAX ? -1 : (int64) opts->capacity,
						opts->fpr, errbuf) != BF_OK || opts->capacity != floor(opts->capacity))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid bloomfilter index options (capacity %g, fpr %g)",
						opts->capacity, opts->fpr),
				 errdetail("%s", opts->capacity != floor(opts->capacity) ?
						   "capacity must be a whole number" : errbuf)));
	st = bloom_paged_stage((uint64) opts->capacity, opts->fpr, opts->scalable, 0, &geo, errbuf);
	if (st != BF_OK)
		ereport(ERROR,
				(errcode(st == BF_ERR_PARAM ? ERRCODE_INVALID_PARAMETER_VALUE
						 : ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("invalid bloomfilter index options (capacity %g, fpr %g)",
						opts->capacity, opts->fpr),
				 errdetail("%s", errbuf)));
	npages = (geo.nbits / BLOOM_BLOCK_BITS + BFIDX_BLOCKS_PER_PAGE - 1) / BFIDX_BLOCKS_PER_PAGE;
	if (BFIDX_META_BLKNO + 1 + npages >= MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomfilter index of capacity %llu at fpr %g would need %llu pages",
						(unsigned long long) opts->capacity, opts->fpr,
						(unsigned long long) npages)));
}

static bytea *
bfidx_options(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"capacity", RELOPT_TYPE_REAL, offsetof(BfIdxOptions, capacity)},
		{"fpr", RELOPT_TYPE_REAL, offsetof(BfIdxOptions, fpr)},
		{"scalable", RELOPT_TYPE_BOOL, offsetof(BfIdxOptions, scalable)},
	};
	BfIdxOptions *opts;

	opts = (BfIdxOptions *) build_reloptions(reloptions, validate, bfidx_relopt_kind,
											 sizeof(BfIdxOptions), tab, lengthof(tab));
	if (validate && opts != NULL)
		check_options(opts);
	return (bytea *) opts;
}

/* ---- pages ---- */

/* blocks of stage s on its page p */
static uint32
page_blocks(const BfIdxStage *s, uint64 p)
{
	uint64		nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;
	uint64		first = p * BFIDX_BLOCKS_PER_PAGE;

	return (uint32) Min((uint64) BFIDX_BLOCKS_PER_PAGE, nblocks - first);
}

/* the special space of stage s's page p before anything is added */
static void
init_opaque(BfIdxPageOpaque *o, const BfIdxMeta *meta, uint32 stage, uint64 p)
{
	const BfIdxStage *s = &meta->stages[stage];

	memset(o, 0, sizeof(*o));
	o->stage = stage;
	o->nblocks = page_blocks(s, p);
	o->budget = s->page_share * o->nblocks;
	o->page_id = bfidx_page_id(meta->format);
}

static void
init_data_page(Page page, const BfIdxMeta *meta, uint32 stage, uint64 p)
{
	bfidx_init_data_page(page);
	init_opaque(opaque_of(page), meta, stage, p);
}

/*
 * A page of the index, pinned.  Each backend remembers, in the index's
 * relcache entry, the buffer each page was last found in, and asks that
 * buffer first (ReadRecentBuffer checks that it still holds the page):
 * a probe or an add then skips the shared buffer mapping's lookup, which
 * was a tenth of a batch's time.  The relcache frees the hints with the
 * entry; a stale hint only costs the lookup.
 */
#define BFIDX_HINT_MAX_PAGES	(1 << 20)	/* 4 MB of hints, an 8 GB index */

typedef struct BfIdxBufHints
{
	BlockNumber n;
	Buffer		buf[FLEXIBLE_ARRAY_MEMBER];
} BfIdxBufHints;

static Buffer
read_page(Relation index, BlockNumber blk)
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
			memcpy(grown->buf, hints->buf, sizeof(Buffer) * hints->n);
			pfree(hints);
		}
		index->rd_amcache = grown;
		hints = grown;
	}
	hints->buf[blk] = buf;
	return buf;
}

/* The metapage, read and checked: a copy in *meta. */
static void
read_meta(Relation index, BfIdxMeta *meta)
{
	Buffer		buf = read_page(index, BFIDX_META_BLKNO);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	memcpy(meta, meta_of(page), sizeof(BfIdxMeta));
	UnlockReleaseBuffer(buf);
	if (meta->magic != BFIDX_MAGIC || meta->format < 1 || meta->format > BFIDX_PAGE_FORMAT ||
		meta->nstages < 1 || meta->nstages > BLOOM_MAX_STAGES)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a valid bloomfilter index",
						RelationGetRelationName(index))));
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
static void
report_full(Relation index, const BfIdxMeta *meta)
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

	read_meta(index, &meta);
	if (meta.nstages != expect_nstages)
		return false;
	n = meta.nstages;
	if (!meta.scalable)
		report_full(index, &meta);
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
	metabuf = read_page(index, BFIDX_META_BLKNO);
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
	meta_of(metapage)->stages[n] = s;
	init_data_page(lastpage, meta_of(metapage), n, s.npages - 1);
	meta_of(metapage)->nstages = n + 1;
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

static void
grow(Relation index, uint32 expect_nstages, bool wal)
{
	LockRelationForExtension(index, ExclusiveLock);
	(void) add_stage(index, expect_nstages, wal);
	UnlockRelationForExtension(index, ExclusiveLock);
}

/* A new index: its metapage and first stage, in fork (main or init). */
static void
create_filter(Relation index, ForkNumber fork, const BfIdxOptions *opts)
{
	BfIdxMeta	meta = {0};
	BfIdxStage	s;
	Buffer		metabuf,
				lastbuf;

	/* options stored before ALTER INDEX checked them are refused here */
	check_options(opts);
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
	memcpy(meta_of(BufferGetPage(metabuf)), &meta, sizeof(meta));
	((PageHeader) BufferGetPage(metabuf))->pd_lower =
		(char *) meta_of(BufferGetPage(metabuf)) + sizeof(meta) - (char *) BufferGetPage(metabuf);
	init_data_page(BufferGetPage(lastbuf), &meta, 0, s.npages - 1);
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

static void
get_options(Relation index, BfIdxOptions *opts)
{
	BfIdxOptions *o = (BfIdxOptions *) index->rd_options;

	if (o != NULL)
		*opts = *o;
	else
	{
		opts->capacity = 1000000;
		opts->fpr = 0.01;
		opts->scalable = true;
	}
}

/* ---- elements ---- */

/*
 * Support function 1 of the operator class hashes one element with a
 * seed, as the bloomfilter type hashes it (bloom_hash).  An array column
 * (the operator class's type is an array) has an entry for each non-NULL
 * item.
 */
/* the opclasses' support functions (below) */
extern Datum bloom_hash_bytes(PG_FUNCTION_ARGS);
extern Datum bloom_hash_int8(PG_FUNCTION_ARGS);
extern Datum bloom_hash_uuid(PG_FUNCTION_ARGS);

typedef struct BfIdxHasher
{
	FmgrInfo   *proc;
	int			kind;			/* the module's own support function: its
								 * PgbfElem, hashed without the call; or -1 */
	Oid			elemtype;		/* InvalidOid unless the column is an array */
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	uint64		seed;
} BfIdxHasher;

static void
hasher_init(BfIdxHasher *hs, Relation index, uint64 seed)
{
	Oid			keytype = index->rd_opcintype[0];

	hs->proc = index_getprocinfo(index, 1, 1);
	hs->kind = hs->proc->fn_addr == bloom_hash_bytes ? (int) PGBF_ELEM_BYTES :
		hs->proc->fn_addr == bloom_hash_int8 ? (int) PGBF_ELEM_INT8 :
		hs->proc->fn_addr == bloom_hash_uuid ? (int) PGBF_ELEM_UUID : -1;
	hs->elemtype = get_element_type(keytype);
	if (OidIsValid(hs->elemtype))
		get_typlenbyvalalign(hs->elemtype, &hs->elmlen, &hs->elmbyval, &hs->elmalign);
	hs->seed = seed;
}

static inline uint64
hash_one(const BfIdxHasher *hs, Datum d)
{
	if (hs->kind >= 0)
		return pgbf_hash_datum(d, (PgbfElem) hs->kind, hs->seed);
	return (uint64) DatumGetInt64(FunctionCall2Coll(hs->proc, InvalidOid, d,
													 Int64GetDatum((int64) hs->seed)));
}

/* hashes of a key (one, or an array's items): palloc'd, count in *n */
static uint64 *
hash_key(const BfIdxHasher *hs, Datum key, int *n)
{
	uint64	   *h;

	if (!OidIsValid(hs->elemtype))
	{
		h = palloc(sizeof(uint64));
		h[0] = hash_one(hs, key);
		*n = 1;
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
				h[m++] = hash_one(hs, items[i]);
			if ((i & 4095) == 4095)
				CHECK_FOR_INTERRUPTS();
		}
		*n = m;
		return h;
	}
}

/* ---- probing ---- */

typedef struct HashPos
{
	uint64		h;
	uint64		block;			/* of the stage being worked on */
	int			idx;			/* in the caller's array */
} HashPos;

/*
 * Order pos[0 .. n) by block (so by page, the order the pages are then
 * visited in, and an add's block is next to the others of its block): an
 * LSD radix sort of the block number, 8 bits a pass for a commit's or a
 * probe's batch, 13 for a build's (qsort took a fifth of a CREATE INDEX's
 * time, and of a test-and-add batch's sorting).  Only the passes that
 * the largest block number needs are made.
 */
static void
sort_by_page(HashPos *pos, int n)
{
	HashPos    *src = pos,
			   *dst;
	uint32	   *count;
	uint64		maxblock = 0;
	const int	bits = n < 16384 ? 8 : 13;
	const uint32 mask = (1 << bits) - 1;

	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		maxblock = Max(maxblock, pos[i].block);
	dst = palloc_extended(sizeof(HashPos) * (Size) n, MCXT_ALLOC_HUGE);
	count = palloc(sizeof(uint32) << bits);
	for (int shift = 0; shift == 0 || (shift < 64 && (maxblock >> shift) != 0);
		 shift += bits)
	{
		uint32		sum = 0;
		HashPos    *t;

		CHECK_FOR_INTERRUPTS();
		memset(count, 0, sizeof(uint32) << bits);
		for (int i = 0; i < n; i++)
			count[(src[i].block >> shift) & mask]++;
		for (uint32 k = 0; k <= mask; k++)
		{
			uint32		c = count[k];

			count[k] = sum;
			sum += c;
		}
		for (int i = 0; i < n; i++)
			dst[count[(src[i].block >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != pos)
	{
		memcpy(pos, src, sizeof(HashPos) * (Size) n);
		dst = src;
	}
	pfree(dst);
	pfree(count);
}

/* is h in stage s? (the page locked, pinned by the caller) */
static inline bool
page_contains(Page page, const BfIdxStage *s, uint64 block, uint64 h)
{
	if (PageIsNew(page))
		return false;
	return bloom_block_contains(block_of(page, block % BFIDX_BLOCKS_PER_PAGE), h,
								s->geo.nhashes);
}

/*
 * out[i] |= whether h[i] is in any stage.  The probes go through each
 * stage's pages in order, each page read once.
 */
static void
contains_hashes(Relation index, const BfIdxMeta *meta, const uint64 *h, int n, bool *out)
{
	HashPos    *pos = palloc(sizeof(HashPos) * Max(n, 1));

	for (uint32 st = 0; st < meta->nstages; st++)
	{
		const BfIdxStage *s = &meta->stages[st];
		uint64		nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;
		int			m = 0;
		Buffer		buf = InvalidBuffer;
		BlockNumber cur = InvalidBlockNumber;

		for (int i = 0; i < n; i++)
			if (!out[i])
			{
				pos[m].h = h[i];
				pos[m].block = bloom_block_index(h[i], nblocks);
				pos[m].idx = i;
				m++;
			}
		sort_by_page(pos, m);
		for (int j = 0; j < m; j++)
		{
			BlockNumber blk = (BlockNumber) (s->first_block + pos[j].block / BFIDX_BLOCKS_PER_PAGE);

			if (blk != cur)
			{
				if (BufferIsValid(buf))
					UnlockReleaseBuffer(buf);
				if ((j & 1023) == 1023)
					CHECK_FOR_INTERRUPTS();
				buf = read_page(index, blk);
				LockBuffer(buf, BUFFER_LOCK_SHARE);
				cur = blk;
			}
			if (page_contains(BufferGetPage(buf), s, pos[j].block, pos[j].h))
				out[pos[j].idx] = true;
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}
	pfree(pos);
}

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

/*
 * Add pos[0 .. n) (all on one page of stage st) to that page.  Returns how
 * many were taken: fewer than n when the next one would take the page
 * past its budget and the stage's pool cannot cover it (the stage is
 * full).  wal: log the change (not during a build).
 */
static int
page_add(Relation index, const BfIdxMeta *meta, uint32 st, HashPos *pos, int n, bool wal)
{
	const BfIdxStage *s = &meta->stages[st];
	uint64		p = pos[0].block / BFIDX_BLOCKS_PER_PAGE;
	BlockNumber blk = (BlockNumber) (s->first_block + p);
	Buffer		buf = read_page(index, blk);
	Buffer		metabuf = InvalidBuffer;
	Page		metapage = NULL;
	GenericXLogState *state = NULL;
	Page		page;
	BfIdxPageOpaque *o;
	bool		isnew;
	bool		changed = false;
	int			i;

	/* a batch of elements already in: nothing to write */
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	for (i = 0; i < n; i++)
		if (!page_contains(page, s, pos[i].block, pos[i].h))
			break;
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (i == n)
	{
		ReleaseBuffer(buf);
		return n;
	}

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	isnew = PageIsNew(BufferGetPage(buf));
	if (wal)
	{
		state = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(state, buf, isnew ? GENERIC_XLOG_FULL_IMAGE : 0);
	}
	else
		page = BufferGetPage(buf);
	if (isnew)
	{
		init_data_page(page, meta, st, p);
		changed = true;
	}
	o = opaque_of(page);
	if (o->stage != st || o->page_id != bfidx_page_id(meta->format))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" block %u is not a page of stage %u",
						RelationGetRelationName(index), blk, st)));

	for (i = 0; i < n; i++)
	{
		uint64	   *w = block_of(page, pos[i].block % BFIDX_BLOCKS_PER_PAGE);
		uint64		delta;
		int			newbits = bloom_block_preview(w, pos[i].h, &s->geo, &delta);

		if (newbits == 0)
			continue;
		if (o->units + delta > o->budget)
		{
			BfIdxStage *ms;
			uint64		need = o->units + delta - o->budget,
						take;

			if (!BufferIsValid(metabuf))
			{
				metabuf = read_page(index, BFIDX_META_BLKNO);
				LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
				metapage = wal ? GenericXLogRegisterBuffer(state, metabuf, 0)
					: BufferGetPage(metabuf);
			}
			ms = &meta_of(metapage)->stages[st];
			if (ms->pool < need)
				break;
			take = borrow_amount(ms, o, need, ms->pool);
			ms->pool -= take;
			o->budget += take;
		}
		bloom_block_set(w, pos[i].h, s->geo.nhashes);
		o->units += delta;
		o->bits_set += newbits;
		changed = true;
	}

	if (wal)
	{
		if (changed)
			GenericXLogFinish(state);
		else
			GenericXLogAbort(state);
	}
	else if (changed)
	{
		MarkBufferDirty(buf);
		if (BufferIsValid(metabuf))
			MarkBufferDirty(metabuf);
	}
	if (BufferIsValid(metabuf))
		UnlockReleaseBuffer(metabuf);
	UnlockReleaseBuffer(buf);
	return i;
}

/*
 * The adds of pos[j .. m) (sorted by block, all in the newest stage st),
 * logged by the module's own WAL records: from pos[j]'s page on, up to
 * BFIDX_WAL_MAX_PAGES pages with something to add go in one record.  The
 * pages are locked in block order, as every writer locks them, and the
 * metapage after them, only if a page must borrow from the pool; the adds
 * are worked out on copies of their blocks, then applied and logged in
 * one critical section.  What a page cannot take (the stage is full)
 * goes to h[*left ..].  Returns where the next group starts.
 */
static int
group_add(Relation index, const BfIdxMeta *meta, uint32 st, HashPos *pos, int j, int m,
		  uint64 *h, int *left)
{
	const BfIdxStage *s = &meta->stages[st];
	BfIdxPageChange pages[BFIDX_WAL_MAX_PAGES];
	int			first[BFIDX_WAL_MAX_PAGES],
				count[BFIDX_WAL_MAX_PAGES];
	int			np = 0,
				nc = 0;
	Buffer		metabuf = InvalidBuffer;
	uint64		pool = 0;
	bool		borrowed = false;

	while (j < m && np < BFIDX_WAL_MAX_PAGES)
	{
		uint64		p = pos[j].block / BFIDX_BLOCKS_PER_PAGE;
		int			e = j + 1,
					i;
		bool		split;
		Buffer		buf;
		Page		page;

		while (e < m && e - j < BFIDX_WAL_MAX_ADDS && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p)
			e++;
		/* the rest of a page's adds go in the next record, not this one */
		split = e < m && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p;
		CHECK_FOR_INTERRUPTS();
		buf = read_page(index, (BlockNumber) (s->first_block + p));
		/* a batch of elements already in: nothing to write */
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		for (i = j; i < e; i++)
			if (!page_contains(page, s, pos[i].block, pos[i].h))
				break;
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
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
		Page		page = BufferGetPage(c->buf);
		BfIdxPageOpaque *o = &c->opaque;
		uint64		cur[BFIDX_BLOCK_BYTES / sizeof(uint64)];
		int64		curslot = -1;
		int			i,
					end = first[k] + count[k];

		c->init = PageIsNew(page);
		if (c->init)
			init_opaque(o, meta, st, pos[first[k]].block / BFIDX_BLOCKS_PER_PAGE);
		else
		{
			*o = *opaque_of(page);
			if (o->stage != st || o->page_id != bfidx_page_id(meta->format))
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("index \"%s\" block %u is not a page of stage %u",
								RelationGetRelationName(index), BufferGetBlockNumber(c->buf), st)));
		}
		c->adds = palloc((Size) count[k] * BFIDX_WAL_ADD_BYTES);
		c->nadds = 0;
		for (i = first[k]; i < end; i++)
		{
			uint16		slot = (uint16) (pos[i].block % BFIDX_BLOCKS_PER_PAGE);
			uint64		delta;
			int			newbits;

			if (slot != curslot)
			{
				if (c->init)
					memset(cur, 0, sizeof(cur));
				else
					memcpy(cur, block_of(page, slot), sizeof(cur));
				curslot = slot;
			}
			newbits = bloom_block_preview(cur, pos[i].h, &s->geo, &delta);
			if (newbits == 0)
				continue;
			if (o->units + delta > o->budget)
			{
				uint64		need = o->units + delta - o->budget,
							take;

				if (!BufferIsValid(metabuf))
				{
					metabuf = read_page(index, BFIDX_META_BLKNO);
					LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
					pool = meta_of(BufferGetPage(metabuf))->stages[st].pool;
				}
				if (pool < need)
					break;
				take = borrow_amount(s, o, need, pool);
				pool -= take;
				o->budget += take;
				borrowed = true;
			}
			bloom_block_set(cur, pos[i].h, s->geo.nhashes);
			o->units += delta;
			o->bits_set += newbits;
			memcpy(c->adds + (Size) c->nadds * BFIDX_WAL_ADD_BYTES, &slot, sizeof(slot));
			memcpy(c->adds + (Size) c->nadds * BFIDX_WAL_ADD_BYTES + sizeof(slot),
				   &pos[i].h, sizeof(uint64));
			c->nadds++;
		}
		for (; i < end; i++)
			h[(*left)++] = pos[i].h;
	}

	/* the pages with adds, in the record; the others only released */
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
		bfidx_log_adds(s->geo.nhashes, pages, nc, borrowed ? metabuf : InvalidBuffer, st, pool);
	for (int k = 0; k < nc; k++)
	{
		UnlockReleaseBuffer(pages[k].buf);
		pfree(pages[k].adds);
	}
	if (BufferIsValid(metabuf))
		UnlockReleaseBuffer(metabuf);
	return j;
}

/*
 * Whether stage st takes all of pos[0 .. m) (sorted by block): the adds
 * worked out on copies of their blocks and special spaces, borrowing from
 * the stage's pool (meta's copy, read under the fixed-size index's lock)
 * as page_add and group_add then do, nothing written.
 */
static bool
stage_takes_all(Relation index, const BfIdxMeta *meta, uint32 st, const HashPos *pos, int m)
{
	const BfIdxStage *s = &meta->stages[st];
	uint64		pool = s->pool;

	for (int j = 0; j < m;)
	{
		uint64		p = pos[j].block / BFIDX_BLOCKS_PER_PAGE;
		uint64		cur[BFIDX_BLOCK_BYTES / sizeof(uint64)];
		int64		curslot = -1;
		BfIdxPageOpaque o;
		Buffer		buf;
		Page		page;
		int			e = j + 1;
		bool		isnew;

		while (e < m && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p)
			e++;
		CHECK_FOR_INTERRUPTS();
		buf = read_page(index, (BlockNumber) (s->first_block + p));
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		isnew = PageIsNew(page);
		if (isnew)
			init_opaque(&o, meta, st, p);
		else
			o = *opaque_of(page);
		for (int i = j; i < e; i++)
		{
			uint16		slot = (uint16) (pos[i].block % BFIDX_BLOCKS_PER_PAGE);
			uint64		delta;

			if (slot != curslot)
			{
				if (isnew)
					memset(cur, 0, sizeof(cur));
				else
					memcpy(cur, block_of(page, slot), sizeof(cur));
				curslot = slot;
			}
			if (bloom_block_preview(cur, pos[i].h, &s->geo, &delta) == 0)
				continue;
			if (o.units + delta > o.budget)
			{
				uint64		need = o.units + delta - o.budget,
							take;

				if (pool < need)
				{
					UnlockReleaseBuffer(buf);
					return false;
				}
				take = borrow_amount(s, &o, need, pool);
				pool -= take;
				o.budget += take;
			}
			bloom_block_set(cur, pos[i].h, s->geo.nhashes);
			o.units += delta;
		}
		UnlockReleaseBuffer(buf);
		j = e;
	}
	return true;
}

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
static void
add_hashes(Relation index, uint64 *h, int n, bool wal)
{
	HashPos    *pos = palloc(sizeof(HashPos) * Max(n, 1));
	bool	   *seen = palloc(sizeof(bool) * Max(n, 1));
	bool		fixed_locked = false;

	while (n > 0)
	{
		BfIdxMeta	meta;
		uint32		last;
		const BfIdxStage *s;
		uint64		nblocks;
		int			m = 0,
					j,
					left;

		read_meta(index, &meta);
		if (wal && !meta.scalable && !fixed_locked)
		{
			LockPage(index, BFIDX_META_BLKNO, ExclusiveLock);
			fixed_locked = true;
			read_meta(index, &meta);
		}
		last = meta.nstages - 1;
		s = &meta.stages[last];
		nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;

		memset(seen, 0, sizeof(bool) * n);
		if (last > 0)
		{
			BfIdxMeta	older = meta;

			older.nstages = last;
			contains_hashes(index, &older, h, n, seen);
		}
		for (int i = 0; i < n; i++)
			if (!seen[i])
			{
				pos[m].h = h[i];
				pos[m].block = bloom_block_index(h[i], nblocks);
				pos[m].idx = i;
				m++;
			}
		sort_by_page(pos, m);
		if (fixed_locked && !stage_takes_all(index, &meta, last, pos, m))
			report_full(index, &meta);

		/*
		 * A page whose budget and the pool cannot take an element leaves it
		 * and the rest of its own for a new stage; the other pages take
		 * theirs (each within its budget, so the stage's rate holds).
		 */
		left = 0;
		if (wal && RelationNeedsWAL(index) && pgbf_index_own_wal())
		{
			for (j = 0; j < m;)
				j = group_add(index, &meta, last, pos, j, m, h, &left);
			m = 0;
		}
		for (j = 0; j < m;)
		{
			uint64		p = pos[j].block / BFIDX_BLOCKS_PER_PAGE;
			int			e = j + 1,
						took;

			while (e < m && pos[e].block / BFIDX_BLOCKS_PER_PAGE == p)
				e++;
			CHECK_FOR_INTERRUPTS();
			took = page_add(index, &meta, last, pos + j, e - j, wal);
			for (int i = j + took; i < e; i++)
				h[left++] = pos[i].h;
			j = e;
		}
		if (left == 0)
			break;

		/* the stage is full: the rest go to a new one */
		n = left;
		grow(index, meta.nstages, wal);
	}
	if (fixed_locked)
		UnlockPage(index, BFIDX_META_BLKNO, ExclusiveLock);
	pfree(pos);
	pfree(seen);
}

static bool bfidx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
						 Relation heapRel, IndexUniqueCheck checkUnique,
						 bool indexUnchanged, IndexInfo *indexInfo);

/* ---- adds waiting for the end of the transaction ---- */

/*
 * A row's entries are not added when it is inserted but kept, per index,
 * until its transaction commits (or prepares), a probe in the transaction
 * reads the index, or PENDING_MAX of them wait: then they go in a page at
 * a time, one WAL record for each page changed rather than one for each
 * row.  They are added, and WAL-logged, before the commit record, so a
 * committed row's bits survive a crash; an aborted transaction's are
 * dropped (a rolled-back subtransaction's still go in: false positives,
 * the safe direction).  Other sessions see the bits only once the
 * transaction commits.
 */
#define PENDING_MAX		(256 * 1024)

typedef struct PendingAdds
{
	Oid			indexoid;
	int			n;
	int			max;
	uint64	   *h;
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
			add_hashes(index, pa->h, pa->n, true);
		relation_close(index, RowExclusiveLock);
	}
	pa->n = 0;
}

/* add what waits for indexoid (every index: InvalidOid) */
static void
flush_pending(Oid indexoid)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingAdds *pa = (PendingAdds *) lfirst(lc);

		if (!OidIsValid(indexoid) || pa->indexoid == indexoid)
			flush_one(pa);
	}
}

static void
pending_add(Oid indexoid, const uint64 *h, int n)
{
	PendingAdds *pa = NULL;
	ListCell   *lc;

	foreach(lc, pending)
		if (((PendingAdds *) lfirst(lc))->indexoid == indexoid)
			pa = (PendingAdds *) lfirst(lc);
	if (pa == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);

		pa = palloc0(sizeof(PendingAdds));
		pa->indexoid = indexoid;
		pa->max = 1024;
		pa->h = palloc(sizeof(uint64) * pa->max);
		pending = lappend(pending, pa);
		MemoryContextSwitchTo(old);
	}
	for (int i = 0; i < n; i++)
	{
		if (pa->n == pa->max)
		{
			if (pa->max >= PENDING_MAX)
				flush_one(pa);
			else
			{
				pa->max *= 2;
				pa->h = repalloc(pa->h, sizeof(uint64) * pa->max);
			}
		}
		pa->h[pa->n++] = h[i];
	}
}

static void
pending_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			flush_pending(InvalidOid);
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

/* ---- the access method ---- */

typedef struct BfIdxBuildState
{
	BfIdxHasher hasher;
	uint64	   *h;
	int			n;
	int			max;
	double		indtuples;
	MemoryContext tmpcxt;
	BloomFilter *local;			/* stage 0 in memory, or NULL: in the pages */
	void	   *local_alloc;
} BfIdxBuildState;

/*
 * Write the in-memory stage 0 of a build into its pages: each page that
 * holds a bit gets its blocks, their rate units and bits, and a budget.
 * The adds were checked against the whole stage's limit, as a value's
 * are; a page's budget is its base share or what it holds, whichever is
 * more, if the limit allows that for every page, else what it holds plus
 * an equal share of what is left; the pool keeps the rest, and a page
 * left empty gets its budget (page_share a block) when first written.
 */
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

	read_meta(index, &meta);
	s = &meta.stages[0];
	nblocks = s->geo.nbits / BLOOM_BLOCK_BITS;
	units = palloc_extended(sizeof(uint64) * s->npages, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (uint64 b = 0; b < nblocks; b++)
	{
		units[b / BFIDX_BLOCKS_PER_PAGE] +=
			bloom_block_units((const uint64 *) (bits + b * BFIDX_BLOCK_BYTES), &s->geo);
		if ((b & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();
	}
	share = s->page_share;
	for (uint64 p = 0; p < s->npages; p++)
	{
		held += units[p];
		want += Max(share * page_blocks(s, p), units[p]);
	}
	if (want > BLOOM_RATE_LIMIT)
		share = (BLOOM_RATE_LIMIT - Min(held, BLOOM_RATE_LIMIT)) / nblocks;

	for (uint64 p = 0; p < s->npages; p++)
	{
		uint32		nb = page_blocks(s, p);
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
		buf = read_page(index, (BlockNumber) (s->first_block + p));
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		init_data_page(page, &meta, 0, p);
		memcpy(block_of(page, 0), src, (size_t) nb * BFIDX_BLOCK_BYTES);
		o = opaque_of(page);
		o->units = units[p];
		o->bits_set = set;
		o->budget = budget;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
	}
	pfree(units);

	metabuf = read_page(index, BFIDX_META_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta_of(BufferGetPage(metabuf))->stages[0].page_share = share;
	meta_of(BufferGetPage(metabuf))->stages[0].pool = BLOOM_RATE_LIMIT - Min(given, BLOOM_RATE_LIMIT);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);
}

static void
build_flush(Relation index, BfIdxBuildState *bs)
{
	if (bs->local != NULL)
	{
		BloomAddResult r;
		size_t		done = bloom_add_hashes(bs->local, bs->h, bs->n, &r);

		if (done == (size_t) bs->n)
		{
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
	add_hashes(index, bs->h, bs->n, false);
	bs->n = 0;
}

static void
build_add_key(Relation index, BfIdxBuildState *bs, Datum key)
{
	MemoryContext old;
	uint64	   *h;
	int			n;

	/* a scalar: no array of one (a reset of an unused context is free) */
	if (!OidIsValid(bs->hasher.elemtype))
	{
		uint64		h1;

		old = MemoryContextSwitchTo(bs->tmpcxt);
		h1 = hash_one(&bs->hasher, key);
		MemoryContextSwitchTo(old);
		if (bs->n == bs->max)
			build_flush(index, bs);
		bs->h[bs->n++] = h1;
		bs->indtuples += 1;
		MemoryContextReset(bs->tmpcxt);
		return;
	}
	old = MemoryContextSwitchTo(bs->tmpcxt);
	h = hash_key(&bs->hasher, key, &n);
	MemoryContextSwitchTo(old);
	for (int i = 0; i < n; i++)
	{
		if (bs->n == bs->max)
			build_flush(index, bs);
		bs->h[bs->n++] = h[i];
	}
	bs->indtuples += n;
	MemoryContextReset(bs->tmpcxt);
}

static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *state)
{
	if (!isnull[0])
		build_add_key(index, (BfIdxBuildState *) state, values[0]);
}

/*
 * The build's scan of a heap table's pages, for a plain CREATE INDEX or
 * REINDEX of a column (no expression, no predicate, not CONCURRENTLY: the
 * table AM's build scan does those).  That scan reads with SnapshotAny,
 * which has no page mode, so it locks the buffer again for every tuple,
 * and costs more than the Bloom work.  Here each page is locked once: which tuples to add is decided under the share lock
 * (every one not DEAD, the versions a snapshot may still see, as the
 * table AM's scan chooses; no other session can be writing, the table
 * is locked against writes), then their elements are read from a copy
 * of the page.  Returns the live tuples, the table's new reltuples.
 */
static bool
build_scan_pages_applies(Relation heap, IndexInfo *indexInfo)
{
	return heap->rd_rel->relam == HEAP_TABLE_AM_OID && !indexInfo->ii_Concurrent &&
		indexInfo->ii_Expressions == NIL && indexInfo->ii_Predicate == NIL &&
		indexInfo->ii_NumIndexAttrs == 1 && indexInfo->ii_IndexAttrNumbers[0] > 0;
}

static double
build_scan_pages(Relation heap, Relation index, IndexInfo *indexInfo, BfIdxBuildState *bs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(heap);
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	TransactionId oldest = GetOldestNonRemovableTransactionId(heap);
	AttrNumber	attnum = indexInfo->ii_IndexAttrNumbers[0];
	TupleDesc	desc = RelationGetDescr(heap);
	PGAlignedBlock copy;
	bool		add[MaxHeapTuplesPerPage + 1];
	double		live = 0;

	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
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
			ItemId		iid = PageGetItemId(page, off);
			HeapTupleData tup;

			add[off] = false;
			if (!ItemIdIsNormal(iid))
				continue;
			tup.t_data = (HeapTupleHeader) PageGetItem(page, iid);
			tup.t_len = ItemIdGetLength(iid);
			tup.t_tableOid = RelationGetRelid(heap);
			ItemPointerSet(&tup.t_self, blk, off);
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
			ItemId		iid = PageGetItemId((Page) copy.data, off);
			HeapTupleData tup;
			Datum		key;
			bool		isnull;

			if (!add[off])
				continue;
			tup.t_data = (HeapTupleHeader) PageGetItem((Page) copy.data, iid);
			tup.t_len = ItemIdGetLength(iid);
			tup.t_tableOid = RelationGetRelid(heap);
			ItemPointerSet(&tup.t_self, blk, off);
			key = heap_getattr(&tup, attnum, desc, &isnull);
			if (!isnull)
				build_add_key(index, bs, key);
		}
	}
	FreeAccessStrategy(strategy);
	return live;
}

static IndexBuildResult *
bfidx_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	BfIdxBuildState bs;
	BfIdxOptions opts;
	BfIdxMeta	meta;
	IndexBuildResult *result;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));
	get_options(index, &opts);
	create_filter(index, MAIN_FORKNUM, &opts);
	read_meta(index, &meta);

	memset(&bs, 0, sizeof(bs));
	hasher_init(&bs.hasher, index, meta.seed);
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

	if (build_scan_pages_applies(heap, indexInfo))
		reltuples = build_scan_pages(heap, index, indexInfo, &bs);
	else
		reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
										   build_callback, &bs, NULL);
	build_flush(index, &bs);
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

static void
bfidx_buildempty(Relation index)
{
	BfIdxOptions opts;

	get_options(index, &opts);
	create_filter(index, INIT_FORKNUM, &opts);
}

/* what aminsert keeps between the rows of one statement */
typedef struct BfIdxInsertCache
{
	BfIdxHasher hasher;
	MemoryContext tmpcxt;
} BfIdxInsertCache;

static bool
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

		read_meta(index, &meta);
		c = MemoryContextAllocZero(indexInfo->ii_Context, sizeof(BfIdxInsertCache));
		old = MemoryContextSwitchTo(indexInfo->ii_Context);
		hasher_init(&c->hasher, index, meta.seed);
		c->tmpcxt = AllocSetContextCreate(indexInfo->ii_Context, "bloomfilter index insert",
										  ALLOCSET_SMALL_SIZES);
		MemoryContextSwitchTo(old);
		indexInfo->ii_AmCache = c;
	}
	old = MemoryContextSwitchTo(c->tmpcxt);
	h = hash_key(&c->hasher, values[0], &n);
	pending_add(RelationGetRelid(index), h, n);
	MemoryContextSwitchTo(old);
	MemoryContextReset(c->tmpcxt);
	return false;
}

/* Deleted rows leave their bits: nothing is removed, and no TID is kept. */
static IndexBulkDeleteResult *
bfidx_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				 IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	return stats;
}

static IndexBulkDeleteResult *
bfidx_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	stats->num_index_tuples = info->num_heap_tuples;
	stats->estimated_count = true;
	return stats;
}

/* No operator uses the index: the planner never picks it for a scan. */
static void
bfidx_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				   Cost *indexStartupCost, Cost *indexTotalCost,
				   Selectivity *indexSelectivity, double *indexCorrelation,
				   double *indexPages)
{
	*indexStartupCost = 1.0e10;
	*indexTotalCost = 1.0e10;
	*indexSelectivity = 1.0;
	*indexCorrelation = 0.0;
	*indexPages = 0.0;
}

/*
 * An operator class of this access method has no operators and one
 * support function, 1: the element's hash with a seed, as bloom_hash
 * gives it, (elem, bigint) returns bigint, where elem is the class's type
 * or, for an array class, its item type.  Problems are reported as INFO,
 * as PostgreSQL's own amvalidate functions do.
 */
static bool
bfidx_validate(Oid opclassoid)
{
	HeapTuple	classtup,
				familytup;
	Form_pg_opclass classform;
	Oid			opfamilyoid,
				opcintype,
				elemtype;
	char	   *opclassname,
			   *opfamilyname;
	CatCList   *proclist,
			   *oprlist;
	bool		result = true,
				has_hash = false;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	elemtype = get_element_type(opcintype);
	if (!OidIsValid(elemtype))
		elemtype = opcintype;
	opclassname = NameStr(classform->opcname);
	familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	opfamilyname = NameStr(((Form_pg_opfamily) GETSTRUCT(familytup))->opfname);

	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		if (procform->amproclefttype != opcintype || procform->amprocrighttype != opcintype)
			continue;			/* another class of the family */
		if (procform->amprocnum != 1)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloomfilter operator family \"%s\" contains function %s with invalid support number %d",
							opfamilyname, format_procedure(procform->amproc),
							procform->amprocnum)));
			result = false;
			continue;
		}
		if (!check_amproc_signature(procform->amproc, INT8OID, false, 2, 2, elemtype, INT8OID))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloomfilter operator family \"%s\" contains function %s with wrong signature for support number %d",
							opfamilyname, format_procedure(procform->amproc),
							procform->amprocnum),
					 errdetail("Support function 1 takes (%s, bigint) and returns bigint.",
							   format_type_be(elemtype))));
			result = false;
			continue;
		}
		has_hash = true;
	}
	if (!has_hash)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("bloomfilter operator class \"%s\" has no valid support function 1",
						opclassname)));
		result = false;
	}

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("bloomfilter operator family \"%s\" contains operator %s: the access method has none",
						opfamilyname, format_operator(oprform->amopopr))));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(familytup);
	ReleaseSysCache(classtup);
	return result;
}

static IndexScanDesc
bfidx_beginscan(Relation index, int nkeys, int norderbys)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a bloomfilter index cannot be scanned"),
			 errhint("Probe it with bloom_index_contains().")));
	pg_unreachable();
}

static void
bfidx_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
}

static void
bfidx_endscan(IndexScanDesc scan)
{
}

PG_FUNCTION_INFO_V1(bloomfilter_index_handler);
Datum
bloomfilter_index_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 0;
	am->amsupport = 1;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = false;
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	am->amoptionalkey = true;
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = false;
	am->ampredlocks = false;
	am->amcanparallel = false;
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = true;
	am->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	am->amkeytype = InvalidOid;

	am->ambuild = bfidx_build;
	am->ambuildempty = bfidx_buildempty;
	am->aminsert = bfidx_insert;
	am->ambulkdelete = bfidx_bulkdelete;
	am->amvacuumcleanup = bfidx_vacuumcleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = bfidx_costestimate;
	am->amoptions = bfidx_options;
	am->amproperty = NULL;
	am->ambuildphasename = NULL;
	am->amvalidate = bfidx_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = bfidx_beginscan;
	am->amrescan = bfidx_rescan;
	am->amgettuple = NULL;
	am->amgetbitmap = NULL;
	am->amendscan = bfidx_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;

	PG_RETURN_POINTER(am);
}

/* ---- SQL functions ---- */

/* bloom_hash(x, seed): the hash every filter type gives x (support 1) */
PG_FUNCTION_INFO_V1(bloom_hash_bytes);
Datum
bloom_hash_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) pgbf_hash_datum(PG_GETARG_DATUM(0), PGBF_ELEM_BYTES,
											 (uint64) PGBF_GETARG_OR(1, PG_GETARG_INT64, 0)));
}

PG_FUNCTION_INFO_V1(bloom_hash_int8);
Datum
bloom_hash_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) pgbf_hash_datum(PG_GETARG_DATUM(0), PGBF_ELEM_INT8,
											 (uint64) PGBF_GETARG_OR(1, PG_GETARG_INT64, 0)));
}

PG_FUNCTION_INFO_V1(bloom_hash_uuid);
Datum
bloom_hash_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) pgbf_hash_datum(PG_GETARG_DATUM(0), PGBF_ELEM_UUID,
											 (uint64) PGBF_GETARG_OR(1, PG_GETARG_INT64, 0)));
}

/*
 * Refuse an index that may lack elements: one whose build failed or was
 * cancelled (CREATE INDEX CONCURRENTLY, REINDEX CONCURRENTLY) is not
 * valid, nor is a partitioned one until every partition has its index
 * attached.  Such an index answers "absent" for what it lacks, and
 * "absent" must be final.
 */
static void
check_index_valid(Relation index, Relation named)
{
	bool		partitioned = named->rd_rel->relkind == RELKIND_PARTITIONED_INDEX;

	if (index->rd_index->indisvalid && index->rd_index->indisready)
		return;
	if (partitioned)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("bloomfilter index \"%s\" is not valid", RelationGetRelationName(named)),
				 errdetail("Index \"%s\" is not valid, or not every partition of table \"%s\" has its index attached: it may lack elements and answer \"absent\" for them.",
						   RelationGetRelationName(index), get_rel_name(named->rd_index->indrelid)),
				 errhint("Create or attach an index on each partition (ALTER INDEX ... ATTACH PARTITION), and REINDEX any that is not valid.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("bloomfilter index \"%s\" is not valid", RelationGetRelationName(index)),
			 errdetail("Its build did not finish (a failed or cancelled CREATE INDEX CONCURRENTLY or REINDEX CONCURRENTLY): it may lack elements and answer \"absent\" for them."),
			 errhint("REINDEX INDEX %s, or drop it and create it again.",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(index)),
												RelationGetRelationName(index)))));
}

/*
 * The bloomfilter indexes an index argument stands for, opened: itself,
 * or every leaf index of a partitioned one, each valid (above).  The
 * caller must be able to read every row of the indexed table: SELECT on
 * it, and no row-level security policy applying to the caller, since a
 * probe would tell of rows a policy hides (the owner without FORCE ROW
 * LEVEL SECURITY, a BYPASSRLS role and a superuser are not subject to
 * one).
 */
static List *
open_filter_indexes(Oid indexoid)
{
	Relation	index;
	Oid			heapoid;
	AclResult	acl;
	List	   *out = NIL;

	/* a dropped index's OID, or 0, is the user's mistake, not ours */
	index = try_relation_open(indexoid, AccessShareLock);
	if (index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("index with OID %u does not exist", indexoid)));
	if ((index->rd_rel->relkind != RELKIND_INDEX &&
		 index->rd_rel->relkind != RELKIND_PARTITIONED_INDEX) ||
		index->rd_indam == NULL || index->rd_indam->aminsert != bfidx_insert)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a bloomfilter index", RelationGetRelationName(index))));
	heapoid = index->rd_index->indrelid;
	acl = pg_class_aclcheck(heapoid, GetUserId(), ACL_SELECT);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, get_rel_name(heapoid));
	if (check_enable_rls(heapoid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot probe bloomfilter index \"%s\": row-level security applies to table \"%s\"",
						RelationGetRelationName(index), get_rel_name(heapoid)),
				 errdetail("A probe would tell of rows that a policy hides."),
				 errhint("Probe as a role that row-level security does not apply to: the table's owner (without FORCE ROW LEVEL SECURITY), or a role with BYPASSRLS.")));
	check_index_valid(index, index);
	if (index->rd_rel->relkind == RELKIND_INDEX)
	{
		flush_pending(indexoid);
		return list_make1(index);
	}

	{
		List	   *all = find_all_inheritors(indexoid, AccessShareLock, NULL);
		ListCell   *lc;

		foreach(lc, all)
		{
			Oid			oid = lfirst_oid(lc);
			char		kind = get_rel_relkind(oid);
			Relation	leaf;

			if (kind != RELKIND_INDEX && kind != RELKIND_PARTITIONED_INDEX)
				continue;
			leaf = index_open(oid, AccessShareLock);
			check_index_valid(leaf, index);
			if (kind == RELKIND_INDEX)
			{
				flush_pending(oid);
				out = lappend(out, leaf);
			}
			else
				index_close(leaf, AccessShareLock);
		}
	}
	relation_close(index, AccessShareLock);
	return out;
}

static void
close_filter_indexes(List *indexes)
{
	ListCell   *lc;

	foreach(lc, indexes)
		index_close((Relation) lfirst(lc), AccessShareLock);
}

/* the element type of an index's entries (the array's item type for an array) */
static Oid
index_elem_type(Relation index)
{
	Oid			t = index->rd_opcintype[0];
	Oid			e = get_element_type(t);

	return OidIsValid(e) ? e : t;
}

/* refuse a probe of elements of another type than the index holds */
static void
check_elem_type(Relation index, Oid elemtype)
{
	if (index_elem_type(index) != elemtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("index \"%s\" holds %s elements, not %s",
						RelationGetRelationName(index),
						format_type_be(index_elem_type(index)), format_type_be(elemtype))));
}

/*
 * bloom_index_contains(index, x) and (index, xs[]): whether the filter
 * holds x (false: surely not), or that for each item.  A partitioned
 * index answers for its partitions together.  A NULL element's answer is
 * NULL; the index must not be NULL.
 */
/*
 * found[i] |= whether items[i] is in the index indexoid (any leaf of a
 * partitioned one), for each i with neither skip[i] (skip may be NULL)
 * nor found[i] set already; the checks of open_filter_indexes and
 * check_elem_type first.
 */
static void
probe_leaves(Oid indexoid, Oid elemtype, const Datum *items, const bool *skip, int count,
			 bool *found)
{
	List	   *indexes = open_filter_indexes(indexoid);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = (Relation) lfirst(lc);
		BfIdxMeta	meta;
		BfIdxHasher hs;
		uint64	   *h = palloc_extended(sizeof(uint64) * Max(count, 1), MCXT_ALLOC_HUGE);
		bool	   *f = palloc0(sizeof(bool) * Max(count, 1));
		int			m = 0;

		check_elem_type(index, elemtype);
		read_meta(index, &meta);
		hasher_init(&hs, index, meta.seed);
		for (int i = 0; i < count; i++)
		{
			if ((i & 4095) == 4095)
				CHECK_FOR_INTERRUPTS();
			if (!(skip && skip[i]) && !found[i])
				h[m++] = hash_one(&hs, items[i]);
		}
		contains_hashes(index, &meta, h, m, f);
		m = 0;
		for (int i = 0; i < count; i++)
			if (!(skip && skip[i]) && !found[i])
				found[i] = f[m++];
		pfree(h);
		pfree(f);
	}
	close_filter_indexes(indexes);
}

static Datum
index_contains_impl(FunctionCallInfo fcinfo)
{
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	Oid			elemtype = get_element_type(argtype);
	bool		is_array = OidIsValid(elemtype);
	Datum	   *items = NULL;
	bool	   *nulls = NULL;
	bool	   *found;
	int			count;
	ArrayType  *arr = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the index to probe must not be NULL")));
	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (!is_array)
		elemtype = argtype;

	if (is_array)
	{
		int16		len;
		bool		byval;
		char		align;

		arr = PG_GETARG_ARRAYTYPE_P(1);
		get_typlenbyvalalign(elemtype, &len, &byval, &align);
		deconstruct_array(arr, elemtype, len, byval, align, &items, &nulls, &count);
	}
	else
	{
		items = palloc(sizeof(Datum));
		items[0] = PG_GETARG_DATUM(1);
		count = 1;
	}
	found = palloc0(sizeof(bool) * Max(count, 1));
	probe_leaves(PG_GETARG_OID(0), elemtype, items, nulls, count, found);

	if (!is_array)
		PG_RETURN_BOOL(found[0]);
	else
	{
		Datum	   *out = palloc(sizeof(Datum) * Max(count, 1));
		int			ndim = ARR_NDIM(arr);
		int		   *dims = ARR_DIMS(arr);
		int		   *lbs = ARR_LBOUND(arr);

		for (int i = 0; i < count; i++)
			out[i] = BoolGetDatum(found[i]);
		if (ndim == 0)
			PG_RETURN_ARRAYTYPE_P(construct_empty_array(BOOLOID));
		PG_RETURN_ARRAYTYPE_P(construct_md_array(out, nulls, ndim, dims, lbs,
												 BOOLOID, 1, true, TYPALIGN_CHAR));
	}
}

/*
 * Entry points by element kind, as the other probes have, so the probe
 * scan knows them by name; the answer does not depend on the kind (the
 * index's own support function hashes the element).
 */
static Datum
index_contains_elem(FunctionCallInfo fcinfo, PgbfElem kind)
{
	return index_contains_impl(fcinfo);
}

PGBF_ELEM_ENTRY_POINTS(bloom_index_contains, index_contains_elem)

PG_FUNCTION_INFO_V1(bloom_index_contains_array);
Datum
bloom_index_contains_array(PG_FUNCTION_ARGS)
{
	return index_contains_impl(fcinfo);
}

/*
 * bloom_index_absent(index, xs[]): the items of xs the index does not
 * contain, each once, in their order (the test half of a test-and-add:
 * insert them, and the index adds them at commit).  NULL items are left
 * out.  Items with the same hash count as one: the first stays, and the
 * others are what the filter would answer for them once it is added, a
 * false positive.
 */
static Datum
index_absent_elem(FunctionCallInfo fcinfo, PgbfElem kind)
{
	Oid			elemtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	ArrayType  *arr;
	Datum	   *items;
	bool	   *nulls;
	bool	   *found;
	uint64	   *dh;
	int32	   *slots;
	uint64		mask;
	int			count,
				nout = 0;
	int16		len;
	bool		byval;
	char		align;
	Datum	   *out;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the index to probe must not be NULL")));
	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	elemtype = get_element_type(elemtype);
	arr = PG_GETARG_ARRAYTYPE_P(1);
	get_typlenbyvalalign(elemtype, &len, &byval, &align);
	deconstruct_array(arr, elemtype, len, byval, align, &items, &nulls, &count);

	/*
	 * The distinct items, by hash (an open-addressing set of positions):
	 * a NULL or a repeat is marked found, so it is neither probed nor
	 * returned
	 */
	found = palloc0(sizeof(bool) * Max(count, 1));
	dh = palloc_extended(sizeof(uint64) * Max(count, 1), MCXT_ALLOC_HUGE);
	mask = 1;
	while (mask < (uint64) count * 2)
		mask <<= 1;
	slots = palloc_extended(sizeof(int32) * mask, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	mask--;
	for (int i = 0; i < count; i++)
	{
		uint64		at;

		if ((i & 4095) == 4095)
			CHECK_FOR_INTERRUPTS();
		if (nulls[i])
		{
			found[i] = true;
			continue;
		}
		dh[i] = pgbf_hash_datum(items[i], kind, BF_DEFAULT_SEED);
		for (at = dh[i] & mask; slots[at] != 0; at = (at + 1) & mask)
			if (dh[slots[at] - 1] == dh[i])
				break;
		if (slots[at] == 0)
			slots[at] = i + 1;
		else
			found[i] = true;
	}
	pfree(slots);

	probe_leaves(PG_GETARG_OID(0), elemtype, items, NULL, count, found);

	out = palloc(sizeof(Datum) * Max(count, 1));
	for (int i = 0; i < count; i++)
		if (!found[i])
			out[nout++] = items[i];
	if (nout == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nout, elemtype, len, byval, align));
}

PGBF_ELEM_ENTRY_POINTS(bloom_index_absent, index_absent_elem)

/*
 * The probe scan's handle on an index: every leaf index open, its stages
 * as they were when opened (a stage is added before anything goes into
 * it, so an element added before the scan began is in one of them).
 */
struct PgbfIndexProbe
{
	int			nleaves;
	Relation   *leaves;
	BfIdxMeta  *metas;
	uint64		seed;
};

PgbfIndexProbe *
pgbf_index_probe_open(Oid indexoid, Oid elemtype)
{
	List	   *indexes = open_filter_indexes(indexoid);
	PgbfIndexProbe *p = palloc0(sizeof(PgbfIndexProbe));
	ListCell   *lc;
	int			i = 0;

	p->nleaves = list_length(indexes);
	p->leaves = palloc(sizeof(Relation) * Max(p->nleaves, 1));
	p->metas = palloc(sizeof(BfIdxMeta) * Max(p->nleaves, 1));
	foreach(lc, indexes)
	{
		Relation	index = (Relation) lfirst(lc);

		p->leaves[i] = index;
		check_elem_type(index, elemtype);
		read_meta(index, &p->metas[i]);
		if (i > 0 && p->metas[i].seed != p->seed)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the partitions' bloomfilter indexes of \"%s\" hash with different seeds",
							get_rel_name(indexoid))));
		p->seed = p->metas[i].seed;
		i++;
	}
	return p;
}

uint64
pgbf_index_probe_seed(const PgbfIndexProbe *p)
{
	return p->seed;
}

void
pgbf_index_probe_many(const PgbfIndexProbe *p, const uint64 *h, size_t n, bool *out)
{
	memset(out, 0, n * sizeof(bool));
	for (int i = 0; i < p->nleaves; i++)
		contains_hashes(p->leaves[i], &p->metas[i], h, (int) n, out);
}

void
pgbf_index_probe_close(PgbfIndexProbe *p)
{
	for (int i = 0; i < p->nleaves; i++)
		index_close(p->leaves[i], AccessShareLock);
	p->nleaves = 0;
}

/* per stage: bits set and rate units, summed over its pages */
static void
count_stage(Relation index, const BfIdxStage *s, uint64 *bits_set, uint64 *units,
			uint64 *written)
{
	*bits_set = *units = *written = 0;
	for (uint64 p = 0; p < s->npages; p++)
	{
		Buffer		buf = read_page(index, (BlockNumber) (s->first_block + p));
		Page		page = BufferGetPage(buf);

		if ((p & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!PageIsNew(page))
		{
			*bits_set += opaque_of(page)->bits_set;
			*units += opaque_of(page)->units;
			(*written)++;
		}
		UnlockReleaseBuffer(buf);
	}
}

PG_FUNCTION_INFO_V1(bloom_index_info);
Datum
bloom_index_info(PG_FUNCTION_ARGS)
{
	List	   *indexes = open_filter_indexes(PG_GETARG_OID(0));
	StringInfoData out;
	ListCell   *lc;
	bool		first_index = true;

	initStringInfo(&out);
	if (list_length(indexes) != 1 ||
		((Relation) linitial(indexes))->rd_id != PG_GETARG_OID(0))
		appendStringInfoString(&out, "{\"partitions\": [");
	foreach(lc, indexes)
	{
		Relation	index = (Relation) lfirst(lc);
		BfIdxMeta	meta;
		uint64		bits = 0,
					set = 0,
					capacity = 0;
		double		fpr_est = 0.0,
					expected = 0.0;
		StringInfoData st;

		read_meta(index, &meta);
		initStringInfo(&st);
		for (uint32 i = 0; i < meta.nstages; i++)
		{
			const BfIdxStage *s = &meta.stages[i];
			uint64		sb,
						su,
						written;
			double		nb = (double) s->geo.nbits;

			count_stage(index, s, &sb, &su, &written);
			bits += s->geo.nbits;
			set += sb;
			capacity += s->geo.capacity;
			fpr_est += (double) su / (double) BLOOM_RATE_ONE * s->geo.fpr;
			/* elements from the fill: n = -(m/k) ln(1 - set/m) */
			if (sb < s->geo.nbits)
				expected += -(nb / s->geo.nhashes) * log1p(-(double) sb / nb);
			appendStringInfo(&st, "%s{\"bits\": %llu, \"hashes\": %u, \"capacity\": %llu, "
							 "\"fpr\": %.17g, \"bits_set\": %llu, \"rate_used\": %.6f, "
							 "\"first_page\": %llu, \"pages\": %llu, \"pages_written\": %llu, "
							 "\"pool\": %.6f}",
							 i ? ", " : "", (unsigned long long) s->geo.nbits, s->geo.nhashes,
							 (unsigned long long) s->geo.capacity, s->geo.fpr,
							 (unsigned long long) sb, (double) su / (double) BLOOM_RATE_ONE,
							 (unsigned long long) s->first_block,
							 (unsigned long long) s->npages, (unsigned long long) written,
							 (double) s->pool / (double) BLOOM_RATE_ONE);
		}
		appendStringInfoString(&out, first_index ? "{\"index\": " : ", {\"index\": ");
		escape_json(&out, RelationGetRelationName(index));
		appendStringInfo(&out, ", \"type\": \"bloomfilter index\", "
						 "\"layout\": \"blocked\", \"scalable\": %s, \"bits\": %llu, "
						 "\"bytes\": %llu, \"pages\": %u, \"hashes\": %u, \"stages\": %u, "
						 "\"capacity\": %llu, \"inserted\": %lld, \"bits_set\": %llu, "
						 "\"fill\": %.6f, \"fpr_target\": %.17g, \"fpr_estimate\": %.17g, "
						 "\"seed\": %llu, \"hash\": \"xxh3_64\", \"stage_info\": [%s]}",
						 meta.scalable ? "true" : "false",
						 (unsigned long long) bits,
						 (unsigned long long) RelationGetNumberOfBlocks(index) * BLCKSZ,
						 RelationGetNumberOfBlocks(index),
						 meta.stages[meta.nstages - 1].geo.nhashes, meta.nstages,
						 (unsigned long long) capacity, (long long) llround(expected),
						 (unsigned long long) set, (double) set / (double) bits,
						 meta.fpr, fpr_est, (unsigned long long) meta.seed, st.data);
		first_index = false;
	}
	if (list_length(indexes) != 1 ||
		((Relation) linitial(indexes))->rd_id != PG_GETARG_OID(0))
		appendStringInfoString(&out, "]}");
	close_filter_indexes(indexes);
	PG_RETURN_DATUM(pgbf_jsonb_from_cstring(out.data));
}

/*
 * bloom_index_snapshot(index): the filter as a bloomfilter value, the
 * bloom_create(capacity, fpr) that every element of the index was added to
 * (as long as it has one stage; with more, the same stages).
 */
PG_FUNCTION_INFO_V1(bloom_index_snapshot);
Datum
bloom_index_snapshot(PG_FUNCTION_ARGS)
{
	List	   *indexes = open_filter_indexes(PG_GETARG_OID(0));
	Relation	index;
	BfIdxMeta	meta;
	BloomStage	stages[BLOOM_MAX_STAGES];
	char		errbuf[BF_ERRLEN];
	size_t		size;
	BloomFilter *f;

	if (list_length(indexes) != 1 || ((Relation) linitial(indexes))->rd_id != PG_GETARG_OID(0))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot take a snapshot of a partitioned index"),
				 errhint("Take one of each partition's index and combine them with bloom_union.")));
	index = (Relation) linitial(indexes);
	read_meta(index, &meta);
	for (uint32 i = 0; i < meta.nstages; i++)
		stages[i] = meta.stages[i].geo;
	if (bloom_paged_value_size(stages, meta.nstages, &size, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index \"%s\" is too large for a snapshot: %s",
						RelationGetRelationName(index), errbuf)));
	f = pgbf_alloc_value_uninit(CurrentMemoryContext, size);
	bloom_paged_value_init(f, size, meta.capacity, meta.fpr, meta.scalable != 0,
						   stages, meta.nstages, meta.seed);
	for (uint32 i = 0; i < meta.nstages; i++)
	{
		const BfIdxStage *s = &meta.stages[i];
		uint8	   *bits = bloom_stage_bits(f, i);

		for (uint64 p = 0; p < s->npages; p++)
		{
			Buffer		buf = read_page(index, (BlockNumber) (s->first_block + p));
			Page		page = BufferGetPage(buf);

			if ((p & 1023) == 1023)
				CHECK_FOR_INTERRUPTS();
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			if (!PageIsNew(page))
				memcpy(bits + p * BFIDX_BLOCKS_PER_PAGE * BFIDX_BLOCK_BYTES,
					   block_of(page, 0), (size_t) page_blocks(s, p) * BFIDX_BLOCK_BYTES);
			UnlockReleaseBuffer(buf);
		}
	}
	bloom_recount(f);
	close_filter_indexes(indexes);
	PG_RETURN_POINTER(f);
}
