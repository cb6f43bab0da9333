/*
 * scan.c
 *		The probe scan: a sequential scan of a table that answers one
 *		bloom_contains-style qual a heap page at a time.
 *
 * A row-at-a-time probe of a filter bigger than the CPU's caches waits for
 * a cache miss on every row, and nothing overlaps that wait: the executor
 * needs the answer before it reads the next row.  The array probes
 * (bloom_contains(f, xs[])) overlap those misses by loading ahead.  This
 * scan gives a plain scan the same: when it comes to a new heap page it
 * hashes the element of every visible tuple on the page, answers them all
 * at once with the type's array-probe core, and then returns the page's
 * tuples that pass, in order, through the usual ExecScan (other quals,
 * projection).
 *
 * Where it applies (pscan_rel_pathlist): a SELECT without row locks, a plain
 * table (or materialized view) scanned whole, and a qual
 *
 *     [NOT] contains(filter, column)    or the operators @> and <@
 *
 * where contains is bloom_contains, counting_bloom_contains or
 * cuckoo_contains (text, bytea, bigint or uuid elements), column is a
 * column of the table (a binary-compatible cast of one, such as varchar to
 * text, an integer or smallint column cast to bigint, and url_normalize of
 * one included), and filter does not depend on the row: a constant, a
 * parameter, a scalar subquery, or (for the inner side of a nested loop)
 * a column of the outer row.  The scan is offered beside the plain
 * sequential scan, a little cheaper; bloomfilter.enable_probe_scan = off
 * turns it off.  Where a Parallel Seq Scan is offered, so is a parallel-
 * aware probe scan: its participants share one parallel table scan, and
 * each answers the pages it is handed.
 *
 * Answers are the function's own: the same detoast cache and the same
 * hashes as the function, and the array-probe cores, which the regression
 * tests hold to the row-at-a-time answers.  A NULL element fails the qual,
 * as the function's NULL does, negated or not.  A NULL filter contains
 * nothing, as the function says: no row passes the qual, and every row
 * with a non-NULL element passes its negation.  The module also serves the
 * 1.0 catalog, whose probe functions are STRICT: their answer for a NULL
 * filter is NULL, which no row passes either way, so the plan records
 * whether the function is STRICT.  A tuple the page pass did not see
 * (another table access method, a scan that is not page-at-a-time) is
 * answered from its slot, one at a time.
 */
#include "postgres.h"

#include "pg_compat.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "bloomindex.h"
#include "funcs.h"
#include "heappage.h"
#include "scan.h"
#include "url.h"

#define PROBE_SCAN_NAME "BloomProbeScan"

static bool enable_probe_scan = true;
static set_rel_pathlist_hook_type prev_rel_pathlist_hook = NULL;

/* ---- the functions the scan answers ---- */

/* the probe's filter type, as the plan records it */
typedef enum ProbeType
{
	PROBE_BLOOM,
	PROBE_COUNTING,
	PROBE_CUCKOO,
	PROBE_INDEX					/* bloom_index_contains(index, x) */
} ProbeType;

static const PgbfTypeOps *const probe_type_ops[] = {
	[PROBE_BLOOM] = &pgbf_bloom_ops,
	[PROBE_COUNTING] = &pgbf_counting_ops,
	[PROBE_CUCKOO] = &pgbf_cuckoo_ops,
	[PROBE_INDEX] = NULL,
};

/*
 * Is funcid one of the extension's row probes?  Then its type, element
 * kind and which argument is the filter.
 */
static bool
probe_function(Oid funcid, ProbeType *type, PgbfElem *kind, int *filter_arg)
{
	PgbfFuncInfo info = pgbf_func_info(funcid);

	switch (info.role)
	{
		case PGBF_FN_CONTAINS:
		case PGBF_FN_CONTAINED:
			for (int t = 0; t < lengthof(probe_type_ops); t++)
				if (probe_type_ops[t] == info.ops && info.ops != NULL)
					*type = (ProbeType) t;
			*filter_arg = info.role == PGBF_FN_CONTAINED ? 1 : 0;
			break;
		case PGBF_FN_INDEX_CONTAINS:
			*type = PROBE_INDEX;
			*filter_arg = 0;
			break;
		default:
			return false;
	}
	*kind = info.kind;
	return true;
}

