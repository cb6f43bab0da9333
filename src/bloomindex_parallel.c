/*
 * bloomindex_parallel.c
 *		The parallel CREATE INDEX and REINDEX of a bloomfilter index: the
 *		workers (and the leader, unless parallel_leader_participation is
 *		off) each add a share of the table's rows to a stage 0 of their
 *		own, and the leader ORs them into one and writes it as the serial
 *		build does.
 *
 * Why the union is the serial build's stage 0, byte for byte: a stage's
 * bits are the OR of its elements' bits in any order, and the serial
 * build puts every element into stage 0 until the stage is full, that is
 * until an add would take its rate_units past BLOOM_RATE_LIMIT or they
 * have reached it (bloom.h).  Units only grow with bits, so if the
 * union's stay below the limit, no element of any order met a full stage.
 * If they reach it, or a participant's own stage fills, the serial build
 * would have put the elements after that point into a new stage, and
 * which ones depends on the order: the leader then builds serially.
 *
 * Memory: every participant holds a whole stage 0, the workers' in the
 * parallel context's dynamic shared memory, the leader's in its own, so
 * there are only as many workers as fit in maintenance_work_mem beside
 * the leader's (which alone is what the serial build uses).
 *
 * The workers run as the parallel machinery starts them: with the
 * leader's user, security context and GUCs (from 17 an index build runs
 * with search_path = pg_catalog, and so do its workers), in its
 * transaction, holding the locks index.c holds.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/genam.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/procarray.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "bloomindex_int.h"

#define BFIDX_KEY_SHARED		UINT64CONST(0xB10F117E00000001)
#define BFIDX_KEY_FILTERS		UINT64CONST(0xB10F117E00000002)
#define BFIDX_KEY_QUERY_TEXT	UINT64CONST(0xB10F117E00000003)
#define BFIDX_KEY_WAL_USAGE		UINT64CONST(0xB10F117E00000004)
#define BFIDX_KEY_BUFFER_USAGE	UINT64CONST(0xB10F117E00000005)

/*
 * Heap blocks a participant of the page scan claims at a time: few claims
 * (one atomic add each), yet shares that end close together.
 */
#define BFIDX_CHUNK_BLOCKS		64

/* how often the waiting leader reports its workers' progress, ms */
#define BFIDX_PROGRESS_MS		100

typedef struct BfIdxParallelShared
{
	/* set by the leader before the workers start */
	Oid			heaprelid;
	Oid			indexrelid;
	bool		isconcurrent;
	bool		pages;			/* the page scan (bfidx_build_scan_block), or
								 * the table AM's parallel scan after this */
	BloomStage	stage;			/* stage 0's geometry */
	uint64		capacity;
	double		fpr;
	bool		scalable;
	uint64		seed;
	Size		filter_size;	/* a stage 0 as a value */
	Size		filter_stride;	/* between the workers' values: 64-aligned */
	int			batch;			/* hashes a worker queues */
	BlockNumber nblocks;		/* the page scan's */
	TransactionId oldest;		/* its horizon, one for every participant */

	pg_atomic_uint64 next_block;	/* the page scan's next chunk */
	pg_atomic_uint64 tuples_done;	/* rows added by all (progress) */
	pg_atomic_uint32 stop;		/* a participant's stage 0 filled */

	/* what the workers found, under mutex */
	slock_t		mutex;
	ConditionVariable workersdonecv;
	int			nworkersdone;
	double		reltuples;
	double		indtuples;
	double		worker_rows;
	bool		full;
} BfIdxParallelShared;

#define ParallelTableScanFromShared(shared) \
	((ParallelTableScanDesc) ((char *) (shared) + BUFFERALIGN(sizeof(BfIdxParallelShared))))

/* worker i's stage 0 (64-byte aligned, as pgbf_alloc_value_aligned's) */
static BloomFilter *
worker_filter(char *filters, const BfIdxParallelShared *shared, int i)
{
	return (BloomFilter *) ((char *) TYPEALIGN(64, filters) + shared->filter_stride * i);
}

/* a participant's state around its stage 0 f (f laid out here) */
static void
participant_init(BfIdxBuildState *bs, BfIdxParallelShared *shared, Relation index,
				 BloomFilter *f)
{
	memset(bs, 0, sizeof(*bs));
	bfidx_hasher_init(&bs->hasher, index, shared->seed);
	bs->max = shared->batch;
	bs->h = palloc_extended(sizeof(uint64) * bs->max, MCXT_ALLOC_HUGE);
	bs->tmpcxt = AllocSetContextCreate(CurrentMemoryContext, "bloomfilter index build",
									   ALLOCSET_DEFAULT_SIZES);
	bloom_paged_value_init(f, shared->filter_size, shared->capacity, shared->fpr,
						   shared->scalable, &shared->stage, 1, shared->seed);
	bs->local = f;
	bs->parallel = true;
	bs->tuples_done = &shared->tuples_done;
	bs->stop = &shared->stop;
}

