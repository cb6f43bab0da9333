/*
 * funcs.c
 *		The extension's functions that the scans answer (the row probes,
 *		url_normalize) or stand in for (the self-sizing and sized
 *		aggregates), known by catalog OID.
 *
 * A function is one of them when it is a member of the bloomfilter
 * extension (pg_depend, deptype 'e') and has one of the names and shapes
 * below; the schema does not matter, and a user's function of the same
 * name outside the extension is not one, nor is a user's aggregate made of
 * the extension's support functions.  The map is built on first use and
 * dropped at any invalidation of pg_proc (CREATE, ALTER or DROP
 * EXTENSION all change pg_proc): a later use builds it again.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "funcs.h"

static const struct
{
	const char *name;
	PgbfFuncRole role;
	const PgbfTypeOps *ops;
}			known_functions[] = {
	{"bloom_contains", PGBF_FN_CONTAINS, &pgbf_bloom_ops},
	{"bloom_contained", PGBF_FN_CONTAINED, &pgbf_bloom_ops},
	{"counting_bloom_contains", PGBF_FN_CONTAINS, &pgbf_counting_ops},
	{"counting_bloom_contained", PGBF_FN_CONTAINED, &pgbf_counting_ops},
	{"cuckoo_contains", PGBF_FN_CONTAINS, &pgbf_cuckoo_ops},
	{"cuckoo_contained", PGBF_FN_CONTAINED, &pgbf_cuckoo_ops},
	{"bloom_index_contains", PGBF_FN_INDEX_CONTAINS, NULL},
	{"url_normalize", PGBF_FN_URL_NORMALIZE, NULL},
	{"bloom_agg", PGBF_FN_AGG, &pgbf_bloom_ops},
	{"counting_bloom_agg", PGBF_FN_AGG, &pgbf_counting_ops},
	{"cuckoo_agg", PGBF_FN_AGG, &pgbf_cuckoo_ops},
};

typedef struct FuncEntry
{
	Oid			funcid;			/* hash key */
	PgbfFuncInfo info;
} FuncEntry;

static HTAB *func_map = NULL;
static MemoryContext func_cxt = NULL;

/* bumped by every pg_proc invalidation: a map built across one is stale */
static uint64 func_map_generation = 0;
static uint64 func_map_built_at = 0;

/* the element kind of a scalar element type, or false */
static bool
elem_kind(Oid typid, PgbfElem *kind)
{
	switch (typid)
	{
		case TEXTOID:
		case BYTEAOID:
			*kind = PGBF_ELEM_BYTES;
			return true;
		case INT8OID:
			*kind = PGBF_ELEM_INT8;
			return true;
		case UUIDOID:
			*kind = PGBF_ELEM_UUID;
			return true;
	}
	return false;
}

/* what proc is, by its name and shape */
static PgbfFuncInfo
classify(Form_pg_proc proc)
{
	PgbfFuncInfo info = {0};
	int			nargs = proc->pronargs;
	const Oid  *args = proc->proargtypes.values;

	for (int i = 0; i < lengthof(known_functions); i++)
	{
		PgbfFuncRole role = known_functions[i].role;
		bool		ok = false;

		if (strcmp(NameStr(proc->proname), known_functions[i].name) != 0)
			continue;
		switch (role)
		{
			case PGBF_FN_CONTAINS:
			case PGBF_FN_CONTAINED:
			case PGBF_FN_INDEX_CONTAINS:
				ok = proc->prokind == PROKIND_FUNCTION && !proc->proretset &&
					nargs == 2 && proc->prorettype == BOOLOID &&
					elem_kind(args[role == PGBF_FN_CONTAINED ? 0 : 1], &info.kind) &&
					(role != PGBF_FN_INDEX_CONTAINS || args[0] == REGCLASSOID);
				break;
			case PGBF_FN_URL_NORMALIZE:
				ok = proc->prokind == PROKIND_FUNCTION && !proc->proretset &&
					nargs == 1 && args[0] == TEXTOID && proc->prorettype == TEXTOID;
				break;
			case PGBF_FN_AGG:
				ok = proc->prokind == PROKIND_AGGREGATE && nargs >= 1 && nargs <= 3 &&
					elem_kind(args[0], &info.kind);
				break;
			case PGBF_FN_NONE:
				break;
		}
		if (ok)
		{
			info.role = role;
			info.ops = known_functions[i].ops;
			info.nargs = nargs;
		}
		break;
	}
	return info;
}

static void
func_map_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	func_map_generation++;
}

/* a map of the extension's functions that are one of the known ones */
static HTAB *
func_map_build(void)
{
	HTAB	   *map;
	Oid			extoid = get_extension_oid("bloomfilter", true);
	HASHCTL		ctl;
	Relation	dep;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;

	if (func_cxt == NULL)
		func_cxt = AllocSetContextCreate(CacheMemoryContext, "bloomfilter functions",
										 ALLOCSET_SMALL_SIZES);
	MemoryContextReset(func_cxt);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(FuncEntry);
	ctl.hcxt = func_cxt;
	map = hash_create("bloomfilter functions", 256, &ctl,
					  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	if (!OidIsValid(extoid))
		return map;

	dep = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ExtensionRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);
		HeapTuple	ptup;
		PgbfFuncInfo info;

		if (d->classid != ProcedureRelationId || d->deptype != DEPENDENCY_EXTENSION)
			continue;
		ptup = SearchSysCache1(PROCOID, ObjectIdGetDatum(d->objid));
		if (!HeapTupleIsValid(ptup))
			continue;
		info = classify((Form_pg_proc) GETSTRUCT(ptup));
		ReleaseSysCache(ptup);
		if (info.role != PGBF_FN_NONE)
		{
			FuncEntry  *e = hash_search(map, &d->objid, HASH_ENTER, NULL);

			e->info = info;
		}
	}
	systable_endscan(scan);
	table_close(dep, AccessShareLock);
	return map;
}

PgbfFuncInfo
pgbf_func_info(Oid funcid)
{
	PgbfFuncInfo none = {0};
	FuncEntry  *e;

	/*
	 * Built again until no invalidation arrived while it was being built
	 * (reading the catalogs processes pending ones)
	 */
	while (func_map == NULL || func_map_built_at != func_map_generation)
	{
		uint64		generation = func_map_generation;

		func_map = NULL;
		func_map = func_map_build();
		func_map_built_at = generation;
	}
	e = hash_search(func_map, &funcid, HASH_FIND, NULL);
	return e != NULL ? e->info : none;
}

void
pgbf_funcs_init(void)
{
	CacheRegisterSyscacheCallback(PROCOID, func_map_invalidate, (Datum) 0);
}
