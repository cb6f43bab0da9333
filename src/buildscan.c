/*
 * buildscan.c
 *		The build scan: a table's filter built by bloom_agg(x),
 *		counting_bloom_agg and cuckoo_agg a heap page at a time.
 *
 * An aggregate over a sequential scan pays for every row twice over
 * before its transition function sees it: the scan stores the tuple in a
 * slot, and the Agg node evaluates the argument into a function call and
 * resets a memory context.  The transitions of these aggregates are a
 * hash and a store in a queue (pg_common.h's pending state), so that
 * machinery is most of their per-row cost.  This scan stands in for the
 * Agg node and its Seq Scan: at each heap page it reads the aggregated
 * column of every visible tuple, hashes the element exactly as the
 * transition function does and queues the hash in the same pending state
 * (which collects distinct hashes, or for bloom_agg(x, capacity, fpr) adds
 * them to its filter as the queue fills); at the end it calls the
 * aggregate's own final function on that state.  Same state, same
 * hashes, same final function: the same bytes as the plain plan, which
 * the regression test holds it to, form by form.
 *
 * Where it applies (bscan_upper_paths): a SELECT whose one aggregate is
 *
 *     bloom_agg(x [, [capacity,] fpr]), counting_bloom_agg(x [, [capacity,]
 *     fpr]) or cuckoo_agg(x [, [capacity,] fpr])
 *
 * with no GROUP BY, HAVING, DISTINCT or ORDER BY in the call (a FILTER
 * clause is tested after the WHERE clause, as one more clause), over
 * one plain table (or materialized view) read by a sequential scan, or a
 * partitioned table or inheritance parent whose tables (the partitions
 * the planner did not prune) all are, without row-level security, row
 * locks or TABLESAMPLE; x an expression of the table's row (a column in
 * a form the probe scan reads, scan.c: a binary-compatible or
 * integer-to-bigint cast of one, or url_normalize of one, is read straight
 * from the page; any other expression, such as lower(url), is evaluated
 * as the Agg node evaluates it), capacity and fpr constants that the
 * transition would accept.  Anything else gets the
 * usual plan.  The aggregate may sit in an expression (cuckoo_agg(x) IS
 * NOT NULL): the scan's tuple is the aggregate's value, and its target
 * list computes the rest.
 *
 * A WHERE clause on the table is the Seq Scan's filter, the same clauses
 * in the same order (the planner's, taken from the Seq Scan plan it makes
 * of them), evaluated on each visible tuple of the page before its
 * element is read, as the Seq Scan evaluates them before the Agg node
 * sees the row.  Not taken: a clause with a sub-select (SubPlan) or one
 * that is constant for the whole scan (the planner tests that once, in a
 * Result above the scan).  Where an index answers the WHERE clause more
 * cheaply, the planner's costs choose the index.  A partitioned table's
 * partitions are read one after another, as the Append node would, each
 * with the element and the clauses in its own columns.
 *
 * The scan is offered beside the Agg paths at the cost of the sequential
 * scans (their WHERE clauses included) plus half the transition's cost a
 * row and the cost of the expressions it evaluates for the call (an
 * element that is not a column, a FILTER clause), so that a parallel plan
 * the planner costs lower (many cores, a big table) still wins.
 * bloomfilter.enable_build_scan = off turns it off.  The aggregates' final
 * functions have the probes' planner support function, whose call when
 * the planner costs them loads the module: a session's first query gets
 * the scan too.
 */
#include "postgres.h"

#include "pg_compat.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "funcs.h"
#include "heappage.h"
#include "scan.h"

#define BUILD_SCAN_NAME "BloomBuildScan"

static bool enable_build_scan = true;
static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

/* what a build scan computes: one aggregate call, as match_build_agg read it */
typedef struct BuildAgg
{
	Aggref	   *aggref;
	const PgbfTypeOps *ops;		/* the filter type's (typeops.h) */
	bool		sized;			/* (x, capacity, fpr) */
	PgbfElem	kind;
	int			elem;			/* element_form's: ELEM_* of scan.h or ELEM_EXPR */
	double		fpr;
	int64		capacity;		/* 0: sized from the distinct count */
} BuildAgg;

/*
 * The element is an expression of the row other than a column in a form
 * the probe scan reads: the scan evaluates it on each row that passes the
 * WHERE clause, as the Agg node evaluates the call's argument, and hashes
 * the value as it is (it has the aggregate's argument type).
 */
