/*
 * bloomindex_probe.c
 *		The bloomfilter index's SQL functions (bloom_hash, bloom_hashes,
 *		the probes, bloom_index_absent), the checks every one of them
 *		makes before reading an index (bloomindex_info.c's too), and the
 *		probe scan's side (bloomindex.h).
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "bloomindex_int.h"

/*
 * A probe's handle on an index (the probe scan's, and the probe
 * functions'): every leaf index open, its stages as they were when opened (a stage is added before anything goes into
 * it, so an element added before the scan began is in one of them).
 */
struct PgbfIndexProbe
{
	int			nleaves;
	Relation   *leaves;
	BfIdxMeta  *metas;
	uint64		seed;
	bool		module_hash;	/* every leaf hashes as the module does, with seed */
};

static PgbfIndexProbe *probe_open(Oid indexoid, Oid elemtype, bool for_scan);

/* PgbfProbeMany's form of pgbf_index_probe_many, for the glue's array probe */
static void
probe_many_cb(const void *p, const uint64 *h, size_t n, bool *out)
{
	pgbf_index_probe_many((const PgbfIndexProbe *) p, h, n, out);
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
 * bloom_hash_identity(h, seed): support 1 of bloomfilter_hash_ops, whose
 * elements are bloom_hash values made with seed 0.  An index's seed is 0;
 * another seed would mean the elements were hashed for something else.
 */
PG_FUNCTION_INFO_V1(bloom_hash_identity);
Datum
bloom_hash_identity(PG_FUNCTION_ARGS)
{
	if (PGBF_GETARG_OR(1, PG_GETARG_INT64, 0) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_hash_identity takes only seed 0"),
				 errdetail("Its elements are bloom_hash values made with seed 0, as a bloomfilter index hashes.")));
	PG_RETURN_INT64(PG_GETARG_INT64(0));
}

/*
 * bloom_hashes(packed): the bloom_hash values in packed, 8 bytes each in
 * network byte order (as int8send writes a bigint), as a bigint[].  A
 * driver that sends its parameters only as text (psycopg2) sends a
 * batch of hashes as a bytea this way: decoding 16 kB of hex and copying
 * costs the server a fraction of parsing 1,000 numbers.
 */
PG_FUNCTION_INFO_V1(bloom_hashes);
Datum
bloom_hashes(PG_FUNCTION_ARGS)
{
	bytea	   *packed = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(packed);
	Size		len = VARSIZE_ANY_EXHDR(packed);
	Size		n = len / sizeof(int64),
				nbytes = ARR_OVERHEAD_NONULLS(1) + n * sizeof(int64);
	ArrayType  *result;
	int64	   *out;

	if (len % sizeof(int64) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("packed hashes must be a multiple of 8 bytes, not %zu bytes", len)));
	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT8OID));
	/* within MaxAllocSize, n is within MaxArraySize too */
	if (!AllocSizeIsValid(nbytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("packed hashes of %zu bytes make an array larger than the maximum", len)));
	result = palloc(nbytes);
	SET_VARSIZE(result, nbytes);
	result->ndim = 1;
	result->dataoffset = 0;
	result->elemtype = INT8OID;
	ARR_DIMS(result)[0] = (int) n;
	ARR_LBOUND(result)[0] = 1;
	out = (int64 *) ARR_DATA_PTR(result);
	for (Size i = 0; i < n; i++)
	{
		uint64		v;

		bfidx_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		memcpy(&v, p + i * sizeof(int64), sizeof(v));
		out[i] = (int64) pg_ntoh64(v);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}

/* a bloomfilter index, or a partitioned one */
static bool
is_filter_index(Relation rel)
{
	return (rel->rd_rel->relkind == RELKIND_INDEX ||
			rel->rd_rel->relkind == RELKIND_PARTITIONED_INDEX) &&
		rel->rd_indam != NULL && rel->rd_indam->aminsert == bfidx_insert;
}

/* the index argument (argument 0) of a probe: an error when NULL */
static Oid
index_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the index to probe must not be NULL")));
	return PG_GETARG_OID(0);
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