/*
 * A participant's share of the table: chunks of pages claimed in turn
 * (the page scan) or the table AM's parallel scan.  Stops early once any
 * participant's stage 0 has filled: the build will be serial.  Returns the
 * share's live rows.
 */
static double
participant_scan(BfIdxParallelShared *shared, Relation heap, Relation index,
				 IndexInfo *indexInfo, BfIdxBuildState *bs)
{
	double		reltuples = 0;

	if (shared->pages)
	{
		BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
		AttrNumber	attnum = indexInfo->ii_IndexAttrNumbers[0];

		while (!bs->full)
		{
			uint64		first = pg_atomic_fetch_add_u64(&shared->next_block, BFIDX_CHUNK_BLOCKS);
			BlockNumber end;

			if (first >= shared->nblocks)
				break;
			end = (BlockNumber) Min(first + BFIDX_CHUNK_BLOCKS, shared->nblocks);
			for (BlockNumber blk = (BlockNumber) first; blk < end; blk++)
				reltuples += bfidx_build_scan_block(heap, index, blk, shared->oldest, strategy,
													attnum, bs);
			if (!bs->worker)
				pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
											 (int64) Min(pg_atomic_read_u64(&shared->next_block),
														 shared->nblocks));
		}
		FreeAccessStrategy(strategy);
	}
	else
	{
		TableScanDesc scan = pgbf_table_beginscan_parallel(heap,
														   ParallelTableScanFromShared(shared));

		reltuples = table_index_build_scan(heap, index, indexInfo, true, !bs->worker,
										   bfidx_build_callback, bs, scan);
	}
	bfidx_build_flush(index, bs);
	/* the rows report_tuples has not counted yet */
	pg_atomic_fetch_add_u64(&shared->tuples_done, bs->reported & (BF_INTERRUPT_CHUNK - 1));
	return reltuples;
}

PGDLLEXPORT void bloomfilter_build_main(dsm_segment *seg, shm_toc *toc);

/* a worker of the parallel build (CreateParallelContext names it) */
void
bloomfilter_build_main(dsm_segment *seg, shm_toc *toc)
{
	BfIdxParallelShared *shared;
	char	   *filters;
	Relation	heap;
	Relation	index;
	LOCKMODE	heaplock;
	LOCKMODE	indexlock;
	IndexInfo  *indexInfo;
	BfIdxBuildState bs;
	double		reltuples;
	WalUsage   *walusage;
	BufferUsage *bufferusage;

	debug_query_string = shm_toc_lookup(toc, BFIDX_KEY_QUERY_TEXT, true);
	pgstat_report_activity(STATE_RUNNING, debug_query_string);
	shared = shm_toc_lookup(toc, BFIDX_KEY_SHARED, false);
	filters = shm_toc_lookup(toc, BFIDX_KEY_FILTERS, false);

	/* the locks index.c holds for the leader */
	if (!shared->isconcurrent)
	{
		heaplock = ShareLock;
		indexlock = AccessExclusiveLock;
	}
	else
	{
		heaplock = ShareUpdateExclusiveLock;
		indexlock = RowExclusiveLock;
	}
	heap = table_open(shared->heaprelid, heaplock);
	index = index_open(shared->indexrelid, indexlock);
	indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = shared->isconcurrent;

	participant_init(&bs, shared, index, worker_filter(filters, shared, ParallelWorkerNumber));
	bs.worker = true;
	InstrStartParallelQuery();
	reltuples = participant_scan(shared, heap, index, indexInfo, &bs);
	bufferusage = shm_toc_lookup(toc, BFIDX_KEY_BUFFER_USAGE, false);
	walusage = shm_toc_lookup(toc, BFIDX_KEY_WAL_USAGE, false);
	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber], &walusage[ParallelWorkerNumber]);

	SpinLockAcquire(&shared->mutex);
	shared->nworkersdone++;
	shared->reltuples += reltuples;
	shared->indtuples += bs.indtuples;
	shared->worker_rows += (double) bs.reported;
	shared->full |= bs.full;
	SpinLockRelease(&shared->mutex);
	ConditionVariableSignal(&shared->workersdonecv);

	index_close(index, indexlock);
	table_close(heap, heaplock);
}

