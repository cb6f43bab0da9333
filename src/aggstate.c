/*
 * aggstate.c
 *		Aggregate helpers every filter type shares: the pending state (an
 *		expanded object holding the value and a queue of hashes), NULL
 *		handling of combining transitions, and the parameters a final
 *		function over zero rows reads from its own call.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "pg_common.h"


/* ---- aggregates ---- */

static Size
pending_get_flat_size(ExpandedObjectHeader *eohptr)
{
	PgbfPending *p = (PgbfPending *) eohptr;

	if (p->npending > 0)
		p->flush(p);
	return VARSIZE(p->flat);
}

static void
pending_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	PgbfPending *p = (PgbfPending *) eohptr;

	Assert(p->npending == 0 && allocated_size == VARSIZE(p->flat));
	bf_copy(result, p->flat, allocated_size);
}

const ExpandedObjectMethods pgbf_pending_methods = {
	pending_get_flat_size,
	pending_flatten_into
};

static bool
is_pending_state(Datum d)
{
	return VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) &&
		DatumGetEOHP(d)->eoh_methods == &pgbf_pending_methods;
}

/*
 * The memory context of pending states: one per aggregate context, shared
 * by every group's state, not one per state.
 *
 * The executor keeps a read-write expanded transition value without
 * copying only if its context is a child of the aggregate context.  But a
 * hash aggregate sums the memory of the aggregate context, children
 * included, every time it starts a new group (hash_agg_check_limits): with
 * a context per group that is quadratic in the number of groups, and
 * every context costs an 8 kB block.
 *
 * Sharing is safe because a pending state is never replaced by another
 * value while it lives (transition functions update it in place and
 * return it; see pgbf_state_result for the combine functions), so the
 * executor never deletes one state's object, which would delete them all;
 * they all go when the aggregate context is reset.  A callback forgets the
 * context when that happens.
 */
#define STATE_CXT_SLOTS 8

typedef struct StateCxt
{
	MemoryContext aggcxt;
	MemoryContext cxt;
} StateCxt;

typedef struct StateCxtGone
{
	MemoryContextCallback cb;
	int			slot;
	MemoryContext cxt;
} StateCxtGone;

static StateCxt state_cxts[STATE_CXT_SLOTS];
static int	state_cxt_next;

static void
state_cxt_gone(void *arg)
{
	StateCxtGone *g = (StateCxtGone *) arg;

	if (state_cxts[g->slot].cxt == g->cxt)
		state_cxts[g->slot].aggcxt = state_cxts[g->slot].cxt = NULL;
}

static MemoryContext
state_context(MemoryContext aggcxt)
{
	int			slot = -1;
	StateCxtGone *g;
	MemoryContext cxt;

	for (int i = 0; i < STATE_CXT_SLOTS; i++)
	{
		if (state_cxts[i].aggcxt == aggcxt)
			return state_cxts[i].cxt;
		if (slot < 0 && state_cxts[i].aggcxt == NULL)
			slot = i;
	}
	/* all in use (eight aggregate contexts at once): forget one */
	if (slot < 0)
	{
		slot = state_cxt_next;
		state_cxt_next = (state_cxt_next + 1) % STATE_CXT_SLOTS;
	}
	cxt = AllocSetContextCreate(aggcxt, "bloomfilter aggregate states",
								ALLOCSET_DEFAULT_SIZES);
	g = MemoryContextAlloc(cxt, sizeof(StateCxtGone));
	g->cb.func = state_cxt_gone;
	g->cb.arg = g;
	g->slot = slot;
	g->cxt = cxt;
	MemoryContextRegisterResetCallback(cxt, &g->cb);
	state_cxts[slot].aggcxt = aggcxt;
	state_cxts[slot].cxt = cxt;
	return cxt;
}

PgbfPending *
pgbf_pending_new(MemoryContext aggcxt, PgbfFlushFn flush)
{
	MemoryContext cxt = state_context(aggcxt);
	PgbfPending *p = MemoryContextAllocZero(cxt, sizeof(PgbfPending));

	EOH_init_header(&p->hdr, &pgbf_pending_methods, cxt);
	p->flush = flush;
	p->pending = p->small;
	p->maxpending = PGBF_PENDING_SMALL;
	return p;
}