/* the caller may read every row of the table index indexes (below) */
static void
check_readable(Relation index)
{
	Oid			heapoid = index->rd_index->indrelid;
	AclResult	acl;

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
List *
bfidx_open_filter_indexes(Oid indexoid)
{
	Relation	index;
	List	   *out = NIL;

	/* a dropped index's OID, or 0, is the user's mistake, not ours */
	index = try_relation_open(indexoid, AccessShareLock);
	if (index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("index with OID %u does not exist", indexoid)));
	if (!is_filter_index(index))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a bloomfilter index", RelationGetRelationName(index))));
	check_readable(index);
	check_index_valid(index, index);
	if (index->rd_rel->relkind == RELKIND_INDEX)
	{
		bfidx_flush_pending(indexoid);
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
				bfidx_flush_pending(oid);
				out = lappend(out, leaf);
			}
			else
				index_close(leaf, AccessShareLock);
		}
	}
	relation_close(index, AccessShareLock);
	return out;
}

/* did the index argument indexoid, opened as indexes, name a partitioned index? */
bool
bfidx_names_partitioned(List *indexes, Oid indexoid)
{
	return list_length(indexes) != 1 || ((Relation) linitial(indexes))->rd_id != indexoid;
}

void
bfidx_close_filter_indexes(List *indexes)
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
 * found[i] |= whether items[i] is in the index p opened (any leaf of a
 * partitioned one), for each i with neither skip[i] (skip may be NULL)
 * nor found[i] set already, each leaf hashing with its own support
 * function.  known (or NULL): items' hashes as element kind known_kind
 * (a PgbfElem, or BFIDX_KIND_IDENTITY) hashes them with the default
 * seed, used for a leaf whose support function and seed are those.
 * note: keep the hashes found absent for the transaction's adds
 * (bfidx_note_absent).
 */
static void
probe_leaves(const PgbfIndexProbe *p, const Datum *items, const bool *skip, int count,
			 bool *found, const uint64 *known, int known_kind, bool note)
{
	for (int l = 0; l < p->nleaves; l++)
	{
		Relation	index = p->leaves[l];
		const BfIdxMeta *meta = &p->metas[l];
		BfIdxHasher hs;
		uint64	   *h = palloc_extended(sizeof(uint64) * Max(count, 1), MCXT_ALLOC_HUGE);
		bool	   *f = palloc0(sizeof(bool) * Max(count, 1));
		int			m = 0;
		bool		reuse;

		bfidx_hasher_init(&hs, index, meta->seed);
		/* hashes the caller made as this index makes them are not made again */
		reuse = known != NULL && hs.kind == known_kind && hs.seed == BF_DEFAULT_SEED;

		for (int i = 0; i < count; i++)
		{
			bfidx_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
			if (!(skip && skip[i]) && !found[i])
				h[m++] = reuse ? known[i] : bfidx_hash_one(&hs, items[i]);
		}
		bfidx_contains_hashes(index, meta, h, m, f);
		if (note)
			bfidx_note_absent(index, h, f, m, meta->nstages);
		m = 0;
		for (int i = 0; i < count; i++)
			if (!(skip && skip[i]) && !found[i])
				found[i] = f[m++];
		pfree(h);
		pfree(f);
	}
}

/*
 * A scalar bloom_index_contains is called once a row (WHERE NOT
 * bloom_index_contains(idx, u)), and opening, checking and reading the
 * index's metapage cost more than the probe.  Its call site (fn_extra)
 * keeps, for a plain index, what cannot change while the lock the first
 * call took is held: the index's file (a REINDEX or TRUNCATE gives it a
 * new one, and the call then opens it afresh), its hasher, and its
 * metapage (stages are only added, and a stage's descriptor never
 * changes).  That lock is kept to the transaction's end, as the executor
 * keeps those of the relations it reads; a site filled in a
 * (sub)transaction that has ended since (probe_generation) is filled
 * again.
 *
 * The privilege and row-level security checks, and the stage count
 * (whether the copy of the metapage is whole), are made again when the
 * call sees the index otherwise than the last one did: as another user,
 * under another snapshot, or after adds this backend made since.  Under
 * one snapshot the stages another transaction adds hold nothing the
 * snapshot sees: a transaction's adds are made before it commits, so
 * what it added is in the stages there were when a snapshot that sees it
 * was taken.  Two snapshots with the same xmin, xmax, command and running
 * transactions, in the same order, see the same (no transaction ended
 * between them); one with more than SITE_MAX_XIDS running is taken as
 * another.  The validity check is made every call.  A partitioned index
 * is opened every call: a partition can be attached between two.
 */
