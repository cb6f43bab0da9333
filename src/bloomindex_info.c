/*
 * bloomindex_info.c
 *		bloom_index_info and bloom_index_snapshot: what a bloomfilter
 *		index holds, read page by page after the checks every probe makes
 *		(bfidx_open_filter_indexes).
 */
#include "postgres.h"

#include <math.h>

#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "bloomindex_int.h"

/*
 * Call fn(page, p, arg) for each page p of stage s that has been written,
 * under its share lock
 */
typedef void (*StagePageFn) (Page page, uint64 p, void *arg);

static void
for_each_written_page(Relation index, const BfIdxStage *s, StagePageFn fn, void *arg)
{
	for (uint64 p = 0; p < s->npages; p++)
	{
		Buffer		buf = bfidx_read_page(index, (BlockNumber) (s->first_block + p));
		Page		page = BufferGetPage(buf);

		bfidx_check_interrupts_every(p, BFIDX_PAGES_PER_CHECK);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!PageIsNew(page))
			fn(page, p, arg);
		UnlockReleaseBuffer(buf);
	}
}

/* per stage: bits set, rate units and pages written, summed over its pages */
typedef struct StageCounts
{
	uint64		bits_set;
	uint64		units;
	uint64		written;
} StageCounts;

static void
count_page(Page page, uint64 p, void *arg)
{
	StageCounts *c = (StageCounts *) arg;

	c->bits_set += bfidx_opaque_of(page)->bits_set;
	c->units += bfidx_opaque_of(page)->units;
	c->written++;
}

static void
count_stage(Relation index, const BfIdxStage *s, uint64 *bits_set, uint64 *units,
			uint64 *written)
{
	StageCounts c = {0};

	for_each_written_page(index, s, count_page, &c);
	*bits_set = c.bits_set;
	*units = c.units;
	*written = c.written;
}

PG_FUNCTION_INFO_V1(bloom_index_info);
Datum
bloom_index_info(PG_FUNCTION_ARGS)
{
	List	   *indexes = bfidx_open_filter_indexes(PG_GETARG_OID(0));
	StringInfoData out;
	ListCell   *lc;
	bool		first_index = true;

	initStringInfo(&out);
	if (bfidx_names_partitioned(indexes, PG_GETARG_OID(0)))
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

		bfidx_read_meta(index, &meta);
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
	if (bfidx_names_partitioned(indexes, PG_GETARG_OID(0)))
		appendStringInfoString(&out, "]}");
	bfidx_close_filter_indexes(indexes);
	PG_RETURN_DATUM(pgbf_jsonb_from_cstring(out.data));
}

/* a written page's blocks into a snapshot's stage bits */
typedef struct SnapshotCopy
{
	const BfIdxStage *stage;
	uint8	   *bits;
} SnapshotCopy;

static void
copy_page(Page page, uint64 p, void *arg)
{
	SnapshotCopy *c = (SnapshotCopy *) arg;

	memcpy(c->bits + p * BFIDX_BLOCKS_PER_PAGE * BFIDX_BLOCK_BYTES, bfidx_block_of(page, 0),
		   (size_t) bfidx_page_blocks(c->stage, p) * BFIDX_BLOCK_BYTES);
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
	List	   *indexes = bfidx_open_filter_indexes(PG_GETARG_OID(0));
	Relation	index;
	BfIdxMeta	meta;
	BloomStage	stages[BLOOM_MAX_STAGES];
	char		errbuf[BF_ERRLEN];
	size_t		size;
	BloomFilter *f;

	if (bfidx_names_partitioned(indexes, PG_GETARG_OID(0)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot take a snapshot of a partitioned index"),
				 errhint("Take one of each partition's index and combine them with bloom_union.")));
	index = (Relation) linitial(indexes);
	bfidx_read_meta(index, &meta);
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
		SnapshotCopy c = {&meta.stages[i], bloom_stage_bits(f, i)};

		for_each_written_page(index, c.stage, copy_page, &c);
	}
	bloom_recount(f);
	bfidx_close_filter_indexes(indexes);
	PG_RETURN_POINTER(f);
}
