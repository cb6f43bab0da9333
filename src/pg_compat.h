/*
 * pg_compat.h
 *		Every difference between the PostgreSQL majors the extension builds
 *		against (14 to 19), in one place: the rest of the SQL glue writes
 *		the names defined here and never tests PG_VERSION_NUM itself.
 */
#ifndef PG_COMPAT_H
#define PG_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 140000
#error "bloomfilter needs PostgreSQL 14 or later"
#endif

/* the varlena macros (VARSIZE, SET_VARSIZE, ...): split off postgres.h in 16 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "access/tableam.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "utils/arrayaccess.h"
#include "utils/guc.h"

/*
 * The heap scan's page-mode state (HeapScanDescData's current buffer,
 * block, visible tuples and index), which heappage.c reads: the same in
 * every major from 14 to 19.  A later major may change it; until it is checked,
 * the scans answer slot by slot there.
 */
#if PG_VERSION_NUM < 200000
#define PGBF_HEAP_PAGE_ACCESS 1
#endif

/*
 * Custom WAL resource managers (RegisterCustomRmgr): from 15.  The index
 * logs its adds with generic WAL where there are none.
 */
#if PG_VERSION_NUM >= 150000
#define PGBF_CUSTOM_WAL 1
#endif

/*
 * An index access method may build in parallel from 17 (amcanbuildparallel:
 * index_build asks plan_create_index_workers); before, core plans workers
 * for btree only, and the bloomfilter index builds serially.
 */
#if PG_VERSION_NUM >= 170000
#define PGBF_PARALLEL_BUILD 1
#endif

/* the ExplainProperty* functions: moved to their own header in 18 */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif

/*
 * A function that does not return: 18 replaced pg_attribute_noreturn(),
 * written after the declarator, with pg_noreturn, written before it.  The
 * build is C11, whose _Noreturn is what 18 itself uses.
 */
#ifndef pg_noreturn
#define pg_noreturn _Noreturn
#endif

/* a module's magic block names it and its version from 18 on */
#ifdef PG_MODULE_MAGIC_EXT
#define PGBF_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "bloomfilter", .version = PGBF_VERSION)
#else
#define PGBF_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/* reserving a GUC prefix: EmitWarningsOnPlaceholders before 15 */
#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(prefix) EmitWarningsOnPlaceholders(prefix)
#endif

/*
 * A sequential scan of a table, serial or parallel: 19 added a flags
 * argument (read-only and instrumentation hints), which stays empty here.
 */
#if PG_VERSION_NUM >= 190000
#define pgbf_table_beginscan(rel, snapshot) \
	table_beginscan((rel), (snapshot), 0, NULL, SO_NONE)
#define pgbf_table_beginscan_parallel(rel, pscan) \
	table_beginscan_parallel((rel), (pscan), SO_NONE)
#else
#define pgbf_table_beginscan(rel, snapshot) table_beginscan((rel), (snapshot), 0, NULL)
#define pgbf_table_beginscan_parallel(rel, pscan) table_beginscan_parallel((rel), (pscan))
#endif

/* a scan node's tuple slot: 19 added flags (none are needed here) */
#if PG_VERSION_NUM >= 190000
#define pgbf_init_scan_slot(estate, ss, desc, ops) \
	ExecInitScanTupleSlot((estate), (ss), (desc), (ops), 0)
#else
#define pgbf_init_scan_slot(estate, ss, desc, ops) \
	ExecInitScanTupleSlot((estate), (ss), (desc), (ops))
#endif

/* a plan node's run-time counters (nloops, nfiltered1/2): renamed in 19 */
#if PG_VERSION_NUM >= 190000
typedef NodeInstrumentation PgbfNodeInstrumentation;
#else
typedef Instrumentation PgbfNodeInstrumentation;
#endif

/*
 * Walking an array's elements: 19 moved the element's length, by-value
 * flag and alignment from every array_iter_next call to array_iter_setup.
 */
#if PG_VERSION_NUM >= 190000
#define pgbf_array_iter_setup(it, arr, len, byval, align) \
	array_iter_setup((it), (arr), (len), (byval), (align))
#define pgbf_array_iter_next(it, isnull, i, len, byval, align) \
	array_iter_next((it), (isnull), (i))