#define ELEM_EXPR (-1)

/*
 * Has node a Var of another rel than relid's or of an outer query level,
 * or a PlaceHolderVar?  (The walker stops at the first.)
 */
static bool
has_foreign_vars(Node *node, Index *relid)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varno != *relid || ((Var *) node)->varlevelsup != 0;
	if (IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, has_foreign_vars, (void *) relid);
}

/* can the scan evaluate e on rel's row: no Var of another table, no sub-select? */
static bool
row_expression(Node *e, Index relid)
{
	return !contain_subplans(e) && !has_foreign_vars(e, &relid);
}

/*
 * How the scan makes the element e of rel's rows (ELEM_* of scan.h, or
 * ELEM_EXPR); false if it cannot
 */
static bool
element_form(Node *e, Index relid, int *elem)
{
	if (pgbf_element_column(e, relid, elem) != NULL)
		return true;
	*elem = ELEM_EXPR;
	return row_expression(e, relid);
}

/* a non-NULL constant argument of the call, or false */
static bool
const_arg(Aggref *a, int argno, Oid type, Datum *value)
{
	TargetEntry *tle = list_nth_node(TargetEntry, a->args, argno);
	Const	   *c = (Const *) tle->expr;

	if (!IsA(c, Const) || c->constisnull || c->consttype != type)
		return false;
	*value = c->constvalue;
	return true;
}

/*
 * The call's fpr and capacity: (x), (x, fpr) or (x, capacity, fpr), as
 * pgbf_keyset_start and bloom_agg's transition read them; false unless
 * each given one is a non-NULL constant
 */
static bool
call_params(Aggref *a, double *fpr, int64 *capacity)
{
	int			nargs = list_length(a->args);
	Datum		d;

	*fpr = 0.01;
	*capacity = 0;
	if (nargs >= 2)
	{
		if (!const_arg(a, nargs - 1, FLOAT8OID, &d))
			return false;
		*fpr = DatumGetFloat8(d);
	}
	if (nargs == 3)
	{
		if (!const_arg(a, 1, INT8OID, &d))
			return false;
		*capacity = DatumGetInt64(d);
	}
	return true;
}

/*
 * Is a one of the aggregates this scan builds, over a column of rel, with
 * arguments its transition accepts?  Then *b describes it.
 */
static bool
match_build_agg(RelOptInfo *rel, Aggref *a, BuildAgg *b)
{
	int			nargs = list_length(a->args);
	PgbfFuncInfo info;
	HeapTuple	tp;
	bool		initval;
	char		errbuf[BF_ERRLEN];

	if (a->aggdistinct != NIL || a->aggorder != NIL ||
		a->aggdirectargs != NIL || a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL ||
		a->aggsplit != AGGSPLIT_SIMPLE || a->aggstar || a->aggvariadic ||
		nargs < 1 || nargs > 3)
		return false;

	/*
	 * One of the extension's own aggregates (funcs.c: a user's aggregate
	 * made of the module's transition functions is not one), and with no
	 * initial state: the scan starts from the state the transition makes
	 * at the first row, as the extension's aggregates do
	 */
	info = pgbf_func_info(a->aggfnoid);
	if (info.role != PGBF_FN_AGG || info.nargs != nargs)
		return false;
	tp = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));
	if (!HeapTupleIsValid(tp))
		return false;
	(void) SysCacheGetAttr(AGGFNOID, tp, Anum_pg_aggregate_agginitval, &initval);
	initval = !initval;
	ReleaseSysCache(tp);
	if (initval)
		return false;
	b->ops = info.ops;
	b->kind = info.kind;
	b->sized = nargs == 3;

	/*
	 * The element: an expression of rel's row, a column in particular; a
	 * FILTER clause: one more clause on the row, after the WHERE clause
	 */
	if (!element_form((Node *) linitial_node(TargetEntry, a->args)->expr, rel->relid,
					  &b->elem) ||
		(a->aggfilter != NULL && !row_expression((Node *) a->aggfilter, rel->relid)) ||
		!call_params(a, &b->fpr, &b->capacity))
		return false;

	/* arguments the transition would reject: the Agg node raises its error */
	if (bf_check_params(nargs == 3 ? b->capacity : 1, b->fpr, errbuf) != BF_OK)
		return false;
	b->aggref = a;
	return true;
}

