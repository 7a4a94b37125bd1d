/* draw.h - pictures of a Schedule: SVG in the style of the step tables of
 * docs/references.md, and Graphviz dot (docs/cost.md, "collc draw").
 *
 * The SVG has one panel per step (plus the initial state); in each panel one
 * row per rank shows that rank's buffers chunk by chunk after the step, each
 * chunk coloured by the origin chunk it holds (reductions: by chunk index,
 * with opacity growing with the number of contributions), and one arrow per
 * transfer of the step, from its source to its destination chunk. */
#ifndef COLLC_DRAW_H
#define COLLC_DRAW_H

#include <stdio.h>
#include "analysis/cost.h"
#include "schedule/schedule.h"

/* Largest N and chunks per buffer that draw accepts (pictures beyond that
 * are unreadable anyway). */
#define DRAW_MAX_N 64
#define DRAW_MAX_CHUNKS 256

/* cost may be NULL; with per-step terms it labels each panel. Returns 0, or
 * -1 after reporting ("draw-too-large") through dx. */
int draw_svg(FILE *out, const Schedule *s, const CostResult *cost, const char *subtitle,
             DiagEngine *dx);
int draw_dot(FILE *out, const Schedule *s, DiagEngine *dx);
/* s as XML text or attribute value: <, >, & and " escaped. */
void xml_text(FILE *f, const char *s);

#endif
