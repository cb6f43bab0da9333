/*
 * bloomindex_int.h
 *		The inside of the bloomfilter index access method, shared by its
 *		files: the pages, the WAL records, and what each file gives the
 *		others.  The rest of the module sees only bloomindex.h.
 *
 * The files, by callback group (as pgvector's HNSW):
 *
 *	bloomindex.c		handler, options, vacuum, amvalidate, init
 *	bloomindex_pages.c	metapage, stages, buffer hints, element hashes,
 *						the probe of hashes
 *	bloomindex_insert.c	the adds (one builder of page changes, logged by
 *						the module's record, generic WAL or not at all),
 *						the adds waiting for commit, aminsert
 *	bloomindex_build.c	ambuild, ambuildempty
 *	bloomindex_parallel.c	the parallel build (ambuild's workers)
 *	bloomindex_probe.c	the probe functions, their checks, the probe
 *						scan's side
 *	bloomindex_info.c	bloom_index_info, bloom_index_snapshot
 *	bloomindex_sync.c	bloom_index_sync, for clients' replicas
 *	bloomindex_wal.c	the module's WAL resource manager
 *
 * Pages (doc/index.md says why it is built so):
 *
 *	block 0			the metapage: BfIdxMeta after the page header
 *	then, for each stage in turn, its data pages, one after another
 *
 * A data page holds BFIDX_BLOCKS_PER_PAGE 64-byte blocks of its stage's
 * bits, the first at byte BFIDX_DATA_OFFSET (a cache line of its own:
 * a probe reads one line), and a BfIdxPageOpaque in its special space.
 * Block b of a stage is slot b % BFIDX_BLOCKS_PER_PAGE of the stage's
 * page b / BFIDX_BLOCKS_PER_PAGE.  The stages, their blocks and the bits
 * inside a block are a bloomfilter value's (bloom.h), so an element sets
 * and probes the bits it would in bloom_create(capacity, fpr) and a
 * snapshot of the pages is a bloomfilter.
 *
 * A page never written since its stage was added is all zeros (PageIsNew)
 * and reads as empty: adding a stage writes only its last page (so that
 * the relation has its full length after WAL replay and on a standby).
 *
 * The rate budget.  A value refuses an add that would take its stage's
 * rate_units (bloom.h) past BLOOM_RATE_LIMIT.  Here every page counts its
 * own blocks' units and may not pass its own budget; the budgets of a
 * stage's pages and the stage's pool in the metapage always sum to
 * BLOOM_RATE_LIMIT, so the stage's rate never passes its limit, and a
 * writer touches the metapage only when its page must borrow from the
 * pool.  A page not yet written has budget page_share units a block.
 */
#ifndef BLOOMINDEX_INT_H
#define BLOOMINDEX_INT_H

#include "pg_compat.h"

#include "access/amapi.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "port/atomics.h"
#include "storage/block.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

#include "bloom.h"
#include "bloomindex.h"
#include "pg_common.h"

#define BFIDX_MAGIC				0x42465849	/* "BFXI" */
#define BFIDX_PAGE_FORMAT		2	/* of a new index; 1 is still read */
#define BFIDX_META_BLKNO		0
#define BFIDX_DATA_OFFSET		64
#define BFIDX_SPECIAL_SIZE		64
#define BFIDX_BLOCK_BYTES		64
#define BFIDX_BLOCKS_PER_PAGE	((BLCKSZ - BFIDX_DATA_OFFSET - BFIDX_SPECIAL_SIZE) / BFIDX_BLOCK_BYTES)
/*
 * The last two bytes of a data page, telling page inspection tools whose
 * page it is.  Format 1 (the indexes of 1.0) took contrib/bloom's by
 * mistake and keeps it; the two formats differ in nothing else.
 */
#define BFIDX_PAGE_ID			0xFFBF
#define BFIDX_PAGE_ID_V1		0xFF83

static inline uint16
bfidx_page_id(uint32 format)
{
	return format == 1 ? BFIDX_PAGE_ID_V1 : BFIDX_PAGE_ID;
}

/*
 * Of a new stage's BLOOM_RATE_LIMIT units, pages get this share in
 * proportion to their blocks and the pool keeps the rest: a page whose
 * blocks fill faster than the mean borrows from it.
 */
