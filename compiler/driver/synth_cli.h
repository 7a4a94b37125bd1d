/* synth_cli.h - what `collc compare --synth` takes from `collc synth`
 * (cmd_synth.c; docs/synth.md). */
#ifndef COLLC_SYNTH_CLI_H
#define COLLC_SYNTH_CLI_H

#include "driver/cost_cli.h"

/* How many schedules synth_for_compare makes at most per collective: the
 * bandwidth- and the latency-optimal one and up to 30 points of the
 * Pareto frontier. */
enum { SYNTH_COMPARE_MAX = 32 };

/* The schedules of `coll` on t (root and machine from c) that compare
 * --synth lists: the bandwidth-optimal and the latency-optimal one, named
 * "synth:bandwidth" and "synth:latency", then the points of the Pareto
 * frontier (--objective pareto) that cost other than both, named
 * "synth:sSTEPS" as `synth --objective pareto -o` names their files. Into
 * out[k] (schedule_free them) and names[k] (in s's arena). Returns how
 * many, 0 when synth does not make this collective, or -1 after reporting
 * an error. */
int synth_for_compare(Session *s, const CostCli *c, TopoModel *t, Collective coll, Schedule out[SYNTH_COMPARE_MAX],
                      const char *names[SYNTH_COMPARE_MAX]);

#endif
