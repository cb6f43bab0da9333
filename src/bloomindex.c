/*
 * bloomindex.c
 *		The bloomfilter index access method's handler: its options, the
 *		callbacks that do little (vacuum, cost, scans), amvalidate, and
 *		the module init's part.  bloomindex_int.h lists the other files.
 */
#include "postgres.h"

#include <math.h>

#include "access/amvalidate.h"
#include "access/reloptions.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "nodes/pathnodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "bloomindex_int.h"

/* ---- options ---- */

static relopt_kind bfidx_relopt_kind;

void
pgbf_index_init(void)
{
	RegisterXactCallback(bfidx_pending_xact_callback, NULL);
	RegisterXactCallback(bfidx_probe_xact_callback, NULL);
	RegisterSubXactCallback(bfidx_probe_subxact_callback, NULL);
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
void
bfidx_check_options(const BfIdxOptions *opts)
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
		bfidx_check_options(opts);
	return (bytea *) opts;
}

void
bfidx_get_options(Relation index, BfIdxOptions *opts)
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
#ifdef PGBF_PARALLEL_BUILD
	am->amcanbuildparallel = true;
#endif
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
	am->ambuildphasename = bfidx_buildphasename;
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