#define BFIDX_PAGE_SHARE		0.9
/* a page borrows at least its base budget / this from the pool */
#define BFIDX_BORROW_DIVISOR	64

typedef struct BfIdxStage
{
	BloomStage	geo;			/* bloom.h's stage (offset, bits_set,
								 * rate_units unused: see the pages) */
	uint64		first_block;	/* its first data page */
	uint64		npages;
	uint64		pool;			/* rate units not given to any page */
	uint64		page_share;		/* budget a block of a page not yet written */
} BfIdxStage;

typedef struct BfIdxMeta
{
	uint32		magic;
	uint32		format;
	uint64		seed;
	double		fpr;
	uint64		capacity;
	uint32		scalable;
	uint32		nstages;
	BfIdxStage	stages[BLOOM_MAX_STAGES];
} BfIdxMeta;

typedef struct BfIdxPageOpaque
{
	uint64		units;			/* sum of the rate units of its blocks */
	uint64		budget;			/* units may not pass this */
	uint64		bits_set;
	uint32		stage;
	uint32		nblocks;		/* blocks of the stage on this page */
	uint8		reserved[28];
	uint16		flags;
	uint16		page_id;		/* bfidx_page_id(the index's format) */
} BfIdxPageOpaque;

StaticAssertDecl(sizeof(BfIdxPageOpaque) == BFIDX_SPECIAL_SIZE, "special space size");
StaticAssertDecl(MAXALIGN(SizeOfPageHeaderData) + sizeof(BfIdxMeta) <= BLCKSZ, "metapage size");

static inline BfIdxMeta *
bfidx_meta_of(Page page)
{
	return (BfIdxMeta *) PageGetContents(page);
}

static inline BfIdxPageOpaque *
bfidx_opaque_of(Page page)
{
	return (BfIdxPageOpaque *) PageGetSpecialPointer(page);
}

static inline uint64 *
bfidx_block_of(Page page, uint64 slot)
{
	return (uint64 *) ((char *) page + BFIDX_DATA_OFFSET + slot * BFIDX_BLOCK_BYTES);
}

/* a data page's header and layout, its blocks zero, its special space zero */
static inline void
bfidx_init_data_page(Page page)
{
	PageInit(page, BLCKSZ, BFIDX_SPECIAL_SIZE);
	((PageHeader) page)->pd_lower = BLCKSZ - BFIDX_SPECIAL_SIZE;
}

/*
 * The index's own WAL records (bloomindex_wal.c).  With the module in
 * shared_preload_libraries on PostgreSQL 15 or later, a custom WAL
 * resource manager logs the adds to a group of data pages in one record:
 * each page's new special space and its adds as (block slot, hash), which
 * redo sets again.  Otherwise, and for the rarer changes (a new stage, a
 * build), generic WAL.
 */
#define BFIDX_WAL_MAX_PAGES		30	/* data pages in one record (XLR_MAX_BLOCK_ID) */
#define BFIDX_WAL_MAX_ADDS		4096	/* adds of one page in one record */
#define BFIDX_WAL_ADD_BYTES		10	/* uint16 slot, uint64 hash, unaligned */

typedef struct BfIdxPageChange
{
	Buffer		buf;
	bool		init;			/* never written: initialize it first */
	BfIdxPageOpaque opaque;		/* its special space after the adds */
	int			nadds;
	char	   *adds;			/* nadds x BFIDX_WAL_ADD_BYTES */
} BfIdxPageChange;

extern bool pgbf_index_own_wal(void);
extern void bfidx_preload_notice(Relation index);
extern void bfidx_apply_change(Page page, bool init, const BfIdxPageOpaque *o,
							   uint32 nhashes, const char *adds, int nadds);
extern void bfidx_log_adds(uint32 nhashes, BfIdxPageChange *pages, int npages,
						   Buffer metabuf, uint32 stage, uint64 pool);
extern void bfidx_log_adds_generic(uint32 nhashes, BfIdxPageChange *pages, int npages,
								   Buffer metabuf, uint32 stage, uint64 pool);

