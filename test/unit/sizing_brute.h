/*
 * sizing_brute.h
 *		The smallest array any k allows, found by brute force, for the unit
 *		tests of the size search (model.c's bf_cells_geometry).
 *
 * The rate compared with the target is the one the search uses
 * (bf_sizing_rate), so these check the search, not the model.  For every
 * k = 1..64 a bisection finds the fewest units (unit cells each, at most
 * max_units) that meet it (brute_smallest_cells_k); brute_smallest_cells
 * is the least over k, in cells, or 0 if no k fits.  Slow (thousands of
 * model evaluations): tests only.
 */
#ifndef SIZING_BRUTE_H
#define SIZING_BRUTE_H

#include "bfcore.h"

/*
 * The fewest cells (whole units, at most max_units) meeting fpr with k, 0
 * if none: the core's bisection for one k (bf_smallest_units_k), which
 * the size search itself does not use for its smallest geometry, so the
 * two still check each other.
 */
static inline uint64_t
brute_smallest_cells_k(uint64_t n, double fpr, uint32_t k, uint32_t block_cells,
					   uint64_t unit, uint64_t max_units)
{
	return bf_smallest_units_k(n, fpr, k, block_cells, unit, 1, max_units) * unit;
}

static inline uint64_t
brute_smallest_cells(uint64_t n, double fpr, uint32_t block_cells, uint64_t unit,
					 uint64_t max_units)
{
	uint64_t	best = 0;

	for (uint32_t k = 1; k <= 64; k++)
	{
		uint64_t	c = brute_smallest_cells_k(n, fpr, k, block_cells, unit, max_units);

		if (c != 0 && (best == 0 || c < best))
			best = c;
	}
	return best;
}

#endif							/* SIZING_BRUTE_H */