/*
 * A short queue while the state fits in cache (one per group of a GROUP BY:
 * the memory adds up), the long one once it does not and prefetching far
 * ahead pays.
 */
void
pgbf_pending_full(PgbfPending *p)
{
	if (p->queue_target != NULL)
	{
		size_t		want = p->queue_target(p);

		if (want > (size_t) p->maxpending && want <= (size_t) PG_INT32_MAX / sizeof(uint64))
		{
			/*
			 * repalloc: a queue in a block of its own is realloc'd, which
			 * moves its pages instead of copying them into new ones
			 */
			if (p->pending == p->small)
			{
				p->pending = MemoryContextAlloc(p->hdr.eoh_context, want * sizeof(uint64));
				memcpy(p->pending, p->small, p->npending * sizeof(uint64));
			}
			else
				p->pending = repalloc(p->pending, want * sizeof(uint64));
			p->maxpending = (int) want;
		}
		else
			p->flush(p);
		return;
	}
	p->flush(p);
	if (p->maxpending < PGBF_PENDING_MAX && VARSIZE(p->flat) >= PGBF_PENDING_BIG_STATE)
	{
		p->pending = MemoryContextAlloc(p->hdr.eoh_context, PGBF_PENDING_MAX * sizeof(uint64));
		p->maxpending = PGBF_PENDING_MAX;
	}
}

void
pgbf_pending_release_queue(PgbfPending *p)
{
	Assert(p->npending == 0);
	if (p->pending != p->small)
	{
		pfree(p->pending);
		p->pending = p->small;
		p->maxpending = PGBF_PENDING_SMALL;
	}
}

PgbfPending *
pgbf_pending_arg(FunctionCallInfo fcinfo, MemoryContext aggcxt, PgbfFlushFn flush)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);
	struct varlena *v;

	if (p != NULL || PG_ARGISNULL(0))
		return p;

	/* a flat state (or a read-only one): continue from a private copy */
	v = pgbf_state_flat(PG_GETARG_DATUM(0));
	p = pgbf_pending_new(aggcxt, flush);
	pgbf_pending_copy_flat(p, v);
	return p;
}

void
pgbf_pending_set_flat(PgbfPending *p, struct varlena *v, void *alloc)
{
	if (p->flat_alloc)
		pfree(p->flat_alloc);
	p->flat = v;
	p->flat_alloc = alloc;
}

void
pgbf_pending_copy_flat(PgbfPending *p, const struct varlena *v)
{
	void	   *alloc;
	struct varlena *copy = pgbf_alloc_value_aligned(p->hdr.eoh_context, VARSIZE(v), &alloc);

	bf_copy(copy, v, VARSIZE(v));
	pgbf_pending_set_flat(p, copy, alloc);
}

PgbfPending *
pgbf_state_pending(Datum d)
{
	return is_pending_state(d) ? (PgbfPending *) DatumGetEOHP(d) : NULL;
}

struct varlena *
pgbf_state_flat(Datum d)
{
	if (is_pending_state(d))
	{
		PgbfPending *p = (PgbfPending *) DatumGetEOHP(d);

		if (p->npending > 0)
			p->flush(p);
		return p->flat;
	}
	return PG_DETOAST_DATUM(d);
}

Datum
pgbf_state_result(FunctionCallInfo fcinfo, struct varlena *v)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);

	if (p == NULL)
		return PointerGetDatum(v);
	if (v != p->flat)
		pgbf_pending_copy_flat(p, v);
	return pgbf_pending_datum(p);
}

MemoryContext
pgbf_agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (AggCheckCallContext(fcinfo, &cxt))
		return cxt;
	return NULL;
}

bool
pgbf_combine_nulls(FunctionCallInfo fcinfo, Datum *result)
{
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
		{
			fcinfo->isnull = true;
			*result = (Datum) 0;
		}
		else
			*result = PG_GETARG_DATUM(0);
		return true;
	}
	if (PG_ARGISNULL(0))
	{
		*result = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(1)));
		return true;
	}
	return false;
}

/*
 * The value of an aggregate's parameter argument (capacity, fpr, ...) for
 * a final function over zero rows, which has no row to read it from: a
 * constant, or an expression of no column (a prepared statement's
 * parameter) evaluated in the aggregate's context.  Where the call cannot
 * be seen (a final function called by Citus's coordinator, whose workers
 * all had zero rows) or the argument reads a column, this raises an error
 * rather than build an empty filter of other parameters than asked for,
 * and so does a NULL, as the transition functions do.  false: the call
 * is to a form of the aggregate without this parameter.
 */