#else
#define pgbf_array_iter_setup(it, arr, len, byval, align) array_iter_setup((it), (arr))
#define pgbf_array_iter_next(it, isnull, i, len, byval, align) \
	array_iter_next((it), (isnull), (i), (len), (byval), (align))
#endif

/*
 * Extend a relation's fork to nblocks blocks with zeroed pages and return
 * the last one's buffer, pinned and exclusively locked.  The caller holds
 * the relation's extension lock (16 extends many blocks at once, and
 * renamed what names the relation in 17; before 16, a page at a time).
 */
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"

static inline Buffer
pgbf_extend_to(Relation rel, ForkNumber fork, BlockNumber nblocks)
{
#if PG_VERSION_NUM >= 170000
	return ExtendBufferedRelTo(BMR_REL(rel), fork, NULL,
							   EB_SKIP_EXTENSION_LOCK | EB_CREATE_FORK_IF_NEEDED,
							   nblocks, RBM_ZERO_AND_LOCK);
#elif PG_VERSION_NUM >= 160000
	return ExtendBufferedRelTo(EB_REL(rel), fork, NULL,
							   EB_SKIP_EXTENSION_LOCK | EB_CREATE_FORK_IF_NEEDED,
							   nblocks, RBM_ZERO_AND_LOCK);
#else
	Buffer		buf = InvalidBuffer;

	while (RelationGetNumberOfBlocksInFork(rel, fork) < nblocks)
	{
		CHECK_FOR_INTERRUPTS();
		if (BufferIsValid(buf))
			ReleaseBuffer(buf);
		buf = ReadBufferExtended(rel, fork, P_NEW, RBM_NORMAL, NULL);
	}
	if (!BufferIsValid(buf))
		buf = ReadBufferExtended(rel, fork, nblocks - 1, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	return buf;
#endif
}

/*
 * The TOAST snapshot a fetch of chunks reads under (argcache.c): a
 * function returning it from 18 on, a struct the caller fills before.
 * buf is storage for the older form.
 */
#include "access/toast_internals.h"

static inline Snapshot
pgbf_toast_snapshot(SnapshotData *buf)
{
#if PG_VERSION_NUM >= 180000
	(void) buf;
	return get_toast_snapshot();
#else
	init_toast_snapshot(buf);
	return buf;
#endif
}

/*
 * The number of a relation's current file (its relfilenode), and the
 * locator ReadRecentBuffer takes: renamed in 16
 */
#if PG_VERSION_NUM >= 160000
#define pgbf_rel_file_number(rel) ((Oid) (rel)->rd_locator.relNumber)
#define pgbf_rel_locator(rel) ((rel)->rd_locator)
#else
#define pgbf_rel_file_number(rel) ((Oid) (rel)->rd_node.relNode)
#define pgbf_rel_locator(rel) ((rel)->rd_node)
#endif

/* A buffer descriptor's state word, read atomically: 64 bits from 19 */
#if PG_VERSION_NUM >= 190000
#define pgbf_buffer_state(desc) pg_atomic_read_u64(&(desc)->state)
#else
#define pgbf_buffer_state(desc) pg_atomic_read_u32(&(desc)->state)
#endif

/* Does a buffer tag (storage/buf_internals.h) name a page of rel's main fork? */
#if PG_VERSION_NUM >= 160000
#define pgbf_buftag_in_main_fork(tag, rel) \
	(BufTagMatchesRelFileLocator((tag), &(rel)->rd_locator) && \
	 BufTagGetForkNum(tag) == MAIN_FORKNUM)
#else
#define pgbf_buftag_in_main_fork(tag, rel) \
	(RelFileNodeEquals((tag)->rnode, (rel)->rd_node) && (tag)->forkNum == MAIN_FORKNUM)
#endif

/*
 * The WAL timeline a primary inserts on, for a sync token
 * (bloomindex_sync.c); GetXLogReplayRecPtr's header on a standby
 */
#if PG_VERSION_NUM >= 150000
#include "access/xlogrecovery.h"
#define pgbf_insert_timeline() GetWALInsertionTimeLine()
#else
#include "access/xlog.h"
#define pgbf_insert_timeline() ThisTimeLineID
#endif

#endif							/* PG_COMPAT_H */