/* e under any binary-compatible casts */
static Node *
strip_relabel(Node *e)
{
	while (e && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	return e;
}

/*
 * The column under a binary-compatible cast, under the implicit cast of an
 * integer or smallint column to bigint (int48, int28: they cannot fail),
 * or under this module's url_normalize (never an error either), if that
 * is what e is.  *elem then says how the page pass makes the function's
 * element of the column's value: ELEM_COLUMN (as it is), ELEM_INT4 /
 * ELEM_INT2 (the bigint the cast makes), ELEM_URL (normalized).
 */
Var *
pgbf_element_column(Node *e, Index relid, int *elem)
{
	*elem = ELEM_COLUMN;
	e = strip_relabel(e);
	if (e && IsA(e, FuncExpr) && list_length(((FuncExpr *) e)->args) == 1)
	{
		Oid			funcid = ((FuncExpr *) e)->funcid;

		if (funcid == F_INT8_INT4)
			*elem = ELEM_INT4;
		else if (funcid == F_INT8_INT2)
			*elem = ELEM_INT2;
		else if (pgbf_func_info(funcid).role == PGBF_FN_URL_NORMALIZE)
			*elem = ELEM_URL;
		else
			return NULL;
		e = strip_relabel(linitial(((FuncExpr *) e)->args));
	}
	if (e && IsA(e, Var))
	{
		Var		   *v = (Var *) e;

		if ((relid == 0 || v->varno == relid) && v->varlevelsup == 0 && v->varattno > 0)
			return v;
	}
	return NULL;
}


/*
 * The probe in clause, if it is one this scan can answer for rel: then
 * *filter (the filter argument), *column, and the rest.  The filter must
 * not read rel's row, call anything volatile or hold a subplan: it is
 * evaluated once per scan (per outer row, inside a nested loop).
 */
typedef struct ProbeQual
{
	RestrictInfo *rinfo;
	Expr	   *filter;
	Var		   *column;
	int			elem;			/* element_column's */
	ProbeType	type;
	PgbfElem	kind;
	bool		negate;
	bool		strict;			/* the function is STRICT (the 1.0 catalog's) */
	Oid			elemtype;		/* the function's element argument's type */
} ProbeQual;

static bool
match_probe_qual(PlannerInfo *root, RelOptInfo *rel, RestrictInfo *rinfo, ProbeQual *q)
{
	Node	   *clause = (Node *) rinfo->clause;
	Oid			funcid;
	List	   *args;
	int			filter_arg;
	Node	   *filter;
	Relids		varnos;

	q->negate = false;
	if (is_notclause(clause))
	{
		q->negate = true;
		clause = (Node *) get_notclausearg((Expr *) clause);
	}
	if (IsA(clause, FuncExpr))
	{
		funcid = ((FuncExpr *) clause)->funcid;
		args = ((FuncExpr *) clause)->args;
	}
	else if (IsA(clause, OpExpr))
	{
		set_opfuncid((OpExpr *) clause);
		funcid = ((OpExpr *) clause)->opfuncid;
		args = ((OpExpr *) clause)->args;
	}
	else
		return false;
	if (list_length(args) != 2 || !probe_function(funcid, &q->type, &q->kind, &filter_arg))
		return false;
	q->strict = func_strict(funcid);
	q->elemtype = exprType(list_nth(args, 1 - filter_arg));
	q->column = pgbf_element_column(list_nth(args, 1 - filter_arg), rel->relid, &q->elem);
	if (q->column == NULL)
		return false;
	filter = list_nth(args, filter_arg);
	varnos = pull_varnos(root, filter);
	if (bms_is_member(rel->relid, varnos) || contain_volatile_functions(filter) ||
		contain_subplans(filter))
		return false;
	/*
	 * The scan hashes each element as the module does; an index whose
	 * operator class hashes with a function of its own is probed by the
	 * function (an index named by a parameter is checked when the scan
	 * opens it, which refuses such an index)
	 */
	if (q->type == PROBE_INDEX && IsA(filter, Const) && !((Const *) filter)->constisnull &&
		!pgbf_index_hashes_as_module(DatumGetObjectId(((Const *) filter)->constvalue)))
		return false;
	q->filter = (Expr *) filter;
	q->rinfo = rinfo;
	return true;
}

/* ---- planning ---- */

static Plan *pscan_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						  List *tlist, List *clauses, List *custom_plans);
static Node *pscan_create_state(CustomScan *cscan);

static const CustomPathMethods pscan_path_methods = {
	.CustomName = PROBE_SCAN_NAME,
	.PlanCustomPath = pscan_plan_path,
};

static const CustomScanMethods pscan_scan_methods = {
	.CustomName = PROBE_SCAN_NAME,
	.CreateCustomScanState = pscan_create_state,
};

