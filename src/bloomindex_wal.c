/*
 * bloomindex_wal.c
 *		How the index's adds to a group of data pages are logged: the
 *		module's own WAL resource manager (one record for the group), or,
 *		without the preload, generic WAL records the module writes itself
 *		(bloomindex.h).
 *
 * The own record says what changed in the fewest bytes: per page, the
 * fields of its special space the adds change (all of it for a new page)
 * and each add as (block slot, hash), which redo sets again with the same
 * bloom_block_set the writer used (bfidx_apply_change), so a replayed
 * page equals the written one.  A
 * metapage in the record carries the new pool of the stage whose pages
 * borrowed from it.  Full-page images, torn-page protection and standbys
 * come with the block references, as for any record.
 *
 * A custom resource manager must be registered before recovery starts,
 * so only when the module is in shared_preload_libraries (PostgreSQL 15
 * and later); then, with bloomfilter.index_wal = 'auto', the adds are
 * logged this way.  Every server that replays such WAL (after a crash, a
 * standby, point-in-time recovery) must preload the module too, with the
 * same bloomfilter.wal_rmgr_id; doc/index.md says how to stop using it.
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/rmgr.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"

#include "bloomindex_int.h"

#ifdef PGBF_CUSTOM_WAL
#include "access/bufmask.h"
#include "access/xlog_internal.h"
#endif

/*
 * Not 0x00: builds that logged each page's whole special space used it,
 * and a server running one stops at this record rather than misread it
 */
#define XLOG_BFIDX_ADD			0x10

/*
 * A block's data in an ADD record: this, then for a page to initialize
 * its whole special space, else the fields an add changes (units,
 * bits_set, and budget if the page borrowed from the pool), then nadds x
 * (uint16 slot, uint64 hash), all unaligned.  The rest of a written
 * page's special space is set once, when the page is initialized, and
 * most records carry many pages with an add or two each, so each page's
 * 20 bytes rather than 68 is most of a record.
 */
typedef struct BfIdxWalPage
{
	uint16		flags;			/* BFIDX_WAL_* */
	uint16		nadds;
} BfIdxWalPage;

#define BFIDX_WAL_INIT			0x0001	/* initialize the page first */
#define BFIDX_WAL_BUDGET		0x0002	/* the page's budget grew */
#define BFIDX_WAL_PAGE_MAX		(sizeof(BfIdxWalPage) + sizeof(BfIdxPageOpaque))

typedef struct BfIdxWalMeta
{
	uint32		stage;
	uint64		pool;
} BfIdxWalMeta;

/* the record's main data */
typedef struct BfIdxWalAddHeader
{
	uint32		nhashes;
	uint32		npages;
} BfIdxWalAddHeader;

typedef enum
{
	INDEX_WAL_AUTO,
	INDEX_WAL_GENERIC,
} IndexWalMode;

static const struct config_enum_entry index_wal_options[] = {
	{"auto", INDEX_WAL_AUTO, false},
	{"generic", INDEX_WAL_GENERIC, false},
	{NULL, 0, false}
};

static int	index_wal_mode = INDEX_WAL_AUTO;
static bool rmgr_registered = false;
#ifdef PGBF_CUSTOM_WAL
static int	wal_rmgr_id = 128;
#endif

/*
 * Set the adds of one page: initialize it if asked, then its special
 * space, then each add's bits.  The writer and redo both come here.
 */
void
bfidx_apply_change(Page page, bool init, const BfIdxPageOpaque *o, uint32 nhashes,
				   const char *adds, int nadds)
{
	if (init)
		bfidx_init_data_page(page);
	memcpy(bfidx_opaque_of(page), o, sizeof(BfIdxPageOpaque));
	for (int i = 0; i < nadds; i++)
	{
		uint16		slot;
		uint64		h;

		memcpy(&slot, adds + (Size) i * BFIDX_WAL_ADD_BYTES, sizeof(slot));
		memcpy(&h, adds + (Size) i * BFIDX_WAL_ADD_BYTES + sizeof(slot), sizeof(h));
		/* redo of a damaged record must not write past the page */
		if (slot >= BFIDX_BLOCKS_PER_PAGE)
			elog(PANIC, "bloomfilter index WAL: block slot %u out of range", slot);
		bloom_block_set(bfidx_block_of(page, slot), h, nhashes);
	}
}