static void
end_parallel(ParallelContext *pcxt, Snapshot snapshot, WalUsage *walusage,
			 BufferUsage *bufferusage)
{
	WaitForParallelWorkersToFinish(pcxt);
	/* the workers' WAL and buffers count as the statement's */
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&bufferusage[i], &walusage[i]);
	if (IsMVCCSnapshot(snapshot))
		UnregisterSnapshot(snapshot);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
}

/* wait for every worker, reporting their rows and pages meanwhile */
static void
wait_for_workers(ParallelContext *pcxt, BfIdxParallelShared *shared)
{
	for (;;)
	{
		bool		done;

		SpinLockAcquire(&shared->mutex);
		done = shared->nworkersdone == pcxt->nworkers_launched;
		SpinLockRelease(&shared->mutex);
		if (done)
			break;
		ConditionVariableTimedSleep(&shared->workersdonecv, BFIDX_PROGRESS_MS,
									WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
									 (int64) pg_atomic_read_u64(&shared->tuples_done));
		if (shared->pages)
			pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
										 (int64) Min(pg_atomic_read_u64(&shared->next_block),
													 shared->nblocks));
	}
	ConditionVariableCancelSleep();
	/* the scan's last figures, however short it was (as the heap AM's scan) */
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
								 (int64) pg_atomic_read_u64(&shared->tuples_done));
	if (shared->pages)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE, (int64) shared->nblocks);
}

/*
 * The leader of a parallel build: bs is the serial build's state, its
 * stage 0 in memory (bs->local) empty.  Returns true with the union of
 * every participant's stage 0 in bs->local, the rows and elements added
 * in *reltuples and bs; false, with bs as it came, when the build must be
 * serial (a DEBUG1 message says why).
 */
