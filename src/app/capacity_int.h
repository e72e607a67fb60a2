/* Shared by the two ways of computing capacity (capacity.c from the store,
 * capacity_remote.c from a Prometheus-compatible server): what is done with the rows and
 * buckets once they are gathered. Internal to src/app/. */
#ifndef GPUPLAN_APP_CAPACITY_INT_H
#define GPUPLAN_APP_CAPACITY_INT_H

#include "gpuplan/capacity.h"

/* The groups (fleet, per model, per node) and the load duration curve of c's rows and
 * buckets; c->rows' figures are already computed. */
void cap_summarise(gp_capacity *c);
/* With --by and an all-in rate: each label value's share of the fleet's cost, and the idle. */
void cap_chargeback(gp_capacity *c, double rate);

#endif
