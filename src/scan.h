/*
 * scan.h
 *		The scans: the probe scan (scan.c), a sequential scan that answers
 *		a bloom_contains-style qual a heap page at a time, and the build
 *		scan (buildscan.c), which stands in for bloom_agg and kin over a
 *		table.
 */
#ifndef PGBF_SCAN_H
#define PGBF_SCAN_H

#include "pg_common.h"

#include "nodes/primnodes.h"

/* set up each scan's GUC, planner hook and custom scan methods: _PG_init */
extern void pgbf_scan_init(void);
extern void pgbf_build_scan_init(void);

/*
 * The column an element expression reads (of relid; of any rel if 0), and
 * how the element is made of its value (ELEM_*), or NULL when e is not one
 * of those forms (scan.c); the hash of that element of a column value d.
 */
#define ELEM_COLUMN	0			/* the column itself, or a binary-compatible cast */
#define ELEM_INT4	1			/* integer column cast to bigint */
#define ELEM_INT2	2			/* smallint column cast to bigint */
#define ELEM_URL	3			/* url_normalize(column) */
extern Var *pgbf_element_column(Node *e, Index relid, int *elem);
extern uint64 pgbf_element_hash(int elem, PgbfElem kind, uint64 seed, Datum d);

#endif