/*
 * The table's every column, as a path target, if rel emits plain columns
 * only (else NULL).  A scan that returns the table's tuple as it is needs
 * no projection: ExecScan hands the tuple up, where a narrower target
 * would build a new one per row.
 */
static PathTarget *
physical_target(PlannerInfo *root, RelOptInfo *rel)
{
	ListCell   *lc;
	List	   *tlist;

	if (rel->reloptkind != RELOPT_BASEREL || rel->reltarget->sortgrouprefs != NULL)
		return NULL;
	foreach(lc, rel->reltarget->exprs)
	{
		Var		   *v = (Var *) lfirst(lc);

		if (!IsA(v, Var) || v->varno != rel->relid || v->varattno <= 0 || v->varlevelsup != 0)
			return NULL;
	}
	tlist = build_physical_tlist(root, rel);
	return tlist == NIL ? NULL : create_pathtarget(root, tlist);
}

/*
 * A probe scan path with the costs of the sequential scan it stands in
 * for, the per-row probe made a little cheaper: it is that scan with the
 * probe's cache misses overlapped.  required_outer is the outer rels a
 * filter read from another table needs (a nested loop's inner side).
 */
static void
add_probe_path(PlannerInfo *root, RelOptInfo *rel, RestrictInfo *rinfo,
			   Relids required_outer, int parallel_workers)
{
	Path	   *seq = create_seqscan_path(root, rel, required_outer, parallel_workers);
	CustomPath *cp;
	double		tuples = rel->tuples;

	/*
	 * A join qual only where the planner may enforce it at this scan (not
	 * one that must keep the rows of an outer join's preserved side): the
	 * parameterized scan's own clauses are those.
	 */
	if (required_outer != NULL &&
		(seq->param_info == NULL || !list_member_ptr(seq->param_info->ppi_clauses, rinfo)))
		return;
	cp = makeNode(CustomPath);

	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;

	/*
	 * The inner side of a nested loop (the only place for a path that
	 * needs outer rels, as the base rel this is, never an appendrel member)
	 * finds the columns it reads by Var: it takes a wider tuple as well,
	 * and so saves a projection per row, as a plain scan's physical tlist
	 * does.  (A path without outer rels may be the one an INSERT reads by
	 * position: it keeps the rel's target.)
	 */
	if (required_outer != NULL)
	{
		PathTarget *physical = physical_target(root, rel);

		if (physical != NULL)
			cp->path.pathtarget = physical;
	}
	cp->path.param_info = seq->param_info;

	/*
	 * Parallel safe as the plain scan is (the filter of a join qual too):
	 * beside a parallel-safe Seq Scan of about the same cost, add_path
	 * keeps the parallel-safe one.  A partial path (parallel_workers > 0)
	 * is parallel aware: its workers share the table's pages as a Parallel
	 * Seq Scan's do, and each scans its share of the tuples.
	 */
	cp->path.parallel_aware = seq->parallel_aware;
	cp->path.parallel_safe = seq->parallel_safe &&
		(required_outer == NULL || is_parallel_safe(root, (Node *) rinfo->clause));
	cp->path.parallel_workers = seq->parallel_workers;
	cp->path.rows = seq->rows;
	if (parallel_workers > 0 && rel->rows > 0 && seq->rows < rel->rows)
		tuples *= seq->rows / rel->rows;
	cp->path.startup_cost = seq->startup_cost;
	/* a tenth of a cpu_operator_cost a row less than the plain scan */
	cp->path.total_cost = seq->total_cost - 0.1 * cpu_operator_cost * tuples;
	if (cp->path.total_cost < cp->path.startup_cost)
		cp->path.total_cost = cp->path.startup_cost;
	cp->path.pathkeys = NIL;
#ifdef CUSTOMPATH_SUPPORT_PROJECTION
	cp->flags = CUSTOMPATH_SUPPORT_PROJECTION;	/* ExecScan projects */
#else
	cp->flags = 0;
#endif
	cp->custom_paths = NIL;
	cp->custom_private = list_make1(rinfo);
	cp->methods = &pscan_path_methods;
	if (parallel_workers > 0)
		add_partial_path(rel, &cp->path);
	else
		add_path(rel, &cp->path);
}