/*
 * Interrupt checks at the module's rate (bfcore.h): every
 * BF_INTERRUPT_CHUNK elements hashed or probed, and every
 * BF_INTERRUPT_BYTES of pages (or of a stage's blocks) passed over.
 */
#define BFIDX_PAGES_PER_CHECK	(BF_INTERRUPT_BYTES / BLCKSZ)
#define BFIDX_BLOCKS_PER_CHECK	(BF_INTERRUPT_BYTES / BFIDX_BLOCK_BYTES)

/* in a loop over i: at the last i of every `every` (a power of two) */
static inline void
bfidx_check_interrupts_every(uint64 i, uint64 every)
{
	if ((i & (every - 1)) == every - 1)
		CHECK_FOR_INTERRUPTS();
}

/* ---- options (bloomindex.c) ---- */

typedef struct BfIdxOptions
{
	int32		vl_len_;
	double		capacity;
	double		fpr;
	bool		scalable;
} BfIdxOptions;

/* refuse options the index could not be built with */
extern void bfidx_check_options(const BfIdxOptions *opts);
/* the index's options, or the defaults */
extern void bfidx_get_options(Relation index, BfIdxOptions *opts);

/* ---- pages (bloomindex_pages.c) ---- */

extern uint32 bfidx_page_blocks(const BfIdxStage *s, uint64 p);
extern void bfidx_init_opaque(BfIdxPageOpaque *o, const BfIdxMeta *meta, uint32 stage,
							  uint64 p);
extern void bfidx_init_stage_page(Page page, const BfIdxMeta *meta, uint32 stage, uint64 p);
extern Buffer bfidx_read_page(Relation index, BlockNumber blk);
extern uint32 bfidx_meta_nstages(Relation index);
extern void bfidx_read_meta(Relation index, BfIdxMeta *meta);
extern pg_noreturn void bfidx_report_full(Relation index, const BfIdxMeta *meta);
extern void bfidx_grow(Relation index, uint32 expect_nstages, bool wal);
extern void bfidx_create_filter(Relation index, ForkNumber fork, const BfIdxOptions *opts);

/* ---- element hashes (bloomindex_pages.c) ---- */

/* the opclasses' support functions (bloomindex_probe.c) */
extern Datum bloom_hash_bytes(PG_FUNCTION_ARGS);
extern Datum bloom_hash_int8(PG_FUNCTION_ARGS);
extern Datum bloom_hash_uuid(PG_FUNCTION_ARGS);
extern Datum bloom_hash_identity(PG_FUNCTION_ARGS);

/* BfIdxHasher.kind of bloomfilter_hash_ops: the element is its hash */
#define BFIDX_KIND_IDENTITY		(-2)

typedef struct BfIdxHasher
{
	FmgrInfo   *proc;
	int			kind;			/* the module's own support function: its
								 * PgbfElem, hashed without the call;
								 * BFIDX_KIND_IDENTITY; or -1: the call */
	Oid			elemtype;		/* InvalidOid unless the column is an array */
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	uint64		seed;
} BfIdxHasher;

extern void bfidx_hasher_init(BfIdxHasher *hs, Relation index, uint64 seed);

static inline uint64
bfidx_hash_one(const BfIdxHasher *hs, Datum d)
{
	if (hs->kind >= 0)
		return pgbf_hash_datum(d, (PgbfElem) hs->kind, hs->seed);
	if (hs->kind == BFIDX_KIND_IDENTITY)
		return (uint64) DatumGetInt64(d);
	return (uint64) DatumGetInt64(FunctionCall2Coll(hs->proc, InvalidOid, d,
													 Int64GetDatum((int64) hs->seed)));
}

extern uint64 *bfidx_hash_key(const BfIdxHasher *hs, Datum key, int *n);

/* ---- probing hashes (bloomindex_pages.c) ---- */

typedef struct BfIdxHashPos
{
	uint64		h;
	uint64		block;			/* of the stage being worked on */
	int			idx;			/* in the caller's array */
} BfIdxHashPos;

extern void bfidx_sort_positions(BfIdxHashPos *pos, int n, bool by_block);
extern int	bfidx_stage_positions(BfIdxHashPos *pos, const uint64 *h, int n, const bool *skip,
								  uint64 nblocks, bool by_block);