#define SITE_MAX_XIDS 256

typedef struct ProbeSite
{
	Oid			indexoid;		/* InvalidOid: nothing kept */
	Oid			elemtype;
	uint64		generation;
	Oid			file;
	BfIdxHasher hs;				/* but its proc, looked up each call */
	BfIdxMeta	meta;
	/* how the last call saw the index (userid InvalidOid: unknown) */
	Oid			userid;
	uint64		add_calls;
	TransactionId xmin;
	TransactionId xmax;
	CommandId	curcid;
	uint32		xcnt;
	int32		subxcnt;
	bool		suboverflowed;
	TransactionId xids[SITE_MAX_XIDS];	/* xip, then subxip */
} ProbeSite;

/* whether this call sees the index as site's last did; if not, note how it does */
static bool
site_same_view(ProbeSite *site)
{
	Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;
	bool		same;

	if (snap == NULL || snap->snapshot_type != SNAPSHOT_MVCC || snap->subxcnt < 0 ||
		(uint64) snap->xcnt + (uint64) snap->subxcnt > SITE_MAX_XIDS)
	{
		site->userid = InvalidOid;
		return false;
	}
	same = site->userid == GetUserId() && site->add_calls == bfidx_add_calls &&
		site->xmin == snap->xmin && site->xmax == snap->xmax &&
		site->curcid == snap->curcid && site->xcnt == snap->xcnt &&
		site->subxcnt == snap->subxcnt && site->suboverflowed == snap->suboverflowed &&
		(snap->xcnt == 0 ||
		 memcmp(site->xids, snap->xip, sizeof(TransactionId) * snap->xcnt) == 0) &&
		(snap->subxcnt == 0 ||
		 memcmp(site->xids + snap->xcnt, snap->subxip,
				sizeof(TransactionId) * snap->subxcnt) == 0);
	if (!same)
	{
		site->userid = GetUserId();
		site->add_calls = bfidx_add_calls;
		site->xmin = snap->xmin;
		site->xmax = snap->xmax;
		site->curcid = snap->curcid;
		site->xcnt = snap->xcnt;
		site->subxcnt = snap->subxcnt;
		site->suboverflowed = snap->suboverflowed;
		if (snap->xcnt > 0)
			memcpy(site->xids, snap->xip, sizeof(TransactionId) * snap->xcnt);
		if (snap->subxcnt > 0)
			memcpy(site->xids + snap->xcnt, snap->subxip, sizeof(TransactionId) * snap->subxcnt);
	}
	return same;
}

/* bumped when a transaction or subtransaction ends, releasing locks */
static uint64 probe_generation = 1;

void
bfidx_probe_xact_callback(XactEvent event, void *arg)
{
	probe_generation++;
}

void
bfidx_probe_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		probe_generation++;
}

/* whether item is in the index indexoid, the kept site's way when it can */
static bool
site_contains(FunctionCallInfo fcinfo, Oid indexoid, Oid elemtype, Datum item)
{
	ProbeSite  *site = (ProbeSite *) fcinfo->flinfo->fn_extra;
	PgbfIndexProbe *p;
	Relation	index;
	bool		found = false;

	if (site == NULL)
	{
		site = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ProbeSite));
		fcinfo->flinfo->fn_extra = site;
	}
	if (site->indexoid == indexoid && site->elemtype == elemtype &&
		site->generation == probe_generation &&
		(index = RelationIdGetRelation(indexoid)) != NULL)
	{
		if (pgbf_rel_file_number(index) == site->file)
		{
			BfIdxHasher hs = site->hs;
			uint64		h;

			check_index_valid(index, index);
			bfidx_flush_pending(indexoid);
			if (!site_same_view(site))
			{
				check_readable(index);
				if (bfidx_meta_nstages(index) != site->meta.nstages)
					bfidx_read_meta(index, &site->meta);
			}
			if (hs.kind < 0)
				hs.proc = index_getprocinfo(index, 1, 1);
			h = bfidx_hash_one(&hs, item);
			bfidx_contains_hashes(index, &site->meta, &h, 1, &found);
			RelationClose(index);
			return found;
		}
		RelationClose(index);
	}

	site->indexoid = InvalidOid;
	p = probe_open(indexoid, elemtype, false);
	probe_leaves(p, &item, NULL, 1, &found, NULL, -1, false);
	if (p->nleaves == 1 && RelationGetRelid(p->leaves[0]) == indexoid)
	{
		index = p->leaves[0];
		site->elemtype = elemtype;
		site->generation = probe_generation;
		site->file = pgbf_rel_file_number(index);
		bfidx_hasher_init(&site->hs, index, p->metas[0].seed);
		site->meta = p->metas[0];
		site->indexoid = indexoid;
		(void) site_same_view(site);
		/* the lock stays: the site's next calls read the index under it */
		index_close(index, NoLock);
	}
	else
		pgbf_index_probe_close(p);
	return found;
}

