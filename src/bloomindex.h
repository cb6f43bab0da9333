/*
 * bloomindex.h
 *		The bloomfilter index access method: a scalable blocked Bloom
 *		filter kept in the pages of an index, maintained by the table's
 *		writes and probed with bloom_index_contains.  What the rest of the
 *		module sees of it; bloomindex_int.h is its inside (the pages, the
 *		WAL records, the files and what they share).
 */
#ifndef BLOOMINDEX_H
#define BLOOMINDEX_H

#include "postgres.h"

/* _PG_init's: the options, the transaction callback, the WAL records */
extern void pgbf_index_init(void);
extern void pgbf_index_wal_init(void);

/*
 * The probe scan's side (scan.c): a bloomfilter index (or a partitioned
 * one's leaves) opened for probes of elements of type elemtype, after the
 * checks bloom_index_contains makes (privilege, kind, element type); the
 * hashes' seed; out[i] = whether h[i] is in it; closed at the scan's end.
 */
typedef struct PgbfIndexProbe PgbfIndexProbe;

/*
 * Whether every leaf of index indexoid hashes its elements with the
 * module's own support functions (bloom_hash), so the probe scan, which
 * hashes as the module does, answers as the function; true for what is
 * not a bloomfilter index (the probe reports that).  pgbf_index_probe_open
 * refuses an index that does not.
 */
extern bool pgbf_index_hashes_as_module(Oid indexoid);

extern PgbfIndexProbe *pgbf_index_probe_open(Oid indexoid, Oid elemtype);
extern uint64 pgbf_index_probe_seed(const PgbfIndexProbe *p);
extern void pgbf_index_probe_many(const PgbfIndexProbe *p, const uint64 *h, size_t n,
								  bool *out);
extern void pgbf_index_probe_close(PgbfIndexProbe *p);

#endif							/* BLOOMINDEX_H */