/*
 * is h in stage s? (the page locked, pinned by the caller)  A page not
 * written yet is all zeros, so its blocks answer "absent" as they are,
 * and its header, a cache line more to read, need not be asked.
 */
static inline bool
bfidx_page_contains(Page page, const BfIdxStage *s, uint64 block, uint64 h)
{
	return bloom_block_contains(bfidx_block_of(page, block % BFIDX_BLOCKS_PER_PAGE), h,
								s->geo.nhashes);
}

extern void bfidx_contains_hashes(Relation index, const BfIdxMeta *meta, const uint64 *h,
								  int n, bool *out);
/*
 * How many keys ahead a probe or an add prefetches their pages' lines:
 * enough to overlap the memory latency of an index larger than the
 * CPU's caches, where each key's lines are misses of their own.
 */
#define BFIDX_PREFETCH_AHEAD	8

extern void bfidx_prefetch_positions(Relation index, const BfIdxStage *s,
									 const BfIdxHashPos *pos, int from, int to, bool add);

/* ---- adds (bloomindex_insert.c) ---- */

extern void bfidx_add_hashes(Relation index, uint64 *h, int n, bool wal);
extern void bfidx_flush_pending(Oid indexoid);
extern uint64 bfidx_add_calls;
extern void bfidx_note_absent(Relation index, const uint64 *h, const bool *in, int n,
							  uint32 nstages);

/*
 * The bloomfilter indexes an index argument of a SQL function stands for,
 * opened, valid and readable by the caller (bloomindex_probe.c): itself,
 * or every leaf index of a partitioned one
 */
extern List *bfidx_open_filter_indexes(Oid indexoid);
extern bool bfidx_names_partitioned(List *indexes, Oid indexoid);
extern void bfidx_close_filter_indexes(List *indexes);
extern void bfidx_pending_xact_callback(XactEvent event, void *arg);
extern void bfidx_probe_xact_callback(XactEvent event, void *arg);
extern void bfidx_probe_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
										 SubTransactionId parentSubid, void *arg);
extern bool bfidx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
						 Relation heapRel, IndexUniqueCheck checkUnique,
						 bool indexUnchanged, IndexInfo *indexInfo);

/* ---- build (bloomindex_build.c, bloomindex_parallel.c) ---- */

/*
 * One participant's build: its hashes waiting to be added, and stage 0 in
 * memory.  A participant of a parallel build (parallel set) never writes
 * the pages: when its stage 0 fills it sets full and *stop, and the leader
 * builds serially instead.
 */
typedef struct BfIdxBuildState
{
	BfIdxHasher hasher;
	uint64	   *h;
	int			n;
	int			max;
	double		indtuples;
	uint64		reported;		/* table rows added (progress) */
	MemoryContext tmpcxt;
	BloomFilter *local;			/* stage 0 in memory, or NULL: in the pages */
	void	   *local_alloc;
	/* a parallel build's participant */
	bool		parallel;
	bool		full;			/* its stage 0 filled: the build goes serial */
	bool		worker;			/* a worker: the leader reports progress */
	pg_atomic_uint64 *tuples_done;	/* every participant's rows added */
	pg_atomic_uint32 *stop;		/* set by the first participant to fill */
} BfIdxBuildState;

extern void bfidx_build_flush(Relation index, BfIdxBuildState *bs);
extern void bfidx_build_callback(Relation index, ItemPointer tid, Datum *values,
								 bool *isnull, bool tupleIsAlive, void *state);
extern bool bfidx_build_scan_pages_applies(Relation heap, IndexInfo *indexInfo);
extern double bfidx_build_scan_block(Relation heap, Relation index, BlockNumber blk,
									 TransactionId oldest,
									 BufferAccessStrategy strategy, AttrNumber attnum,
									 BfIdxBuildState *bs);
/* the parallel build (17+): false if the caller must build serially */
extern bool bfidx_build_parallel(Relation heap, Relation index, IndexInfo *indexInfo,
								 const BfIdxMeta *meta, BfIdxBuildState *bs,
								 double *reltuples);

extern IndexBuildResult *bfidx_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void bfidx_buildempty(Relation index);
extern char *bfidx_buildphasename(int64 phasenum);

#endif							/* BLOOMINDEX_INT_H */
