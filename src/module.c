/*
 * module.c
 *		The module's one init: PG_MODULE_MAGIC, the core's interrupt hook,
 *		the GUCs, hooks and custom scans of the probe and build scans, the
 *		index access method's reloptions, the catalog cache of the
 *		extension's functions.  Nothing below this file calls into it.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/builtins.h"

#include "bloomindex.h"
#include "funcs.h"
#include "pg_common.h"
#include "scan.h"

PGBF_MODULE_MAGIC;

void		_PG_init(void);

/*
 * The core's long loops call this between chunks of work (bfcore.h), so
 * that a cancel, a statement timeout or a terminate ends them there.
 */
static void
pgbf_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	bf_interrupt_hook = pgbf_check_interrupts;
	pgbf_argcache_init();
	pgbf_funcs_init();
	pgbf_scan_init();
	pgbf_build_scan_init();
	pgbf_index_init();
	pgbf_index_wal_init();
	MarkGUCPrefixReserved("bloomfilter");
}

/*
 * The version of the loaded module (the extension version it was built
 * as).  The install and update scripts compare it with their own, so a
 * catalog is never installed over an older module (a backend that loaded
 * the module before a newer one was installed keeps the old one).
 */
PG_FUNCTION_INFO_V1(bloomfilter_module_version);
Datum
bloomfilter_module_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(PGBF_VERSION));
}