/* bloom_index_contains(index, x) */
static Datum
index_contains_elem(FunctionCallInfo fcinfo, PgbfElem kind)
{
	Oid			indexoid = index_arg(fcinfo);

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	PG_RETURN_BOOL(site_contains(fcinfo, indexoid, get_fn_expr_argtype(fcinfo->flinfo, 1),
								 PG_GETARG_DATUM(1)));
}

/*
 * defines bloom_index_contains_text, bloom_index_contains_int8 and
 * bloom_index_contains_uuid: entry points by element kind, as the other
 * probes have, so the probe scan knows them by name; the answer does not
 * depend on the kind (the index's own support function hashes the
 * element)
 */
PGBF_ELEM_ENTRY_POINTS(bloom_index_contains, index_contains_elem)

/* bloom_index_contains(index, xs[]) */
PG_FUNCTION_INFO_V1(bloom_index_contains_array);
Datum
bloom_index_contains_array(PG_FUNCTION_ARGS)
{
	Oid			elemtype = get_element_type(get_fn_expr_argtype(fcinfo->flinfo, 1));
	Oid			indexoid = index_arg(fcinfo);
	PgbfIndexProbe *p;
	ArrayType  *arr;
	Datum	   *items;
	bool	   *nulls;
	bool	   *found;
	Datum	   *out;
	int			count;
	int16		len;
	bool		byval;
	char		align;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	p = probe_open(indexoid, elemtype, false);

	/* as every array probe: the glue hashes the items in place */
	if (p->module_hash)
	{
		Datum		result = pgbf_contains_array(fcinfo, 1, p, p->seed, probe_many_cb);

		pgbf_index_probe_close(p);
		return result;
	}
	arr = PG_GETARG_ARRAYTYPE_P(1);
	get_typlenbyvalalign(elemtype, &len, &byval, &align);
	deconstruct_array(arr, elemtype, len, byval, align, &items, &nulls, &count);
	found = palloc0(sizeof(bool) * Max(count, 1));
	probe_leaves(p, items, nulls, count, found, NULL, -1, false);
	pgbf_index_probe_close(p);

	if (ARR_NDIM(arr) == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(BOOLOID));
	out = palloc(sizeof(Datum) * Max(count, 1));
	for (int i = 0; i < count; i++)
		out[i] = BoolGetDatum(found[i]);
	PG_RETURN_ARRAYTYPE_P(construct_md_array(out, nulls, ARR_NDIM(arr), ARR_DIMS(arr),
											 ARR_LBOUND(arr), BOOLOID, 1, true, TYPALIGN_CHAR));
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

	Oid			indexoid = index_arg(fcinfo);
	PgbfIndexProbe *p;
	int			dedup_kind = (int) kind;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	elemtype = get_element_type(elemtype);
	arr = PG_GETARG_ARRAYTYPE_P(1);
	get_typlenbyvalalign(elemtype, &len, &byval, &align);
	deconstruct_array(arr, elemtype, len, byval, align, &items, &nulls, &count);
	p = probe_open(indexoid, elemtype, false);

	/*
	 * An index of bloom_hash values (bloomfilter_hash_ops) takes each item
	 * as its hash: the items are told apart by it, and probed with it,
	 * rather than hashed once more only to be told apart
	 */
	if (kind == PGBF_ELEM_INT8 && p->nleaves == 1)
	{
		BfIdxHasher hs;

		bfidx_hasher_init(&hs, p->leaves[0], p->metas[0].seed);
		if (hs.kind == BFIDX_KIND_IDENTITY)
			dedup_kind = BFIDX_KIND_IDENTITY;
	}

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

		bfidx_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		if (nulls[i])
		{
			found[i] = true;
			continue;
		}
		dh[i] = dedup_kind == BFIDX_KIND_IDENTITY ? (uint64) DatumGetInt64(items[i]) :
			pgbf_hash_datum(items[i], kind, BF_DEFAULT_SEED);
		for (at = dh[i] & mask; slots[at] != 0; at = (at + 1) & mask)
			if (dh[slots[at] - 1] == dh[i])
				break;
		if (slots[at] == 0)
			slots[at] = i + 1;
		else
			found[i] = true;
	}
	pfree(slots);

	probe_leaves(p, items, NULL, count, found, dh, dedup_kind, true);
	pgbf_index_probe_close(p);

	out = palloc(sizeof(Datum) * Max(count, 1));
	for (int i = 0; i < count; i++)
		if (!found[i])
			out[nout++] = items[i];
	if (nout == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nout, elemtype, len, byval, align));
}