static void
pscan_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	ListCell   *lc;

	if (prev_rel_pathlist_hook)
		prev_rel_pathlist_hook(root, rel, rti, rte);
	if (!enable_probe_scan ||
		!IS_SIMPLE_REL(rel) || rel->rtekind != RTE_RELATION || rte->inh ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		rte->tablesample != NULL)
		return;

	/*
	 * Reads only: a SELECT, or the SELECT of an INSERT ... SELECT; no row
	 * locks (whose rechecks after a concurrent update the scan would have to
	 * answer) and never an UPDATE's or DELETE's own table.
	 */
	if ((root->parse->commandType != CMD_SELECT && root->parse->commandType != CMD_INSERT) ||
		root->rowMarks != NIL || root->parse->rowMarks != NIL ||
		rti == (Index) root->parse->resultRelation)
		return;

	/*
	 * A qual on the table alone: the filter is the same for the whole scan
	 * (and the table's scan needs no outer row, as with LATERAL it might).
	 */
	foreach(lc, rel->lateral_relids == NULL ? rel->baserestrictinfo : NIL)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		ProbeQual	q;

		/* answered first, so it must be allowed to go first (security quals) */
		if (rinfo->security_level > rel->baserestrict_min_security || rinfo->pseudoconstant)
			continue;
		if (match_probe_qual(root, rel, rinfo, &q))
		{
			add_probe_path(root, rel, rinfo, NULL, 0);

			/* as create_plain_partial_paths does for the Parallel Seq Scan */
			if (rel->consider_parallel)
			{
				int			workers = compute_parallel_worker(rel, rel->pages, -1,
															  max_parallel_workers_per_gather);

				if (workers > 0)
					add_probe_path(root, rel, rinfo, NULL, workers);
			}
			break;
		}
	}

	/*
	 * A join qual whose filter comes from other tables: a path for the
	 * inner side of a nested loop, the filter a parameter from the outer
	 * row.
	 */
	foreach(lc, rel->joininfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		ProbeQual	q;
		Relids		outer;

		if (rinfo->pseudoconstant || rinfo->security_level > rel->baserestrict_min_security ||
			!match_probe_qual(root, rel, rinfo, &q))
			continue;
		outer = bms_difference(rinfo->clause_relids, rel->relids);
		if (bms_is_empty(outer) || bms_overlap(outer, rel->lateral_referencers))
			continue;
		add_probe_path(root, rel, rinfo, outer, 0);
		break;
	}
}

/*
 * The plan: the probe's filter and column in custom_exprs (setrefs fixes
 * them up; the filter's outer Vars become nested-loop parameters), the
 * probe qual itself for EXPLAIN, and every other qual left to ExecScan;
 * in custom_private the probe's type, element kind, negation, how the
 * element is made of the column (ELEM_*), and whether the function is
 * STRICT.
 */
enum
{
	EXPR_FILTER,				/* the filter argument */
	EXPR_COLUMN,				/* the element's column */
	EXPR_PROBE,					/* the probe qual, for EXPLAIN */
	EXPR_COUNT
};
enum
{
	PRIV_TYPE,					/* ProbeType */
	PRIV_KIND,					/* PgbfElem */
	PRIV_NEGATE,				/* NOT contains(...) */
	PRIV_ELEM,					/* ELEM_*: how the element is made of the column */
	PRIV_STRICT,				/* the function is STRICT (the 1.0 catalog's) */
	PRIV_ELEMTYPE,				/* the function's element type */
	PRIV_COUNT
};

