/*
 * bloomindex_sync.c
 *		bloom_index_sync(index, token): a replica of a bloomfilter index
 *		kept current by the pages that changed since a sync token.
 *
 * A sync returns the index's pages as they are now, each with the token
 * of this sync: with no token (or one that no longer applies, below)
 * every page that was ever written, and resync = true: the client starts
 * its replica again from these; with the token of an earlier sync, the
 * pages whose LSN is past it.  The metapage (block 0) always comes, first.
 *
 * Why a page's LSN tells: every change to a logged index's page is made
 * under its exclusive lock, before the change's WAL record is reserved,
 * and the page's LSN is set to the record's end before the lock goes.
 * The token's position T is the WAL insert position (on a standby, the
 * replay position) taken before any page is read.  A change whose record
 * was reserved before T was made before T, so a page read after T shows
 * it (the read waits for the lock); a change reserved after T leaves its
 * page's LSN past T, and the next sync returns that page.  So after a
 * sync at T a replica holds every add whose WAL record was reserved
 * before T, and so every element of every transaction committed before
 * T: the index's adds are logged before the commit record.  The bits of
 * an index only grow; pages can be sent again, never lose a bit.
 *
 * What no longer applies, and so gets everything again with resync:
 * another relation file (REINDEX, TRUNCATE, VACUUM FULL, a new index of
 * the name), another database or index, another cluster (system
 * identifier) or timeline (after a promotion, positions past the fork
 * are not the old ones), or a position this server has not reached: a
 * server restored to an earlier point, or a standby behind the primary
 * the token came from (the two look the same from here).
 *
 * An index that writes no WAL (unlogged, temporary) has no page LSNs to
 * go by: every sync returns every written page, resync only when the
 * file changed.  An unlogged index emptied by a crash recovery keeps its
 * file: its replicas keep bits it lost (false positives, never a false
 * negative).
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/pg_lsn.h"
#include "utils/tuplestore.h"

#include "bloomindex_int.h"

#define SYNC_TOKEN_PREFIX	"bfsync1"

typedef struct SyncToken
{
	uint64		sysid;
	uint32		tli;
	Oid			dboid;
	Oid			indexoid;
	Oid			filenumber;
	XLogRecPtr	lsn;
} SyncToken;

static char *
token_text(const SyncToken *t)
{
	return psprintf("%s:%016llx:%u:%u:%u:%u:%X/%X", SYNC_TOKEN_PREFIX,
					(unsigned long long) t->sysid, t->tli, t->dboid, t->indexoid,
					t->filenumber, LSN_FORMAT_ARGS(t->lsn));
}

/* field: 1 .. maxdigits digits of base 10 or 16, nothing else */
static bool
parse_field(const char *s, size_t len, int base, int maxdigits, uint64 max, uint64 *out)
{
	uint64		v = 0;

	if (len == 0 || len > (size_t) maxdigits)
		return false;
	for (size_t i = 0; i < len; i++)
	{
		int			d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return false;
		v = v * base + d;
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

/* a token as token_text writes it, strictly: anything else is an error */
static void
token_parse(const char *s, SyncToken *t)
{
	/* prefix, sysid, tli, database, index, file, LSN high / low */
	static const int base[] = {0, 16, 10, 10, 10, 10, 16, 16};
	static const int digits[] = {0, 16, 10, 10, 10, 10, 8, 8};
	uint64		v[8];
	const char *p = s;
	int			i;

	for (i = 0; i < 8; i++)
	{
		char		sep = i < 6 ? ':' : (i == 6 ? '/' : '\0');
		const char *end = sep ? strchr(p, sep) : p + strlen(p);

		if (end == NULL)
			break;
		if (i == 0)
		{
			if (end - p != strlen(SYNC_TOKEN_PREFIX) ||
				strncmp(p, SYNC_TOKEN_PREFIX, end - p) != 0)
				break;
		}
		else if (!parse_field(p, end - p, base[i], digits[i],
							  digits[i] == 16 ? PG_UINT64_MAX : PG_UINT32_MAX, &v[i]))
			break;
		p = end + (sep ? 1 : 0);
	}
	if (i < 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid bloomfilter sync token: \"%s\"", s),
				 errhint("Pass the token of an earlier bloom_index_sync, or NULL for a whole replica.")));
	t->sysid = v[1];
	t->tli = (uint32) v[2];
	t->dboid = (Oid) v[3];
	t->indexoid = (Oid) v[4];
	t->filenumber = (Oid) v[5];
	t->lsn = (v[6] << 32) | v[7];
}