bool
pgbf_index_own_wal(void)
{
	return rmgr_registered && index_wal_mode == INDEX_WAL_AUTO;
}

/*
 * The first logged bloomfilter index a backend builds on a server where
 * the module's own records would be used if it were preloaded, but it is
 * not: say so, with the fix.  The install section says it too, but a
 * user who missed it would otherwise meet generic WAL, a slower
 * test-and-add batch, with nothing to tell why.  Once a backend:
 * a NOTICE on every REINDEX would be noise.
 */
void
bfidx_preload_notice(Relation index)
{
#ifdef PGBF_CUSTOM_WAL
	static bool given = false;

	/*
	 * not RelationNeedsWAL: under wal_level = minimal the build itself is
	 * not logged, but the adds after it are
	 */
	if (given || rmgr_registered || index_wal_mode != INDEX_WAL_AUTO ||
		index->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		return;
	given = true;
	ereport(NOTICE,
			(errmsg("bloomfilter indexes write faster with the module preloaded"),
			 errdetail("Without shared_preload_libraries = 'bloomfilter', the index's adds are logged as generic WAL, "
					   "which makes a batch of test-and-add about 1.2 to 1.4 times slower."),
			 errhint("Add bloomfilter to shared_preload_libraries, keeping any library already listed, and restart "
					 "the server, for example: ALTER SYSTEM SET shared_preload_libraries = 'bloomfilter'; "
					 "standbys must preload it too.")));
#endif
}

/*
 * Without the preload, the adds are logged as generic WAL records
 * (RM_GENERIC_ID), which every server replays with no module loaded, but
 * written here rather than by GenericXLogStart/Finish.  Those copy each
 * registered page, all 8 kB, and compare the copy with the page to find
 * what changed; a batch's adds fall on about as many pages as it has
 * adds, so that copy and compare costs more than the adds themselves.
 * The writer knows what it changes (the 64-byte blocks of its adds and
 * the special space), so it writes the delta generic_redo applies:
 * per page, fragments of (uint16 offset, uint16 length, the bytes), the
 * format generic_xlog.c writes and reads in every PostgreSQL the module
 * builds on.  A record holds at most MAX_GENERIC_XLOG_PAGES pages
 * (generic_redo's limit), the metapage among them when a page borrowed
 * from the pool; a page to initialize, or one whose delta would reach
 * half a page, is logged as its image.  test/t/008_index.pl replays
 * these records on a standby under wal_consistency_checking = 'generic',
 * which compares every replayed page with the primary's image.
 */

/* the bytes of one fragment: header and data */
#define GENERIC_FRAG_HEADER		(2 * sizeof(uint16))

static char *
write_fragment(char *out, Size offset, const char *data, Size len)
{
	uint16		o = (uint16) offset,
				l = (uint16) len;

	memcpy(out, &o, sizeof(o));
	memcpy(out + sizeof(o), &l, sizeof(l));
	memcpy(out + GENERIC_FRAG_HEADER, data, len);
	return out + GENERIC_FRAG_HEADER + len;
}

/*
 * The fragments that take the len bytes old to new (len a multiple of 8),
 * at offset base of the page: runs of changed bytes, two runs apart by
 * less than a fragment header joined (a header costs more than the equal
 * bytes between them).  Equal words are passed over a word at a time,
 * and in a changed word only its changed bytes are visited (an add
 * changes one byte in most of the words it changes).
 */
static char *
region_delta(char *out, Size base, const uint8 *old, const uint8 *new, int len)
{
	int			start = -1,
				end = 0;

	Assert(len % sizeof(uint64) == 0);
	for (int w = 0; w < len; w += sizeof(uint64))
	{
		uint64		a,
					b,
					diff;

		memcpy(&a, old + w, sizeof(a));
		memcpy(&b, new + w, sizeof(b));
		diff = a ^ b;
		while (diff != 0)
		{
			int			i;

			/* the changed byte at the lowest address: its place in the word */
#ifdef WORDS_BIGENDIAN
			int			byte = pg_leftmost_one_pos64(diff) / 8;

			i = w + (int) sizeof(uint64) - 1 - byte;
#else
			int			byte = pg_rightmost_one_pos64(diff) / 8;

			i = w + byte;
#endif
			diff &= ~(UINT64CONST(0xFF) << (8 * byte));
			if (start >= 0 && i - end < (int) GENERIC_FRAG_HEADER)
				end = i + 1;
			else
			{
				if (start >= 0)
					out = write_fragment(out, base + start, (const char *) new + start, end - start);
				start = i;
				end = i + 1;
			}
		}
	}
	if (start >= 0)
		out = write_fragment(out, base + start, (const char *) new + start, end - start);
	return out;
}

/* the most bytes the delta of a page with nadds adds can take */
static Size
generic_delta_bound(int nadds)
{
	Size		blocks = Min(nadds, BFIDX_BLOCKS_PER_PAGE);

	/* a region's changed bytes in at most one fragment every two bytes */
	return blocks * (BFIDX_BLOCK_BYTES + BFIDX_BLOCK_BYTES / 2 * GENERIC_FRAG_HEADER) +
		sizeof(BfIdxPageOpaque) + sizeof(BfIdxPageOpaque) / 2 * GENERIC_FRAG_HEADER;
}

/*
 * Apply the changes and log them as one generic WAL record, in one
 * critical section: pages[i].buf (exclusively locked, pinned) get their
 * adds, metabuf (if valid, locked) the stage's new pool.  npages plus the
 * metapage are at most MAX_GENERIC_XLOG_PAGES.  The caller releases the
 * buffers.
 */
void
bfidx_log_adds_generic(uint32 nhashes, BfIdxPageChange *pages, int npages,
					   Buffer metabuf, uint32 stage, uint64 pool)
{
	char	   *delta[MAX_GENERIC_XLOG_PAGES];
	Size		len[MAX_GENERIC_XLOG_PAGES] = {0};
	uint64		pooldelta[(GENERIC_FRAG_HEADER + sizeof(uint64)) / sizeof(uint64) + 1];
	Size		poollen = 0;
	/* a page's blocks its adds touch, and its special space, before them */
	char	   *old = palloc(BFIDX_BLOCKS_PER_PAGE * BFIDX_BLOCK_BYTES);
	uint16		slots[BFIDX_BLOCKS_PER_PAGE];
	BfIdxPageOpaque oldopaque;
	XLogRecPtr	lsn;

	Assert(npages > 0 && npages + (BufferIsValid(metabuf) ? 1 : 0) <= MAX_GENERIC_XLOG_PAGES);
	for (int i = 0; i < npages; i++)
		delta[i] = pages[i].init ? NULL : palloc(generic_delta_bound(pages[i].nadds));

	START_CRIT_SECTION();
	for (int i = 0; i < npages; i++)
	{
		Page		page = BufferGetPage(pages[i].buf);
		char	   *out = delta[i];
		int			nslots = 0;

		if (!pages[i].init)
		{
			/* the adds come sorted by slot: a block's first add takes its copy */
			for (int a = 0; a < pages[i].nadds; a++)
			{
				uint16		slot;

				memcpy(&slot, pages[i].adds + (Size) a * BFIDX_WAL_ADD_BYTES, sizeof(slot));
				if (nslots > 0 && slots[nslots - 1] == slot)
					continue;
				slots[nslots] = slot;
				memcpy(old + (Size) nslots * BFIDX_BLOCK_BYTES, bfidx_block_of(page, slot),
					   BFIDX_BLOCK_BYTES);
				nslots++;
			}
			oldopaque = *bfidx_opaque_of(page);
		}
		/* the bits set as redo of the module's own record sets them */
		bfidx_apply_change(page, pages[i].init, &pages[i].opaque, nhashes, pages[i].adds,
						   pages[i].nadds);
		MarkBufferDirty(pages[i].buf);
		if (pages[i].init)
			continue;
		for (int k = 0; k < nslots; k++)
		{
			char	   *block = (char *) bfidx_block_of(page, slots[k]);

			out = region_delta(out, block - (char *) page,
							   (const uint8 *) old + (Size) k * BFIDX_BLOCK_BYTES,
							   (const uint8 *) block, BFIDX_BLOCK_BYTES);
		}
		out = region_delta(out, (char *) bfidx_opaque_of(page) - (char *) page,
						   (const uint8 *) &oldopaque, (const uint8 *) bfidx_opaque_of(page),
						   sizeof(BfIdxPageOpaque));
		len[i] = out - delta[i];
	}
	if (BufferIsValid(metabuf))
	{
		Page		metapage = BufferGetPage(metabuf);
		uint64	   *field = &bfidx_meta_of(metapage)->stages[stage].pool;

		*field = pool;
		poollen = write_fragment((char *) pooldelta, (char *) field - (char *) metapage,
								 (const char *) field, sizeof(uint64)) - (char *) pooldelta;
		MarkBufferDirty(metabuf);
	}

	XLogBeginInsert();
	for (int i = 0; i < npages; i++)
	{
		/* generic_redo has no init: a new page, or a large delta, goes whole */
		if (pages[i].init || len[i] >= BLCKSZ / 2)
			XLogRegisterBuffer((uint8) i, pages[i].buf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
		else
		{
			XLogRegisterBuffer((uint8) i, pages[i].buf, REGBUF_STANDARD);
			XLogRegisterBufData((uint8) i, delta[i], (uint32) len[i]);
		}
	}
	if (BufferIsValid(metabuf))
	{
		XLogRegisterBuffer((uint8) npages, metabuf, REGBUF_STANDARD);
		XLogRegisterBufData((uint8) npages, (char *) pooldelta, (uint32) poollen);
	}
	lsn = XLogInsert(RM_GENERIC_ID, 0);
	for (int i = 0; i < npages; i++)
		PageSetLSN(BufferGetPage(pages[i].buf), lsn);
	if (BufferIsValid(metabuf))
		PageSetLSN(BufferGetPage(metabuf), lsn);
	END_CRIT_SECTION();
	for (int i = 0; i < npages; i++)
		if (delta[i] != NULL)
			pfree(delta[i]);
	pfree(old);
}

#ifdef PGBF_CUSTOM_WAL

/*
 * Write c's page data but its adds into out (BFIDX_WAL_PAGE_MAX bytes),
 * before is the page's special space before the change; returns its length
 */
static Size
wal_page_data(char *out, const BfIdxPageChange *c, const BfIdxPageOpaque *before)
{
	BfIdxWalPage h = {0, (uint16) c->nadds};
	char	   *p = out + sizeof(h);

	if (c->init)
	{
		h.flags |= BFIDX_WAL_INIT;
		memcpy(p, &c->opaque, sizeof(c->opaque));
		p += sizeof(c->opaque);
	}
	else
	{
#ifdef USE_ASSERT_CHECKING
		BfIdxPageOpaque same = *before;

		/* an add changes nothing else: redo takes the rest from the page */
		same.units = c->opaque.units;
		same.bits_set = c->opaque.bits_set;
		same.budget = c->opaque.budget;
		Assert(memcmp(&same, &c->opaque, sizeof(same)) == 0);
#endif
		memcpy(p, &c->opaque.units, sizeof(uint64));
		memcpy(p + sizeof(uint64), &c->opaque.bits_set, sizeof(uint64));
		p += 2 * sizeof(uint64);
		if (c->opaque.budget != before->budget)
		{
			h.flags |= BFIDX_WAL_BUDGET;
			memcpy(p, &c->opaque.budget, sizeof(uint64));
			p += sizeof(uint64);
		}
	}
	memcpy(out, &h, sizeof(h));
	return p - out;
}

/* the length of page data with h's flags, but its adds */
static Size
wal_page_data_len(const BfIdxWalPage *h)
{
	if (h->flags & BFIDX_WAL_INIT)
		return sizeof(*h) + sizeof(BfIdxPageOpaque);
	return sizeof(*h) + 2 * sizeof(uint64) + ((h->flags & BFIDX_WAL_BUDGET) ? sizeof(uint64) : 0);
}

/*
 * Read back what wal_page_data wrote after h, at p, into o: all of it for
 * a page to initialize, else the fields an add changes, o coming in as
 * the page's own special space
 */
static void
wal_page_opaque(const BfIdxWalPage *h, const char *p, BfIdxPageOpaque *o)
{
	if (h->flags & BFIDX_WAL_INIT)
	{
		memcpy(o, p, sizeof(*o));
		return;
	}
	memcpy(&o->units, p, sizeof(uint64));
	memcpy(&o->bits_set, p + sizeof(uint64), sizeof(uint64));
	if (h->flags & BFIDX_WAL_BUDGET)
		memcpy(&o->budget, p + 2 * sizeof(uint64), sizeof(uint64));
}

/*
 * Apply the changes and log them, in one critical section: pages[i].buf
 * (exclusively locked, pinned) get their adds, metabuf (if valid, locked)
 * the stage's new pool.  The caller releases the buffers.
 */
void
bfidx_log_adds(uint32 nhashes, BfIdxPageChange *pages, int npages,
			   Buffer metabuf, uint32 stage, uint64 pool)
{
	char		hdr[BFIDX_WAL_MAX_PAGES][BFIDX_WAL_PAGE_MAX];
	Size		hdrlen[BFIDX_WAL_MAX_PAGES];
	BfIdxWalAddHeader main = {nhashes, (uint32) npages};
	BfIdxWalMeta wm = {stage, pool};
	XLogRecPtr	lsn;

	Assert(npages > 0 && npages <= BFIDX_WAL_MAX_PAGES);
	for (int i = 0; i < npages; i++)
		hdrlen[i] = wal_page_data(hdr[i], &pages[i], bfidx_opaque_of(BufferGetPage(pages[i].buf)));
	XLogEnsureRecordSpace(BFIDX_WAL_MAX_PAGES, 2 * BFIDX_WAL_MAX_PAGES + 2);

	START_CRIT_SECTION();
	for (int i = 0; i < npages; i++)
	{
		bfidx_apply_change(BufferGetPage(pages[i].buf), pages[i].init, &pages[i].opaque,
						   nhashes, pages[i].adds, pages[i].nadds);
		MarkBufferDirty(pages[i].buf);
	}
	if (BufferIsValid(metabuf))
	{
		bfidx_meta_of(BufferGetPage(metabuf))->stages[stage].pool = pool;
		MarkBufferDirty(metabuf);
	}

	XLogBeginInsert();
	XLogRegisterData((char *) &main, sizeof(main));
	for (int i = 0; i < npages; i++)
	{
		/*
		 * A page with more adds than its own size is logged as its image
		 * (a bulk load's commit): the record then carries no adds for it,
		 * and redo restores the image.
		 */
		if ((Size) pages[i].nadds * BFIDX_WAL_ADD_BYTES >= BLCKSZ)
		{
			XLogRegisterBuffer((uint8) i, pages[i].buf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
			continue;
		}
		XLogRegisterBuffer((uint8) i, pages[i].buf,
						   pages[i].init ? REGBUF_WILL_INIT : REGBUF_STANDARD);
		XLogRegisterBufData((uint8) i, hdr[i], (uint32) hdrlen[i]);
		if (pages[i].nadds > 0)
			XLogRegisterBufData((uint8) i, pages[i].adds,
								(uint32) pages[i].nadds * BFIDX_WAL_ADD_BYTES);
	}
	if (BufferIsValid(metabuf))
	{
		XLogRegisterBuffer((uint8) npages, metabuf, REGBUF_STANDARD);
		XLogRegisterBufData((uint8) npages, (char *) &wm, sizeof(wm));
	}
	lsn = XLogInsert((RmgrId) wal_rmgr_id, XLOG_BFIDX_ADD);
	for (int i = 0; i < npages; i++)
		PageSetLSN(BufferGetPage(pages[i].buf), lsn);
	if (BufferIsValid(metabuf))
		PageSetLSN(BufferGetPage(metabuf), lsn);
	END_CRIT_SECTION();
}

static void
redo_add(XLogReaderState *record)
{
	XLogRecPtr	lsn = record->EndRecPtr;
	BfIdxWalAddHeader main;

	if (XLogRecGetDataLen(record) != sizeof(main))
		elog(PANIC, "bloomfilter index WAL: ADD record of %u bytes", XLogRecGetDataLen(record));
	memcpy(&main, XLogRecGetData(record), sizeof(main));
	for (uint8 id = 0; id <= XLogRecMaxBlockId(record); id++)
	{
		Buffer		buf;
		Size		len;
		char	   *data;
		XLogRedoAction action;

		if (!XLogRecHasBlockRef(record, id))
			continue;
		if (id == main.npages)
		{
			BfIdxWalMeta wm;

			action = XLogReadBufferForRedo(record, id, &buf);
			if (action == BLK_NEEDS_REDO)
			{
				data = XLogRecGetBlockData(record, id, &len);
				if (len != sizeof(wm))
					elog(PANIC, "bloomfilter index WAL: metapage data of %zu bytes", len);
				memcpy(&wm, data, sizeof(wm));
				if (wm.stage >= BLOOM_MAX_STAGES)
					elog(PANIC, "bloomfilter index WAL: stage %u out of range", wm.stage);
				bfidx_meta_of(BufferGetPage(buf))->stages[wm.stage].pool = wm.pool;
				PageSetLSN(BufferGetPage(buf), lsn);
				MarkBufferDirty(buf);
			}
		}
		else
		{
			BfIdxWalPage hdr = {0};
			Size		hdrlen = 0;
			bool		init;

			/*
			 * A page restored from its full-page image has no data in the
			 * record (and needs none); a page to initialize never has an
			 * image, so its data is there.
			 */
			data = XLogRecGetBlockData(record, id, &len);
			if (data != NULL)
			{
				if (len < sizeof(hdr))
					elog(PANIC, "bloomfilter index WAL: page data of %zu bytes", len);
				memcpy(&hdr, data, sizeof(hdr));
				if (hdr.flags & ~(BFIDX_WAL_INIT | BFIDX_WAL_BUDGET))
					elog(PANIC, "bloomfilter index WAL: page flags 0x%x", hdr.flags);
				hdrlen = wal_page_data_len(&hdr);
				if (len != hdrlen + (Size) hdr.nadds * BFIDX_WAL_ADD_BYTES)
					elog(PANIC, "bloomfilter index WAL: page data of %zu bytes for %u adds",
						 len, hdr.nadds);
			}
			init = (hdr.flags & BFIDX_WAL_INIT) != 0;
			if (init)
			{
				buf = XLogInitBufferForRedo(record, id);
				action = BLK_NEEDS_REDO;
			}
			else
				action = XLogReadBufferForRedo(record, id, &buf);
			if (action == BLK_NEEDS_REDO && data == NULL)
				elog(PANIC, "bloomfilter index WAL: no data for a page to redo");
			if (action == BLK_NEEDS_REDO)
			{
				Page		page = BufferGetPage(buf);

				/* the page is as the writer found it: what is not logged is its own */
				BfIdxPageOpaque o = *bfidx_opaque_of(page);

				wal_page_opaque(&hdr, data + sizeof(hdr), &o);
				bfidx_apply_change(page, init, &o, main.nhashes, data + hdrlen, hdr.nadds);
				PageSetLSN(page, lsn);
				MarkBufferDirty(buf);
			}
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}
}

static void
bfidx_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	switch (info)
	{
		case XLOG_BFIDX_ADD:
			redo_add(record);
			break;
		default:
			elog(PANIC, "bloomfilter index WAL: unknown record type %u", info);
	}
}

static void
bfidx_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	BfIdxWalAddHeader main;
	uint64		nadds = 0;
	uint32		nnew = 0,
				nborrowed = 0;

	if (info != XLOG_BFIDX_ADD || XLogRecGetDataLen(record) != sizeof(main))
		return;
	memcpy(&main, XLogRecGetData(record), sizeof(main));
	for (uint8 id = 0; id < main.npages && id <= XLogRecMaxBlockId(record); id++)
	{
		Size		len;
		char	   *data;
		BfIdxWalPage hdr;

		if (!XLogRecHasBlockRef(record, id))
			continue;
		data = XLogRecGetBlockData(record, id, &len);
		if (data != NULL && len >= sizeof(hdr))
		{
			memcpy(&hdr, data, sizeof(hdr));
			nadds += hdr.nadds;
			nnew += (hdr.flags & BFIDX_WAL_INIT) ? 1 : 0;
			nborrowed += (hdr.flags & BFIDX_WAL_BUDGET) ? 1 : 0;
		}
	}
	appendStringInfo(buf, "pages %u (new %u, borrowed %u), adds " UINT64_FORMAT ", hashes %u%s",
					 main.npages, nnew, nborrowed, nadds, main.nhashes,
					 XLogRecHasBlockRef(record, main.npages) ? ", metapage" : "");
}

static const char *
bfidx_identify(uint8 info)
{
	return (info & ~XLR_INFO_MASK) == XLOG_BFIDX_ADD ? "ADD" : NULL;
}

/* for wal_consistency_checking: what redo may leave different */
static void
bfidx_mask(char *pagedata, BlockNumber blkno)
{
	mask_page_lsn_and_checksum((Page) pagedata);
	mask_unused_space((Page) pagedata);
}

static RmgrData bfidx_rmgr = {
	.rm_name = "bloomfilter",
	.rm_redo = bfidx_redo,
	.rm_desc = bfidx_desc,
	.rm_identify = bfidx_identify,
	.rm_mask = bfidx_mask,
};

#else							/* !PGBF_CUSTOM_WAL */

void
bfidx_log_adds(uint32 nhashes, BfIdxPageChange *pages, int npages,
			   Buffer metabuf, uint32 stage, uint64 pool)
{
	elog(ERROR, "this PostgreSQL has no custom WAL resource managers");
}

#endif							/* PGBF_CUSTOM_WAL */

void
pgbf_index_wal_init(void)
{
	DefineCustomEnumVariable("bloomfilter.index_wal",
							 "How changes to bloomfilter indexes are WAL-logged.",
							 "auto: by the module's own records when it is in shared_preload_libraries "
							 "(PostgreSQL 15 and later), else generic WAL; generic: always generic WAL.",
							 &index_wal_mode, INDEX_WAL_AUTO, index_wal_options,
							 PGC_SUSET, 0, NULL, NULL, NULL);
#ifdef PGBF_CUSTOM_WAL
	/* a server-start setting: it exists only where the module is preloaded */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("bloomfilter.wal_rmgr_id",
								"ID of the module's WAL resource manager.",
								"Every server that replays the WAL must preload the module with the same ID.",
								&wal_rmgr_id, 128, 128, 255,
								PGC_POSTMASTER, 0, NULL, NULL, NULL);
		RegisterCustomRmgr((RmgrId) wal_rmgr_id, &bfidx_rmgr);
		rmgr_registered = true;
	}
#endif
}