/* every Aggref in the target (not inside another's arguments) */
static bool
collect_aggrefs(Node *node, List **aggrefs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		*aggrefs = lappend(*aggrefs, node);
		return false;
	}
	return expression_tree_walker(node, collect_aggrefs, (void *) aggrefs);
}

/* ---- planning ---- */

/* the column under an element expression, after setrefs as before */
static Var *
element_var(Node *e)
{
	int			elem;

	return pgbf_element_column(e, 0, &elem);
}

static Plan *bscan_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							 List *tlist, List *clauses, List *custom_plans);
static Node *bscan_create_state(CustomScan *cscan);

static const CustomPathMethods bscan_path_methods = {
	.CustomName = BUILD_SCAN_NAME,
	.PlanCustomPath = bscan_plan_path,
};

static const CustomScanMethods bscan_scan_methods = {
	.CustomName = BUILD_SCAN_NAME,
	.CreateCustomScanState = bscan_create_state,
};

/*
 * The table's WHERE clauses, which the scan tests on each tuple as the
 * Seq Scan's filter would: none with a sub-select (its SubPlan needs a
 * plan node of its own to run from), none constant for the whole scan
 * (those the planner tests once, in a Result above the scan, before any
 * row is read; taken into the filter they would be tested row by row)
 */
static bool
quals_ok(PlannerInfo *root, RelOptInfo *rel)
{
	ListCell   *lc;

	if (root->hasPseudoConstantQuals)
		return false;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (ri->pseudoconstant || contain_subplans((Node *) ri->clause))
			return false;
	}
	return true;
}

/*
 * The tables the scan reads for rel: rel itself, a plain table or
 * materialized view, or for an inheritance parent or partitioned table
 * (rte->inh) the leaves of its tree that the planner kept (partitions it
 * pruned are not there; children it proved empty are dummy rels), each
 * as a BuildLeaf with the call's element and FILTER clause in its own
 * columns.  False if any table cannot be read so: another relkind (a
 * foreign table), a sample, security quals, a WHERE clause the scan does
 * not take, or an element or FILTER clause it cannot evaluate there.
 */
typedef struct BuildLeaf
{
	Node	   *element;
	List	   *filter;			/* the call's FILTER clause, implicit-AND */
	Path	   *seq;			/* its Seq Scan: cost, and the filter's plan */
} BuildLeaf;

/* call: the element and the FILTER clause (or NULL), in rel's columns */
static bool
collect_leaves(PlannerInfo *root, RelOptInfo *rel, List *call, int elem, List **leaves)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	ListCell   *lc;

	if (rte->tablesample != NULL || rte->securityQuals != NIL || rel->lateral_relids != NULL)
		return false;
	if (IS_DUMMY_REL(rel))
		return true;			/* excluded: no rows to read */
	if (!rte->inh)
	{
		BuildLeaf  *leaf;
		int			leaf_elem;

		if ((rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
			!quals_ok(root, rel) ||
			!element_form(linitial(call), rel->relid, &leaf_elem) || leaf_elem != elem ||
			(lsecond(call) != NULL && !row_expression(lsecond(call), rel->relid)))
			return false;
		leaf = palloc(sizeof(BuildLeaf));
		leaf->element = linitial(call);
		leaf->filter = make_ands_implicit((Expr *) lsecond(call));
		leaf->seq = create_seqscan_path(root, rel, NULL, 0);
		*leaves = lappend(*leaves, leaf);
		return true;
	}
	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *ai = lfirst_node(AppendRelInfo, lc);
		RelOptInfo *child;

		if (ai->parent_relid != rel->relid)
			continue;
		child = root->simple_rel_array[ai->child_relid];
		if (child == NULL ||
			!collect_leaves(root, child,
							(List *) adjust_appendrel_attrs(root, (Node *) call, 1, &ai),
							elem, leaves))
			return false;
	}
	return true;
}

/* what evaluating e on each of rows rows costs */
static Cost
eval_cost(PlannerInfo *root, Node *e, double rows)
{
	QualCost	c;

	cost_qual_eval_node(&c, e, root);
	return c.startup + c.per_tuple * rows;
}