/* this server's position: what its WAL has reserved, or replayed */
static void
token_now(Relation index, SyncToken *t)
{
	t->sysid = GetSystemIdentifier();
	if (RecoveryInProgress())
	{
		TimeLineID	tli;

		t->lsn = GetXLogReplayRecPtr(&tli);
		t->tli = tli;
	}
	else
	{
		t->lsn = GetXLogInsertRecPtr();
		t->tli = pgbf_insert_timeline();
	}
	t->dboid = MyDatabaseId;
	t->indexoid = RelationGetRelid(index);
	t->filenumber = pgbf_rel_file_number(index);
}

/* the client's token still names these pages, at a position reached */
static bool
token_applies(const SyncToken *old, const SyncToken *now)
{
	return old->sysid == now->sysid && old->tli == now->tli &&
		old->dboid == now->dboid && old->indexoid == now->indexoid &&
		old->filenumber == now->filenumber && old->lsn <= now->lsn;
}

/*
 * bloom_index_sync(index regclass, token text DEFAULT NULL)
 *		RETURNS TABLE (token text, resync boolean, blkno bigint, page bytea)
 */
PG_FUNCTION_INFO_V1(bloom_index_sync);
Datum
bloom_index_sync(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			indexoid;
	List	   *indexes;
	Relation	index;
	TupleDesc	tupdesc;
	Tuplestorestate *store;
	MemoryContext old;
	SyncToken	now,
				since = {0};
	bool		resync,
				by_lsn;
	text	   *token;
	BlockNumber nblocks;
	BufferAccessStrategy strategy;
	bytea	   *page;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		(rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloom_index_sync cannot return its set in this context")));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the index to sync must not be NULL")));
	indexoid = PG_GETARG_OID(0);
	if (!PG_ARGISNULL(1))
		token_parse(text_to_cstring(PG_GETARG_TEXT_PP(1)), &since);
	indexes = bfidx_open_filter_indexes(indexoid);
	if (bfidx_names_partitioned(indexes, indexoid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot sync a partitioned index"),
				 errhint("Sync the index of each partition.")));
	index = (Relation) linitial(indexes);

	/* the position first, then the pages (see the top of the file) */
	token_now(index, &now);
	by_lsn = RelationNeedsWAL(index);
	if (!by_lsn)
		now.lsn = InvalidXLogRecPtr;
	resync = PG_ARGISNULL(1) || !token_applies(&since, &now);
	token = cstring_to_text(token_text(&now));

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_index_sync: return type must be a row type");
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	tupdesc = CreateTupleDescCopy(tupdesc);
	store = tuplestore_begin_heap(true, false, work_mem);
	MemoryContextSwitchTo(old);

	nblocks = RelationGetNumberOfBlocks(index);
	strategy = GetAccessStrategy(BAS_BULKREAD);
	page = (bytea *) palloc(VARHDRSZ + BLCKSZ);
	SET_VARSIZE(page, VARHDRSZ + BLCKSZ);
	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		p;
		bool		send;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		if (blk % BFIDX_PAGES_PER_CHECK == 0)
			CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		p = BufferGetPage(buf);
		/* a page never written is zeros, as a replica's missing page */
		send = blk == BFIDX_META_BLKNO ||
			(!PageIsNew(p) && (resync || !by_lsn || BufferGetLSNAtomic(buf) > since.lsn));
		if (send)
			memcpy(VARDATA(page), p, BLCKSZ);
		UnlockReleaseBuffer(buf);
		if (!send)
			continue;
		values[0] = PointerGetDatum(token);
		values[1] = BoolGetDatum(resync);
		values[2] = Int64GetDatum((int64) blk);
		values[3] = PointerGetDatum(page);
		old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
		tuplestore_putvalues(store, tupdesc, values, nulls);
		MemoryContextSwitchTo(old);
	}
	FreeAccessStrategy(strategy);
	bfidx_close_filter_indexes(indexes);

	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = store;
	rsinfo->setDesc = tupdesc;
	return (Datum) 0;
}
