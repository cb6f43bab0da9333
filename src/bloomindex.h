/*
 * bloomindex.h
 *		The bloomfilter index access method: a scalable blocked Bloom
 *		filter kept in the pages of an index, maintained by the table's
 *		writes and probed with bloom_index_contains.
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
#ifndef BLOOMINDEX_H
#define BLOOMINDEX_H

#include "pg_compat.h"

#include "storage/block.h"
#include "storage/bufpage.h"

#include "bloom.h"

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
meta_of(Page page)
{
	return (BfIdxMeta *) PageGetContents(page);
}

static inline BfIdxPageOpaque *
opaque_of(Page page)
{
	return (BfIdxPageOpaque *) PageGetSpecialPointer(page);
}

static inline uint64 *
block_of(Page page, uint64 slot)
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

extern void pgbf_index_wal_init(void);
extern bool pgbf_index_own_wal(void);
extern void bfidx_apply_change(Page page, bool init, const BfIdxPageOpaque *o,
							   uint32 nhashes, const char *adds, int nadds);
extern void bfidx_log_adds(uint32 nhashes, BfIdxPageChange *pages, int npages,
						   Buffer metabuf, uint32 stage, uint64 pool);

extern void pgbf_index_init(void);

/*
 * The probe scan's side (scan.c): a bloomfilter index (or a partitioned
 * one's leaves) opened for probes of elements of type elemtype, after the
 * checks bloom_index_contains makes (privilege, kind, element type); the
 * hashes' seed; out[i] = whether h[i] is in it; closed at the scan's end.
 */
typedef struct PgbfIndexProbe PgbfIndexProbe;

extern PgbfIndexProbe *pgbf_index_probe_open(Oid indexoid, Oid elemtype);
extern uint64 pgbf_index_probe_seed(const PgbfIndexProbe *p);
extern void pgbf_index_probe_many(const PgbfIndexProbe *p, const uint64 *h, size_t n,
								  bool *out);
extern void pgbf_index_probe_close(PgbfIndexProbe *p);

#endif							/* BLOOMINDEX_H */