static void
bscan_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
			   RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	List	   *aggrefs = NIL;
	List	   *leaves = NIL;
	List	   *paths = NIL;
	List	   *elements = NIL;
	List	   *filters = NIL;
	ListCell   *lc;
	BuildAgg	b;
	CustomPath *cp;
	Cost		cost;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (!enable_build_scan || stage != UPPERREL_GROUP_AGG)
		return;

	/* one plain aggregate row of a SELECT, nothing around it to keep */
	if (parse->commandType != CMD_SELECT || !parse->hasAggs || parse->groupClause != NIL ||
		parse->groupingSets != NIL || parse->havingQual != NULL || parse->hasWindowFuncs ||
		parse->hasTargetSRFs || root->hasHavingQual || parse->rowMarks != NIL ||
		root->rowMarks != NIL || output_rel->reloptkind != RELOPT_UPPER_REL)
		return;

	/* over one table (or one inheritance tree) */
	if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
		input_rel->cheapest_total_path == NULL || IS_DUMMY_REL(input_rel))
		return;

	/* one aggregate (written any number of times), nothing that needs a subplan */
	if (contain_subplans((Node *) output_rel->reltarget->exprs))
		return;
	(void) collect_aggrefs((Node *) output_rel->reltarget->exprs, &aggrefs);
	if (aggrefs == NIL)
		return;
	foreach(lc, aggrefs)
	{
		if (!equal(lfirst(lc), linitial(aggrefs)))
			return;
	}
	if (!match_build_agg(input_rel, linitial(aggrefs), &b))
		return;

	/* the tables to read, each whole or through its WHERE clause */
	if (!collect_leaves(root, input_rel,
						list_make2(linitial_node(TargetEntry, b.aggref->args)->expr,
								   b.aggref->aggfilter),
						b.elem, &leaves))
		return;
	cost = 0.5 * cpu_operator_cost * input_rel->rows;
	if (b.elem == ELEM_EXPR)
		cost += eval_cost(root, (Node *) linitial_node(TargetEntry, b.aggref->args)->expr,
						  input_rel->rows);
	if (b.aggref->aggfilter != NULL)
		cost += eval_cost(root, (Node *) b.aggref->aggfilter, input_rel->rows);
	foreach(lc, leaves)
	{
		BuildLeaf  *leaf = lfirst(lc);

		cost += leaf->seq->total_cost;
		paths = lappend(paths, leaf->seq);
		elements = lappend(elements, leaf->element);
		filters = lappend(filters, leaf->filter);
	}

	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = output_rel;
	cp->path.pathtarget = output_rel->reltarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.parallel_workers = 0;
	cp->path.rows = 1;
	cp->path.startup_cost = cost;
	cp->path.total_cost = cost;
	cp->path.pathkeys = NIL;
	cp->flags = 0;
	/* each table's Seq Scan, whose plan the planner makes with its filter */
	cp->custom_paths = paths;
	cp->custom_private = list_make4(b.aggref, makeInteger((int) input_rel->relid), elements,
									filters);
	cp->methods = &bscan_path_methods;
	add_path(output_rel, &cp->path);
}

/* a Var that stands for table relid in the plan: setrefs renumbers it with the rest */
static TargetEntry *
table_entry(Index relid, AttrNumber resno)
{
	return makeTargetEntry((Expr *) makeVar(relid, SelfItemPointerAttributeNumber, TIDOID, -1,
											InvalidOid, 0),
						   resno, NULL, true);
}

/*
 * The plan.  The scan tuple (custom_scan_tlist) is the aggregate call,
 * then, as junk columns: a Var of the table the query names, a Var of
 * each table read, each table's element, and each table's WHERE clauses,
 * as that table's Seq Scan plan has them (the planner's order, cheapest
 * first) and then the call's FILTER clause.  setrefs turns the call into
 * a reference to the first column wherever the target list has it, and
 * renumbers the tables' Vars in all of them with the rest of the plan;
 * the executor finds the tables there (the scan tuple never holds a value
 * for the junk columns).  The elements
 * and clauses are in custom_exprs as well, where the planner looks for the
 * Params of sub-selects and outer queries they use (custom_scan_tlist, it
 * assumes, has none), so that the scan is run again when one changes.
 * custom_private: the element form, element kind, the number of tables
 * and the number of clauses of each (PRIVATE_*); the filter type and the
 * call's parameters are the Aggref's, read again at execution.
 */
/*
 * custom_scan_tlist's entries: the call, the table the query names, each
 * table read (TLIST_TABLES + i), then each table's element, then each
 * table's clauses, table by table
 */
enum
{
	TLIST_AGGREF,
	TLIST_QUERY_TABLE,
	TLIST_TABLES
};