/*
 * The partial Aggref a combining (Finalize) Aggref stands for: its one
 * argument is a Var of the partial aggregate's output, passed up through
 * the plans below (a Gather, a Sort) as Vars of their outer plan's
 * targetlist.  NULL if the chain is not of that form.
 */
static Aggref *
partial_aggref(Plan *plan, Expr *e)
{
	for (int depth = 0; depth < 32 && plan != NULL; depth++)
	{
		Var		   *v;

		if (IsA(e, Aggref))
			return (Aggref *) e;
		if (!IsA(e, Var))
			return NULL;
		v = (Var *) e;
		if (v->varno != OUTER_VAR || plan->lefttree == NULL ||
			v->varattno < 1 || v->varattno > list_length(plan->lefttree->targetlist))
			return NULL;
		plan = plan->lefttree;
		e = ((TargetEntry *) list_nth(plan->targetlist, v->varattno - 1))->expr;
	}
	return NULL;
}

/*
 * The Aggref whose final function fcinfo is, with the arguments the call
 * was written with, or NULL when they cannot be seen: the final function
 * called outside an Agg, or by another aggregate's (Citus's coordinator
 * calls it from its own wrapper aggregate, whose Aggref AggGetAggref then
 * gives), or a Finalize Aggref whose partial one cannot be found.
 */
static Aggref *
own_aggref(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	HeapTuple	tup;
	Oid			finalfn;

	if (aggref == NULL)
		return NULL;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tup))
		return NULL;
	finalfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn;
	ReleaseSysCache(tup);
	if (fcinfo->flinfo == NULL || finalfn != fcinfo->flinfo->fn_oid)
		return NULL;

	/* a parallel plan's Finalize Aggregate: its args are the partial state */
	if (DO_AGGSPLIT_COMBINE(aggref->aggsplit))
	{
		if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState) ||
			list_length(aggref->args) != 1)
			return NULL;
		aggref = partial_aggref(((AggState *) fcinfo->context)->ss.ps.plan,
								((TargetEntry *) linitial(aggref->args))->expr);
		if (aggref == NULL || DO_AGGSPLIT_COMBINE(aggref->aggsplit))
			return NULL;
	}
	return aggref;
}

static pg_noreturn void
agg_param_null(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("an aggregate's parameters (capacity, fpr, ...) must not be NULL")));
}

bool
pgbf_agg_const_arg(FunctionCallInfo fcinfo, int argno, Datum *value)
{
	Aggref	   *aggref = own_aggref(fcinfo);
	TargetEntry *tle;
	Expr	   *e;

	/*
	 * A form of the aggregate without this parameter: the default (args
	 * also holds an ORDER BY's expressions, after the arguments).
	 */
	if (aggref != NULL && argno >= list_length(aggref->aggargtypes))
		return false;
	if (aggref == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an aggregate over zero rows cannot find the parameters it was given here"),
				 errdetail("Its final function was called outside an aggregate (on a distributed plan's coordinator, say)."),
				 errhint("Make an empty filter with the type's create function when the input may be empty.")));
	if (argno >= list_length(aggref->args))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an aggregate over zero rows cannot find the parameters it was given here")));
	tle = (TargetEntry *) list_nth(aggref->args, argno);
	e = tle->expr;
	if (IsA(e, Const))
	{
		if (((Const *) e)->constisnull)
			agg_param_null();
		*value = ((Const *) e)->constvalue;
		return true;
	}
	if (!contain_var_clause((Node *) e) && fcinfo->context != NULL &&
		IsA(fcinfo->context, AggState))
	{
		AggState   *agg = (AggState *) fcinfo->context;
		ExprState  *st = ExecInitExpr(e, &agg->ss.ps);
		bool		isnull;

		*value = ExecEvalExprSwitchContext(st, agg->ss.ps.ps_ExprContext, &isnull);
		if (isnull)
			agg_param_null();
		return true;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("an aggregate over zero rows cannot evaluate its parameter argument %d", argno + 1),
			 errhint("Give the aggregate's parameters as constants or query parameters, not columns.")));
	pg_unreachable();
}
