/* sim_masks.h: an event whose unit mask selects several cases counts the
 * sum of those cases (sim_masks.c). Internal to the simulated PMU. */
#ifndef PMCTOP_SIM_MASKS_H
#define PMCTOP_SIM_MASKS_H

#include "model.h"

/* The events that count each case event e's unit mask selects, one bit
 * each, when the model defines every one of them (an array the caller
 * frees, its length in *n); NULL when e selects one case, uses a counter
 * mask, invert or edge, is not an AMD raw event, or a case is missing. */
int *sim_mask_parts(const struct model *m, int e, int *n);

#endif