/* custom_private's items */
enum
{
	PRIVATE_ELEM,				/* ELEM_* of scan.h, or ELEM_EXPR */
	PRIVATE_KIND,				/* PgbfElem */
	PRIVATE_NTABLES,			/* tables read */
	PRIVATE_NQUALS				/* then each table's number of clauses */
};

static Plan *
bscan_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				List *tlist, List *clauses, List *custom_plans)
{
	Aggref	   *aggref = linitial(best_path->custom_private);
	Index		relid = (Index) intVal(lsecond(best_path->custom_private));
	List	   *elements = lthird(best_path->custom_private);
	List	   *filters = lfourth(best_path->custom_private);
	CustomScan *cscan = makeNode(CustomScan);
	List	   *scan_tlist;
	List	   *nquals = NIL;
	AttrNumber	resno = 1;
	ListCell   *lc,
			   *lf;
	BuildAgg	b;

	if (!match_build_agg(find_base_rel(root, relid), aggref, &b) ||
		list_length(elements) != list_length(custom_plans) ||
		list_length(filters) != list_length(custom_plans))
		elog(ERROR, "bloomfilter build scan: its aggregate no longer matches");
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = copyObject(elements);
	scan_tlist = list_make1(makeTargetEntry((Expr *) copyObject(aggref), resno++, NULL, false));
	scan_tlist = lappend(scan_tlist, table_entry(relid, resno++));
	Assert(list_length(scan_tlist) == TLIST_TABLES);
	foreach(lc, custom_plans)
		scan_tlist = lappend(scan_tlist, table_entry(((Scan *) lfirst(lc))->scanrelid, resno++));
	foreach(lc, elements)
		scan_tlist = lappend(scan_tlist, makeTargetEntry(copyObject(lfirst(lc)), resno++,
														 NULL, true));
	forboth(lc, custom_plans, lf, filters)
	{
		/* the WHERE clause as the Seq Scan tests it, then the call's FILTER */
		List	   *quals = list_concat_copy(((Plan *) lfirst(lc))->qual, lfirst(lf));
		ListCell   *lq;

		foreach(lq, quals)
			scan_tlist = lappend(scan_tlist, makeTargetEntry(copyObject(lfirst(lq)), resno++,
															 NULL, true));
		cscan->custom_exprs = list_concat(cscan->custom_exprs, copyObject(quals));
		nquals = lappend(nquals, makeInteger(list_length(quals)));
	}
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = list_make3(makeInteger(b.elem), makeInteger(b.kind),
									   makeInteger(list_length(elements)));
	Assert(list_length(cscan->custom_private) == PRIVATE_NQUALS);
	cscan->custom_private = list_concat(cscan->custom_private, nquals);
	cscan->custom_relids = NULL;
	cscan->methods = &bscan_scan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---- */


/*
 * In the plan (bscan_plan_path): the RT index of table i (-1: the table
 * the query names), table i's element and its WHERE clauses
 */
static Index
plan_relid(CustomScan *cscan, int i)
{
	return castNode(Var, list_nth_node(TargetEntry, cscan->custom_scan_tlist,
									   TLIST_TABLES + i)->expr)->varno;
}

static Node *
plan_element(CustomScan *cscan, int i)
{
	int			ntables = intVal(list_nth(cscan->custom_private, PRIVATE_NTABLES));

	return (Node *) list_nth_node(TargetEntry, cscan->custom_scan_tlist,
								  TLIST_TABLES + ntables + i)->expr;
}

static List *
plan_quals(CustomScan *cscan, int i)
{
	int			ntables = intVal(list_nth(cscan->custom_private, PRIVATE_NTABLES));
	int			first = TLIST_TABLES + 2 * ntables;
	int			n;
	List	   *quals = NIL;

	for (int t = 0; t < i; t++)
		first += intVal(list_nth(cscan->custom_private, PRIVATE_NQUALS + t));
	n = intVal(list_nth(cscan->custom_private, PRIVATE_NQUALS + i));
	for (int q = first; q < first + n; q++)
		quals = lappend(quals, list_nth_node(TargetEntry, cscan->custom_scan_tlist, q)->expr);
	return quals;
}

/* a table the scan reads, and what it reads there */
typedef struct BuildTable
{
	Relation	rel;
	AttrNumber	attno;			/* the element's column (not ELEM_EXPR) */
	ExprState  *element;		/* ELEM_EXPR: the element's expression */
	ExprState  *qual;			/* the WHERE clause, or NULL */
	TupleTableSlot *slot;		/* a page's tuple, for those to read */
} BuildTable;

typedef struct BuildScanState
{
	CustomScanState css;
	Aggref	   *aggref;			/* the call, its Vars the plan's */
	int			ntables;
	BuildTable *tables;
	BuildTable *table;			/* the one being read */
	const PgbfTypeOps *ops;		/* the filter type's */
	bool		sized;			/* (x, capacity, fpr) */
	PgbfElem	kind;
	int			elem;
	double		fpr;
	int64		capacity;
	bool		done;			/* the one row returned */
	HeapTupleData tuple;		/* what table->slot holds */
	PgbfPending *pending;		/* the state; NULL until the first row */
	uint64		seed;			/* its hash seed */
	MemoryContext bscan_cxt;	/* the state and the result; reset at rescan */
	MemoryContext page_cxt;		/* detoasted values of one page */
} BuildScanState;

static void bscan_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *bscan_exec(CustomScanState *node);
static void bscan_end(CustomScanState *node);
static void bscan_rescan(CustomScanState *node);
static void bscan_explain(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomExecMethods bscan_exec_methods = {
	.CustomName = BUILD_SCAN_NAME,
	.BeginCustomScan = bscan_begin,
	.ExecCustomScan = bscan_exec,
	.EndCustomScan = bscan_end,
	.ReScanCustomScan = bscan_rescan,
	.ExplainCustomScan = bscan_explain,
};

static Node *
bscan_create_state(CustomScan *cscan)
{
	BuildScanState *st = palloc0(sizeof(BuildScanState));

	NodeSetTag(st, T_CustomScanState);
	st->css.methods = &bscan_exec_methods;
	return (Node *) st;
}

static void
bscan_begin(CustomScanState *node, EState *estate, int eflags)
{
	BuildScanState *st = (BuildScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TargetEntry *tle = linitial_node(TargetEntry, cscan->custom_scan_tlist);

	PgbfFuncInfo info;

	st->aggref = castNode(Aggref, tle->expr);
	st->elem = intVal(list_nth(cscan->custom_private, PRIVATE_ELEM));
	st->kind = (PgbfElem) intVal(list_nth(cscan->custom_private, PRIVATE_KIND));

	/* the type and the constants, as the planner checked them (match_build_agg) */
	info = pgbf_func_info(st->aggref->aggfnoid);
	if (info.role != PGBF_FN_AGG || info.nargs != list_length(st->aggref->args))
		elog(ERROR, "bloomfilter build scan: its aggregate is no longer the extension's");
	st->ops = info.ops;
	st->sized = info.nargs == 3;
	if (!call_params(st->aggref, &st->fpr, &st->capacity))
		elog(ERROR, "bloomfilter build scan: its aggregate's arguments are not constants");

	st->ntables = intVal(list_nth(cscan->custom_private, PRIVATE_NTABLES));
	st->tables = palloc0(Max(st->ntables, 1) * sizeof(BuildTable));
	for (int i = 0; i < st->ntables; i++)
	{
		BuildTable *t = &st->tables[i];
		Node	   *element = plan_element(cscan, i);
		List	   *quals = plan_quals(cscan, i);

		t->rel = ExecOpenScanRelation(estate, plan_relid(cscan, i), eflags);

		/*
		 * The element's expression and the WHERE clause, prepared
		 * standalone (no parent node): given the scan node, an expression
		 * would take the scan slot for its tuple's layout, the aggregate's
		 * value in a virtual slot, and read the table's tuples as if
		 * deformed.
		 */
		if (st->elem == ELEM_EXPR)
			t->element = ExecPrepareExpr((Expr *) element, estate);
		else
		{
			Var		   *v = element_var(element);

			if (v == NULL || v->varattno <= 0 || v->varlevelsup != 0)
				elog(ERROR, "bloomfilter build scan: no element column");
			t->attno = v->varattno;
		}
		if (quals != NIL)
			t->qual = ExecPrepareQual(quals, estate);
		if (t->element != NULL || t->qual != NULL)
			t->slot = ExecInitExtraTupleSlot(estate, RelationGetDescr(t->rel), &TTSOpsHeapTuple);
	}
	st->bscan_cxt = AllocSetContextCreate(estate->es_query_cxt, "bloomfilter build scan",
										  ALLOCSET_DEFAULT_SIZES);
	st->page_cxt = AllocSetContextCreate(estate->es_query_cxt, "bloomfilter build scan page",
										 ALLOCSET_DEFAULT_SIZES);
}

/*
 * The element of the row in slot, if the row passes the table's WHERE
 * clause, evaluated as the Seq Scan and the Agg node evaluate them
 */
static bool
row_element(BuildScanState *st, TupleTableSlot *slot, Datum *d, bool *isnull)
{
	BuildTable *t = st->table;
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	if (t->qual != NULL && !ExecQual(t->qual, econtext))
	{
		InstrCountFiltered1(st, 1);
		return false;
	}
	if (t->element != NULL)
		*d = ExecEvalExprSwitchContext(t->element, econtext, isnull);
	else
		*d = slot_getattr(slot, t->attno, isnull);
	return true;
}

/* the element of the page's tuple at off, if it passes the WHERE clause */
static bool
page_element(BuildScanState *st, Page page, BlockNumber block, OffsetNumber off,
			 Datum *d, bool *isnull)
{
	BuildTable *t = st->table;

	if (t->slot == NULL)
		return pgbf_page_attr(t->rel, page, block, off, t->attno, d, isnull);
	if (!pgbf_page_tuple(t->rel, page, block, off, &st->tuple))
		return false;
	ExecStoreHeapTuple(&st->tuple, t->slot, false);
	return row_element(st, t->slot, d, isnull);
}

/*
 * Queue the hash of a row's element (none if NULL).  The state is made at
 * the first row, NULL or not, as the transition makes it (no row: the
 * final function gets no state, as from the Agg node).
 */
static inline void
push_element(BuildScanState *st, Datum d, bool isnull)
{
	if (st->pending == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(st->bscan_cxt);

		st->pending = st->ops->agg_start(st->bscan_cxt, st->fpr, st->capacity, st->sized);
		st->seed = ((const BfHeader *) st->pending->flat)->seed;
		MemoryContextSwitchTo(old);
	}
	if (!isnull)
		pgbf_pending_push(st->pending,
						  pgbf_element_hash(st->elem == ELEM_EXPR ? ELEM_COLUMN : st->elem,
											st->kind, st->seed, d));
}

/*
 * queue the element hash of every visible tuple of the scan's current heap
 * page that passes the WHERE clause
 */
static void
push_page(BuildScanState *st, const PgbfHeapPage *pg)
{
	Page		page = pg->page;
	MemoryContext old = MemoryContextSwitchTo(st->page_cxt);

	pgbf_page_prefetch_once(page);
	for (int i = 0; i < pg->ntuples; i++)
	{
		Datum		d;
		bool		isnull;

		if (page_element(st, page, pg->block, pg->offsets[i], &d, &isnull))
			push_element(st, d, isnull);
	}
	if (st->table->slot)
		ExecClearTuple(st->table->slot);
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->page_cxt);
}

/* queue the elements of the rows of table t */
static void
push_table(BuildScanState *st, BuildTable *t)
{
	EState	   *estate = st->css.ss.ps.state;
	TableScanDesc scan;
	TupleTableSlot *slot;
	bool		page_mode = pgbf_heap_paged(t->rel);
	BlockNumber done_block = InvalidBlockNumber;
	MemoryContext old = MemoryContextSwitchTo(st->bscan_cxt);

	st->table = t;
	scan = pgbf_table_beginscan(t->rel, estate->es_snapshot);
	slot = table_slot_create(t->rel, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		if (page_mode)
		{
			BlockNumber block = ItemPointerGetBlockNumber(&slot->tts_tid);
			PgbfHeapPage pg;

			if (block == done_block)
				continue;
			if (pgbf_heap_scan_page(scan, block, &pg))
			{
				push_page(st, &pg);
				done_block = block;

				/*
				 * The page is done: have the scan go on from its last
				 * visible tuple, so the next call reads the next page
				 * instead of storing each of this one's tuples in the slot
				 */
				pgbf_heap_scan_skip_to(scan, pg.ntuples - 1);
				continue;
			}
		}
		{
			Datum		d;
			bool		null;

			if (row_element(st, slot, &d, &null))
			{
				MemoryContextSwitchTo(st->page_cxt);
				push_element(st, d, null);
				MemoryContextSwitchTo(st->bscan_cxt);
				MemoryContextReset(st->page_cxt);
			}
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	MemoryContextSwitchTo(old);
}

/*
 * The aggregate's value: every row's element queued in a pending state as
 * the transition does it (push_element), table by table in the order the
 * Append node would read them, and the value made of that state, or of
 * no state for no rows, as the final function makes it (typeops.h).
 */
static Datum
bscan_value(BuildScanState *st, bool *isnull)
{
	MemoryContext old;
	Datum		result;

	st->pending = NULL;
	for (int i = 0; i < st->ntables; i++)
		push_table(st, &st->tables[i]);

	old = MemoryContextSwitchTo(st->bscan_cxt);
	result = st->ops->agg_finish(st->pending, st->fpr, st->capacity, st->sized);
	*isnull = false;
	MemoryContextSwitchTo(old);
	return result;
}

/* the scan's one tuple: the aggregate's value (the junk columns NULL) */
static TupleTableSlot *
store_value(BuildScanState *st, TupleTableSlot *slot)
{
	ExecClearTuple(slot);
	for (int i = 1; i < slot->tts_tupleDescriptor->natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	slot->tts_values[0] = bscan_value(st, &slot->tts_isnull[0]);
	return ExecStoreVirtualTuple(slot);
}

static TupleTableSlot *
bscan_next(ScanState *ss)
{
	BuildScanState *st = (BuildScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;

	if (st->done)
		return NULL;
	st->done = true;
	return store_value(st, slot);
}

/*
 * EvalPlanQual (scanrelid 0: the recheck makes the row).  The plan never
 * has row marks of its own (bscan_upper_paths), and a subquery holding it is
 * rechecked from its saved row, so this is not expected to run; if it
 * does, the row is the aggregate's.
 */
static bool
bscan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	BuildScanState *st = (BuildScanState *) ss;

	if (TupIsNull(slot))
		(void) store_value(st, slot);
	return true;
}

static TupleTableSlot *
bscan_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, bscan_next, bscan_recheck);
}

static void
bscan_end(CustomScanState *node)
{
}

static void
bscan_rescan(CustomScanState *node)
{
	BuildScanState *st = (BuildScanState *) node;

	ExecClearTuple(node->ss.ss_ScanTupleSlot);
	MemoryContextReset(st->bscan_cxt);
	st->pending = NULL;
	st->done = false;
	ExecScanReScan(&node->ss);
}

static void
bscan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BuildScanState *st = (BuildScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	RangeTblEntry *rte = exec_rt_fetch(plan_relid(cscan, -1), node->ss.ps.state);
	List	   *context;
	List	   *quals;

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	ExplainPropertyText("Table", get_rel_name(rte->relid), es);
	/* an inheritance tree: how many tables are read, and (VERBOSE) which */
	if (rte->inh)
	{
		ExplainPropertyInteger("Tables Read", NULL, st->ntables, es);
		if (es->verbose)
		{
			List	   *names = NIL;

			for (int i = 0; i < st->ntables; i++)
				names = lappend(names, RelationGetRelationName(st->tables[i].rel));
			ExplainPropertyList("Tables", names, es);
		}
	}
	ExplainPropertyText("Aggregate",
						deparse_expression((Node *) st->aggref, context, es->verbose, false),
						es);

	/*
	 * The WHERE clause, shown as a scan's filter is: the first table's (each
	 * table's is the same clause in its own columns), its columns named
	 * without that table's alias when there are several tables
	 */
	quals = st->ntables > 0 ? plan_quals(cscan, 0) : NIL;
	if (quals != NIL)
	{
		PgbfNodeInstrumentation *instr = node->ss.ps.instrument;

		ExplainPropertyText("Filter",
							deparse_expression((Node *) make_ands_explicit(quals),
											   context, es->verbose && !rte->inh, false),
							es);
		if (es->analyze && instr != NULL && instr->nloops > 0 &&
			(instr->nfiltered1 > 0 || es->format != EXPLAIN_FORMAT_TEXT))
			ExplainPropertyFloat("Rows Removed by Filter", NULL,
								 instr->nfiltered1 / instr->nloops, 0, es);
	}
}

/* ---- set-up ---- */

void
pgbf_build_scan_init(void)
{
	DefineCustomBoolVariable("bloomfilter.enable_build_scan",
							 "Lets the planner use bloomfilter's build scan.",
							 "A sequential scan that builds a bloom_agg, "
							 "counting_bloom_agg or cuckoo_agg filter of a table's "
							 "column a heap page at a time, in place of the Agg node.",
							 &enable_build_scan, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	RegisterCustomScanMethods(&bscan_scan_methods);
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = bscan_upper_paths;
}
