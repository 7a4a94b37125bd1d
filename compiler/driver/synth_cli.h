/* synth_cli.h - what `collc compare --synth` takes from `collc synth`
 * (cmd_synth.c; docs/synth.md). */
#ifndef COLLC_SYNTH_CLI_H
#define COLLC_SYNTH_CLI_H

#include "driver/cost_cli.h"

/* How many schedules synth_for_compare makes at most per collective. */
enum { SYNTH_COMPARE_MAX = 2 };

/* The bandwidth-optimal and the latency-optimal schedule of `coll` on t
 * (root and machine from c), named "synth:bandwidth" and "synth:latency",
 * into out[0] and out[1] (schedule_free them). Returns 2, 0 when synth does
 * not make this collective, or -1 after reporting an error. */
int synth_for_compare(Session *s, const CostCli *c, TopoModel *t, Collective coll, Schedule out[SYNTH_COMPARE_MAX]);

#endif