static Plan *
pscan_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			 List *tlist, List *clauses, List *custom_plans)
{
	RestrictInfo *probe = linitial(best_path->custom_private);
	CustomScan *cscan = makeNode(CustomScan);
	ProbeQual	q;
	List	   *rest = NIL;
	ListCell   *lc;

	if (!match_probe_qual(root, rel, probe, &q) || !list_member_ptr(clauses, probe))
		elog(ERROR, "bloomfilter probe scan: its qual is not among the scan's quals");
	foreach(lc, clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo != probe)
			rest = lappend(rest, rinfo);
	}
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(rest, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = list_make3(q.filter, q.column, probe->clause);
	Assert(list_length(cscan->custom_exprs) == EXPR_COUNT);
	cscan->custom_private = list_make5(makeInteger(q.type), makeInteger(q.kind),
									   makeInteger(q.negate ? 1 : 0), makeInteger(q.elem),
									   makeInteger(q.strict ? 1 : 0));
	cscan->custom_private = lappend(cscan->custom_private, makeInteger((int) q.elemtype));
	Assert(list_length(cscan->custom_private) == PRIV_COUNT);
	cscan->custom_scan_tlist = NIL;
	cscan->custom_relids = NULL;
	cscan->methods = &pscan_scan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---- */

typedef struct ProbeScanState
{
	CustomScanState css;
	ExprState  *filter_expr;
	AttrNumber	attno;
	int			elem;			/* element_column's: how the element is made of the column */
	ProbeType	type;
	PgbfElem	kind;
	bool		negate;
	bool		strict;			/* the function's answer for a NULL filter is NULL */
	bool		page_mode;		/* a heap scan: answer a page at a time */

	/* the filter, evaluated once per (re)scan */
	bool		filter_ready;
	const void *filter;			/* NULL: the filter is NULL (see null_filter_passes) */
	uint64		seed;
	const void *aux;			/* cuckoofilter: its alternate-bucket offsets, or NULL */
	Oid			elemtype;		/* the function's element type */
	PgbfIndexProbe *index;		/* PROBE_INDEX: the index, open until the scan ends */
	FmgrInfo	flinfo;			/* its fn_extra: the detoast cache */
	MemoryContext filter_cxt;	/* reset at each rescan */
	MemoryContext page_cxt;		/* reset at each page */

	/* answers for the tuples of one page, by offset */
	BlockNumber block;
	uint8		answer[MaxHeapTuplesPerPage + 1];	/* ANSWER_* */
	uint64		hashes[MaxHeapTuplesPerPage];
	bool		found[MaxHeapTuplesPerPage];
	OffsetNumber offsets[MaxHeapTuplesPerPage];
} ProbeScanState;

#define ANSWER_UNKNOWN 0
#define ANSWER_PASS 1
#define ANSWER_FAIL 2

static void pscan_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *pscan_exec(CustomScanState *node);
static void pscan_end(CustomScanState *node);
static void pscan_rescan(CustomScanState *node);
static void pscan_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size pscan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void pscan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void pscan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void pscan_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate);

static const CustomExecMethods pscan_exec_methods = {
	.CustomName = PROBE_SCAN_NAME,
	.BeginCustomScan = pscan_begin,
	.ExecCustomScan = pscan_exec,
	.EndCustomScan = pscan_end,
	.ReScanCustomScan = pscan_rescan,
	.EstimateDSMCustomScan = pscan_estimate_dsm,
	.InitializeDSMCustomScan = pscan_initialize_dsm,
	.ReInitializeDSMCustomScan = pscan_reinitialize_dsm,
	.InitializeWorkerCustomScan = pscan_initialize_worker,
	.ExplainCustomScan = pscan_explain,
};

static Node *
pscan_create_state(CustomScan *cscan)
{
	ProbeScanState *st = palloc0(sizeof(ProbeScanState));

	NodeSetTag(st, T_CustomScanState);
	st->css.methods = &pscan_exec_methods;
	return (Node *) st;
}

