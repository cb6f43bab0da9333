/*
 * keyset_sql.h
 *		The self-sizing aggregate machinery every filter type shares.
 */
#ifndef KEYSET_SQL_H
#define KEYSET_SQL_H

#include "postgres.h"

#include "fmgr.h"

#include "keyset.h"
#include "pg_common.h"

extern Datum pgbf_keyset_trans(FunctionCallInfo fcinfo, BfKind target, PgbfElem kind);
/* ERROR: more distinct inputs than a keyset holds */
extern void pgbf_keyset_too_many(const KeySet *ks) pg_attribute_noreturn();
extern const KeySet *pgbf_keyset_final_state(FunctionCallInfo fcinfo, int fpr_argno,
											 int capacity_argno, double *fpr,
											 int64 *capacity);

#endif							/* KEYSET_SQL_H */