/*
 * defines bloom_index_absent_text, bloom_index_absent_int8 and bloom_index_absent_uuid
 */
PGBF_ELEM_ENTRY_POINTS(bloom_index_absent, index_absent_elem)


/* a leaf's support function is the module's bloom_hash for its kind */
static bool
leaf_hashes_as_module(Relation index)
{
	BfIdxHasher hs;

	bfidx_hasher_init(&hs, index, BF_DEFAULT_SEED);
	return hs.kind >= 0;
}

bool
pgbf_index_hashes_as_module(Oid indexoid)
{
	Relation	index = try_relation_open(indexoid, AccessShareLock);
	bool		own;

	if (index == NULL)
		return true;
	/*
	 * A partitioned index's own support function is its leaves': an index
	 * attaches only in the same operator family, which holds one support
	 * function 1 for the type
	 */
	own = !is_filter_index(index) || leaf_hashes_as_module(index);
	relation_close(index, AccessShareLock);
	return own;
}

PgbfIndexProbe *
pgbf_index_probe_open(Oid indexoid, Oid elemtype)
{
	return probe_open(indexoid, elemtype, true);
}

/*
 * The probe's leaves opened, checked as for bloom_index_contains; for the
 * scan, which hashes as the module does, refused unless every leaf does
 */
static PgbfIndexProbe *
probe_open(Oid indexoid, Oid elemtype, bool for_scan)
{
	List	   *indexes = bfidx_open_filter_indexes(indexoid);
	PgbfIndexProbe *p = palloc0(sizeof(PgbfIndexProbe));
	ListCell   *lc;
	int			i = 0;

	p->module_hash = true;
	p->nleaves = list_length(indexes);
	p->leaves = palloc(sizeof(Relation) * Max(p->nleaves, 1));
	p->metas = palloc(sizeof(BfIdxMeta) * Max(p->nleaves, 1));
	foreach(lc, indexes)
	{
		Relation	index = (Relation) lfirst(lc);
		bool		own_fn;
		bool		same_seed;

		p->leaves[i] = index;
		check_elem_type(index, elemtype);
		own_fn = leaf_hashes_as_module(index);
		if (for_scan && !own_fn)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the probe scan cannot probe index \"%s\": its operator class hashes with a function of its own",
							RelationGetRelationName(index)),
					 errhint("Name the index by a constant, or plan the query with bloomfilter.enable_probe_scan = off: then bloom_index_contains probes it.")));
		bfidx_read_meta(index, &p->metas[i]);
		if (i == 0)
			p->seed = p->metas[0].seed;
		same_seed = p->metas[i].seed == p->seed;
		if (for_scan && !same_seed)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the partitions' bloomfilter indexes of \"%s\" hash with different seeds",
							get_rel_name(indexoid))));
		p->module_hash = p->module_hash && own_fn && same_seed;
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
		bfidx_contains_hashes(p->leaves[i], &p->metas[i], h, (int) n, out);
}

void
pgbf_index_probe_close(PgbfIndexProbe *p)
{
	for (int i = 0; i < p->nleaves; i++)
		index_close(p->leaves[i], AccessShareLock);
	p->nleaves = 0;
}