static void
pscan_begin(CustomScanState *node, EState *estate, int eflags)
{
	ProbeScanState *st = (ProbeScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	Var		   *column = list_nth(cscan->custom_exprs, EXPR_COLUMN);

	/* the column itself (planned as element_column found it), and how the element is made of it */
	if (!IsA(column, Var) || column->varno != cscan->scan.scanrelid || column->varattno <= 0)
		elog(ERROR, "bloomfilter probe scan: no element column");
	st->attno = column->varattno;
	st->elem = intVal(list_nth(cscan->custom_private, PRIV_ELEM));
	st->type = (ProbeType) intVal(list_nth(cscan->custom_private, PRIV_TYPE));
	st->kind = (PgbfElem) intVal(list_nth(cscan->custom_private, PRIV_KIND));
	st->negate = intVal(list_nth(cscan->custom_private, PRIV_NEGATE)) != 0;
	st->strict = intVal(list_nth(cscan->custom_private, PRIV_STRICT)) != 0;
	st->elemtype = (Oid) intVal(list_nth(cscan->custom_private, PRIV_ELEMTYPE));
	st->filter_expr = ExecInitExpr(list_nth(cscan->custom_exprs, EXPR_FILTER), &node->ss.ps);
	st->page_mode = pgbf_heap_paged(rel);
	st->block = InvalidBlockNumber;
	st->filter_cxt = AllocSetContextCreate(estate->es_query_cxt, "bloomfilter probe scan filter",
										   ALLOCSET_DEFAULT_SIZES);
	st->page_cxt = AllocSetContextCreate(estate->es_query_cxt, "bloomfilter probe scan page",
										 ALLOCSET_DEFAULT_SIZES);
	/* the detoast cache's home: pgbf_cached_arg uses fn_extra and fn_mcxt */
	memset(&st->flinfo, 0, sizeof(st->flinfo));
	st->flinfo.fn_mcxt = estate->es_query_cxt;
	st->flinfo.fn_oid = InvalidOid;

	/*
	 * The scan slot: the table's own kind, so table_scan_getnextslot can
	 * fill it, and the quals and projection compiled for it (nodeCustom.c
	 * set them up for a virtual slot before PostgreSQL 16).
	 */
	pgbf_init_scan_slot(estate, &node->ss, RelationGetDescr(rel), table_slot_callbacks(rel));
	ExecAssignScanProjectionInfoWithVarno(&node->ss, cscan->scan.scanrelid);
	node->ss.ps.qual = ExecInitQual(cscan->scan.plan.qual, (PlanState *) node);
}

/* evaluate the filter argument: once per scan, or per rescan */
static void
prepare_filter(ProbeScanState *st)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	MemoryContext old;
	Datum		d;
	bool		isnull;

	if (st->index != NULL)
		pgbf_index_probe_close(st->index);
	st->index = NULL;
	MemoryContextReset(st->filter_cxt);
	st->filter = NULL;
	old = MemoryContextSwitchTo(st->filter_cxt);
	d = ExecEvalExpr(st->filter_expr, econtext, &isnull);
	if (st->type == PROBE_INDEX)
	{
		/* as bloom_index_contains: a NULL index is an error, not a filter */
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the index to probe must not be NULL")));
		st->index = pgbf_index_probe_open(DatumGetObjectId(d), st->elemtype);
		st->filter = st->index;
		st->seed = pgbf_index_probe_seed(st->index);
	}
	else if (!isnull)
	{
		Relation	rel = st->css.ss.ss_currentRelation;
		double		rows = rel->rd_rel->reltuples;

		LOCAL_FCINFO(fcinfo, 1);

		InitFunctionCallInfoData(*fcinfo, &st->flinfo, 1, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = d;
		fcinfo->args[0].isnull = false;
		if (rows <= 0)
			rows = (double) RelationGetNumberOfBlocks(rel) * 64;
		st->aux = NULL;
		st->filter = probe_type_ops[st->type]->scan_filter(fcinfo, rows, &st->aux);
		st->seed = ((const BfHeader *) st->filter)->seed;
	}
	MemoryContextSwitchTo(old);
	st->filter_ready = true;
}

/*
 * Does a row with a non-NULL element pass when the filter is NULL?  The
 * function says a NULL filter contains nothing, so the negated qual
 * passes; a STRICT function (the 1.0 catalog's) says NULL, which passes
 * neither way.
 */
static inline bool
null_filter_passes(const ProbeScanState *st)
{
	return st->negate && !st->strict;
}

/* the filter's answers for n hashes (a NULL filter contains nothing) */
static inline void
answer_hashes(ProbeScanState *st, const uint64 *h, size_t n, bool *out)
{
	if (st->filter == NULL)
		memset(out, 0, n * sizeof(bool));
	else if (st->type == PROBE_INDEX)
		pgbf_index_probe_many(st->index, h, n, out);
	else
		probe_type_ops[st->type]->probe_many(st->filter, st->aux, h, n, out);
}

/*
 * The hash of url_normalize(d), as the function makes it: the text itself
 * when it does not change, else its normal form.
 */
static uint64
url_element_hash(Datum d, uint64 seed)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	text	   *t = (text *) pg_detoast_datum_packed(raw);
	const char *src = VARDATA_ANY(t);
	size_t		len = VARSIZE_ANY_EXHDR(t);
	uint64		h;

	if (!pgbf_url_changes(src, len))
		h = bf_hash_bytes(src, len, seed);
	else
	{
		char		small[512];
		size_t		cap = URL_NORMALIZED_MAXLEN(len);
		char	   *buf = cap <= sizeof(small) ? small : palloc(cap);

		h = bf_hash_bytes(buf, pgbf_url_normalize_into(src, len, buf), seed);
		if (buf != small)
			pfree(buf);
	}
	if ((Pointer) t != (Pointer) raw)
		pfree(t);
	return h;
}

/* the hash of a row's element: the function's, after the cast or url_normalize */
uint64
pgbf_element_hash(int elem, PgbfElem kind, uint64 seed, Datum d)
{
	switch (elem)
	{
		case ELEM_INT4:
			return bf_hash_int64((int64) DatumGetInt32(d), seed);
		case ELEM_INT2:
			return bf_hash_int64((int64) DatumGetInt16(d), seed);
		case ELEM_URL:
			return url_element_hash(d, seed);
		default:
			return pgbf_hash_datum(d, kind, seed);
	}
}