bool
bfidx_build_parallel(Relation heap, Relation index, IndexInfo *indexInfo,
					 const BfIdxMeta *meta, BfIdxBuildState *bs, double *reltuples)
{
	const char *name = RelationGetRelationName(index);
	bool		leader_scans = parallel_leader_participation;
	Size		size;
	Size		stride;
	Size		fit;
	int			nworkers;
	int			launched;
	char		errbuf[BF_ERRLEN];
	ParallelContext *pcxt;
	Snapshot	snapshot;
	Size		sharedsize;
	Size		querylen = 0;
	BfIdxParallelShared *shared;
	char	   *filters;
	WalUsage   *walusage;
	BufferUsage *bufferusage;
	double		leader_reltuples = 0;
	bool		full;
	bool		union_full;

	if (bs->local == NULL)
	{
		ereport(DEBUG1,
				(errmsg_internal("bloomfilter index \"%s\": serial build, stage 0 is built in the pages (larger than maintenance_work_mem)",
								 name)));
		return false;
	}
	if (bloom_paged_value_size(&meta->stages[0].geo, 1, &size, errbuf) != BF_OK)
		elog(ERROR, "%s", errbuf);
	stride = TYPEALIGN(64, size);
	fit = (Size) maintenance_work_mem * 1024 / stride;
	nworkers = (int) Min((Size) indexInfo->ii_ParallelWorkers, fit > 0 ? fit - 1 : 0);
	if (nworkers < 1)
	{
		ereport(DEBUG1,
				(errmsg_internal("bloomfilter index \"%s\": serial build, maintenance_work_mem holds one stage 0 of %zu bytes, not two",
								 name, size)));
		return false;
	}

	EnterParallelMode();
	pcxt = CreateParallelContext("bloomfilter", "bloomfilter_build_main", nworkers);
	/* as index.c's serial scans: every row version, or an MVCC snapshot's */
	snapshot = indexInfo->ii_Concurrent ? RegisterSnapshot(GetTransactionSnapshot()) : SnapshotAny;

	sharedsize = BUFFERALIGN(sizeof(BfIdxParallelShared));
	if (!bfidx_build_scan_pages_applies(heap, indexInfo))
		sharedsize = add_size(sharedsize, table_parallelscan_estimate(heap, snapshot));
	shm_toc_estimate_chunk(&pcxt->estimator, sharedsize);
	shm_toc_estimate_chunk(&pcxt->estimator, add_size(mul_size(stride, nworkers), 64));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 4);
	if (debug_query_string)
	{
		querylen = strlen(debug_query_string);
		shm_toc_estimate_chunk(&pcxt->estimator, querylen + 1);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		ereport(DEBUG1,
				(errmsg_internal("bloomfilter index \"%s\": serial build, no dynamic shared memory segment",
								 name)));
		return false;
	}

	shared = shm_toc_allocate(pcxt->toc, sharedsize);
	memset(shared, 0, sizeof(BfIdxParallelShared));
	shared->heaprelid = RelationGetRelid(heap);
	shared->indexrelid = RelationGetRelid(index);
	shared->isconcurrent = indexInfo->ii_Concurrent;
	shared->pages = bfidx_build_scan_pages_applies(heap, indexInfo);
	shared->stage = meta->stages[0].geo;
	shared->capacity = meta->capacity;
	shared->fpr = meta->fpr;
	shared->scalable = meta->scalable != 0;
	shared->seed = meta->seed;
	shared->filter_size = size;
	shared->filter_stride = stride;
	shared->batch = Max(bs->max / (nworkers + 1), 16384);
	if (shared->pages)
	{
		shared->nblocks = RelationGetNumberOfBlocks(heap);
		shared->oldest = GetOldestNonRemovableTransactionId(heap);
	}
	pg_atomic_init_u64(&shared->next_block, 0);
	pg_atomic_init_u64(&shared->tuples_done, 0);
	pg_atomic_init_u32(&shared->stop, 0);
	SpinLockInit(&shared->mutex);
	ConditionVariableInit(&shared->workersdonecv);
	if (!shared->pages)
		table_parallelscan_initialize(heap, ParallelTableScanFromShared(shared), snapshot);
	shm_toc_insert(pcxt->toc, BFIDX_KEY_SHARED, shared);

	filters = shm_toc_allocate(pcxt->toc, add_size(mul_size(stride, nworkers), 64));
	shm_toc_insert(pcxt->toc, BFIDX_KEY_FILTERS, filters);
	walusage = shm_toc_allocate(pcxt->toc, mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, BFIDX_KEY_WAL_USAGE, walusage);
	bufferusage = shm_toc_allocate(pcxt->toc, mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, BFIDX_KEY_BUFFER_USAGE, bufferusage);
	if (debug_query_string)
	{
		char	   *query = shm_toc_allocate(pcxt->toc, querylen + 1);

		memcpy(query, debug_query_string, querylen + 1);
		shm_toc_insert(pcxt->toc, BFIDX_KEY_QUERY_TEXT, query);
	}

	LaunchParallelWorkers(pcxt);
	launched = pcxt->nworkers_launched;
	if (launched == 0)
	{
		end_parallel(pcxt, snapshot, walusage, bufferusage);
		ereport(DEBUG1,
				(errmsg_internal("bloomfilter index \"%s\": serial build, no parallel worker could be launched",
								 name)));
		return false;
	}

	if (shared->pages)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL, shared->nblocks);
	bs->parallel = true;
	bs->tuples_done = &shared->tuples_done;
	bs->stop = &shared->stop;
	if (leader_scans)
		leader_reltuples = participant_scan(shared, heap, index, indexInfo, bs);
	/* errors out if a worker never started, rather than wait for it */
	WaitForParallelWorkersToAttach(pcxt);
	wait_for_workers(pcxt, shared);

	full = bs->full || shared->full;
	union_full = false;
	for (int i = 0; i < launched && !full; i++)
		full = union_full =
			bloom_union_into(bs->local, worker_filter(filters, shared, i), errbuf) != BF_OK ||
			bs->local->stages[0].rate_units >= BLOOM_RATE_LIMIT;
	*reltuples = leader_reltuples + shared->reltuples;
	bs->indtuples += shared->indtuples;
	bs->reported = pg_atomic_read_u64(&shared->tuples_done);
	if (!full)
		ereport(DEBUG1,
				(errmsg_internal("bloomfilter index \"%s\": parallel build by %d of %d planned workers%s, the workers added %.0f of %.0f table rows",
								 name, launched, indexInfo->ii_ParallelWorkers,
								 leader_scans ? " and the leader" : "",
								 shared->worker_rows, (double) bs->reported)));
	end_parallel(pcxt, snapshot, walusage, bufferusage);

	bs->parallel = false;
	bs->tuples_done = NULL;
	bs->stop = NULL;
	if (!full)
		return true;

	ereport(DEBUG1,
			(errmsg_internal("bloomfilter index \"%s\": the rows fill stage 0 (%s), so the build is serial (the stages after it depend on the rows' order)",
							 name, union_full ? "the participants' union" : "a participant's")));
	bloom_paged_value_init(bs->local, size, meta->capacity, meta->fpr, meta->scalable != 0,
						   &meta->stages[0].geo, 1, meta->seed);
	bs->n = 0;
	bs->indtuples = 0;
	bs->reported = 0;
	bs->full = false;
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, 0);
	pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE, 0);
	return false;
}