static inline uint64
element_hash(const ProbeScanState *st, Datum d)
{
	return pgbf_element_hash(st->elem, st->kind, st->seed, d);
}

/* the answer for one element value */
static bool
answer_one(ProbeScanState *st, Datum d, bool isnull)
{
	uint64		h;
	bool		found;

	if (isnull)
		return false;
	if (st->filter == NULL)
		return null_filter_passes(st);
	h = element_hash(st, d);
	answer_hashes(st, &h, 1, &found);
	return found != st->negate;
}

/*
 * Answer every visible tuple of the scan's current heap page at once (the
 * tuples a page-at-a-time heap scan returns: heappage.h).  The scan
 * holds a pin on the page, so the tuples stay where they are.
 */
static void
prepare_page(ProbeScanState *st, const PgbfHeapPage *pg)
{
	Relation	rel = st->css.ss.ss_currentRelation;
	Page		page = pg->page;
	MemoryContext old;
	int			n = 0;
	int			nvis = pg->ntuples;

	pgbf_page_prefetch_once(page);
	memset(st->answer, ANSWER_UNKNOWN, sizeof(st->answer));
	st->block = pg->block;
	MemoryContextReset(st->page_cxt);
	old = MemoryContextSwitchTo(st->page_cxt);
	for (int i = 0; i < nvis; i++)
	{
		OffsetNumber off = pg->offsets[i];
		Datum		d;
		bool		isnull;

		if (!pgbf_page_attr(rel, page, st->block, off, st->attno, &d, &isnull))
			continue;
		if (isnull)
		{
			st->answer[off] = ANSWER_FAIL;
			continue;
		}
		if (st->filter == NULL)
		{
			st->answer[off] = null_filter_passes(st) ? ANSWER_PASS : ANSWER_FAIL;
			continue;
		}
		st->hashes[n] = element_hash(st, d);
		st->offsets[n++] = off;
	}
	MemoryContextSwitchTo(old);
	answer_hashes(st, st->hashes, n, st->found);
	for (int i = 0; i < n; i++)
		st->answer[st->offsets[i]] = (st->found[i] != st->negate) ? ANSWER_PASS : ANSWER_FAIL;
}

/*
 * After a tuple of the current page that fails: the answers of the tuples
 * after it on the page, as far as they fail too, and the heap scan moved
 * on past them (pgbf_heap_scan_skip_to), so that a
 * failing tuple is never stored in the slot only to be dropped.  A tuple
 * the page pass did not answer stops the run, to be answered from its
 * slot.
 */
static void
skip_failing(ProbeScanState *st, TableScanDesc scan)
{
	PgbfHeapPage pg;
	int			i;

	if (!pgbf_heap_scan_page(scan, st->block, &pg))
		return;
	for (i = pg.current + 1; i < pg.ntuples; i++)
	{
		OffsetNumber off = pg.offsets[i];
		uint8		a = off <= MaxHeapTuplesPerPage ? st->answer[off] : ANSWER_UNKNOWN;

		if (a != ANSWER_FAIL)
			break;
		InstrCountFiltered2(&st->css.ss, 1);
	}
	pgbf_heap_scan_skip_to(scan, i - 1);
}

static TupleTableSlot *
pscan_next(ScanState *ss)
{
	ProbeScanState *st = (ProbeScanState *) ss;
	EState	   *estate = ss->ps.state;
	TableScanDesc scan = ss->ss_currentScanDesc;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;

	if (scan == NULL)
	{
		scan = pgbf_table_beginscan(ss->ss_currentRelation, estate->es_snapshot);
		ss->ss_currentScanDesc = scan;
	}
	while (table_scan_getnextslot(scan, estate->es_direction, slot))
	{
		BlockNumber block = ItemPointerGetBlockNumber(&slot->tts_tid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&slot->tts_tid);
		uint8		a = ANSWER_UNKNOWN;

		CHECK_FOR_INTERRUPTS();

		/* at the first row, as the qual would be: an empty table never evaluates it */
		if (!st->filter_ready)
			prepare_filter(st);
		/* a NULL filter that no row passes: the scan is over */
		if (st->filter == NULL && !null_filter_passes(st))
			return NULL;
		if (st->page_mode)
		{
			PgbfHeapPage pg;

			if (block != st->block && pgbf_heap_scan_page(scan, block, &pg))
				prepare_page(st, &pg);
			if (block == st->block && off <= MaxHeapTuplesPerPage)
				a = st->answer[off];
		}
		if (a == ANSWER_UNKNOWN)
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, st->attno, &isnull);

			a = answer_one(st, d, isnull) ? ANSWER_PASS : ANSWER_FAIL;
		}
		if (a == ANSWER_PASS)
			return slot;
		/* EXPLAIN ANALYZE's "Rows Removed by Probe" (summed over workers) */
		InstrCountFiltered2(ss, 1);
		if (st->page_mode && block == st->block && ScanDirectionIsForward(estate->es_direction))
			skip_failing(st, scan);
	}
	return NULL;
}

/* EvalPlanQual: the probe on the row as it is now */
static bool
pscan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	ProbeScanState *st = (ProbeScanState *) ss;
	bool		isnull;
	Datum		d;

	if (!st->filter_ready)
		prepare_filter(st);
	d = slot_getattr(slot, st->attno, &isnull);
	return answer_one(st, d, isnull);
}

static TupleTableSlot *
pscan_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, pscan_next, pscan_recheck);
}

static void
pscan_end(CustomScanState *node)
{
	ProbeScanState *st = (ProbeScanState *) node;

	if (st->index != NULL)
		pgbf_index_probe_close(st->index);
	st->index = NULL;
	if (node->ss.ss_currentScanDesc)
		table_endscan(node->ss.ss_currentScanDesc);
}

static void
pscan_rescan(CustomScanState *node)
{
	ProbeScanState *st = (ProbeScanState *) node;

	if (node->ss.ss_currentScanDesc)
		table_rescan(node->ss.ss_currentScanDesc, NULL);
	st->block = InvalidBlockNumber;
	st->filter_ready = false;	/* a parameter may have changed */
	ExecScanReScan(&node->ss);
}

/*
 * A parallel-aware probe scan (a partial path under a Gather): the
 * participants share one parallel table scan, as a Parallel Seq Scan's
 * do (nodeSeqscan.c); each answers the pages it is handed.  nodeCustom.c
 * allocates the shared state (coordinate) and finds it in the workers.
 */
static Size
pscan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return table_parallelscan_estimate(node->ss.ss_currentRelation,
									   node->ss.ps.state->es_snapshot);
}

static void
pscan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	ParallelTableScanDesc pscan = (ParallelTableScanDesc) coordinate;

	table_parallelscan_initialize(node->ss.ss_currentRelation, pscan,
								  node->ss.ps.state->es_snapshot);
	node->ss.ss_currentScanDesc = pgbf_table_beginscan_parallel(node->ss.ss_currentRelation, pscan);
}

static void
pscan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	table_parallelscan_reinitialize(node->ss.ss_currentRelation,
									(ParallelTableScanDesc) coordinate);
}

static void
pscan_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	node->ss.ss_currentScanDesc = pgbf_table_beginscan_parallel(node->ss.ss_currentRelation,
														   (ParallelTableScanDesc) coordinate);
}

static void
pscan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	ExplainPropertyText("Probe",
						deparse_expression(list_nth(cscan->custom_exprs, EXPR_PROBE), context,
										   es->verbose, false),
						es);

	/* as show_instrumentation_count prints "Rows Removed by Filter" */
	if (es->analyze && node->ss.ps.instrument)
	{
		double		nloops = node->ss.ps.instrument->nloops;
		double		rows = nloops > 0 ? node->ss.ps.instrument->nfiltered2 / nloops : 0;

		if (rows > 0 || es->format != EXPLAIN_FORMAT_TEXT)
			ExplainPropertyFloat("Rows Removed by Probe", NULL, rows, 0, es);
	}
}

/* ---- set-up ---- */

/*
 * The probe functions' planner support function.  It answers no request;
 * that the planner calls it at all is what it is for: the call loads this
 * library, whose _PG_init installs the planner hook, before the planner
 * looks for paths, even in a session's first query.
 */
PG_FUNCTION_INFO_V1(bloomfilter_probe_support);
Datum
bloomfilter_probe_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}

void
pgbf_scan_init(void)
{
	DefineCustomBoolVariable("bloomfilter.enable_probe_scan",
							 "Lets the planner use bloomfilter's probe scan.",
							 "A sequential scan that answers a bloom_contains, "
							 "counting_bloom_contains or cuckoo_contains qual a heap "
							 "page at a time, overlapping the filter's cache misses.",
							 &enable_probe_scan, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	RegisterCustomScanMethods(&pscan_scan_methods);
	prev_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = pscan_rel_pathlist;
}
