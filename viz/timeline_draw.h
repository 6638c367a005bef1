/*
 * timeline_draw.h - a picture of a pipeline schedule (core/timeline.h)
 * through cairo: one lane per stage, each segment a rectangle coloured by
 * kind (receive, compute, send; the backward pass darker), a time axis with
 * ticks and the unit, a legend, the bottleneck lane marked in red, and a
 * caption with period, throughput, latency, fill, drain and makespan.
 *
 * Each segment is exactly one filled rectangle path in the colour of its
 * kind and pass (SC_TL_COMPUTE_RGB for forward compute); the legend adds one
 * swatch per colour used.  cairo's SVG draws text as glyphs, so an SVG also
 * gets a <title> (the title) and a <desc> (the caption and one line per
 * lane, "stage s ...") that readers and tests can parse.
 *
 * CPU stages (001 section 3): a CPU lane is named "stage s (CPU)"
 * (sc_timeline_lane_name) on warm grey (SC_TL_CPU_LANE_RGB), its
 * compute in purple (SC_TL_CPU_COMPUTE_RGB forward, darker backward) and
 * nothing else (it does not communicate); the legend adds the CPU swatches
 * and the caption counts the stages of each device.
 */
#ifndef SC_TIMELINE_DRAW_H
#define SC_TIMELINE_DRAW_H

#include <stdbool.h>

#include "core/error.h"
#include "core/timeline.h"

/* The forward compute colour, as cairo's SVG writes it. */
#define SC_TL_COMPUTE_RGB "rgb(20%,40%,80%)"
/* A CPU stage's forward compute and its lane's tint, likewise. */
#define SC_TL_CPU_COMPUTE_RGB "rgb(60%,30%,70%)"
#define SC_TL_CPU_LANE_RGB "rgb(91%,89%,85%)"

/* True when format is one sc_timeline_draw writes: svg, png or pdf. */
bool sc_timeline_format_ok(const char *format);

/* Draws t to path (atomically, core/fileio.h) in format (svg, png, pdf).
 * title heads the picture (may be NULL); unit names the time unit (may be
 * NULL: "time units").  Returns SC_OK, or SC_ERR_INPUT for another format,
 * SC_ERR_IO or SC_ERR_NOMEM with err set.  Never prints. */
sc_status sc_timeline_draw(const sc_timeline *t, const char *title, const char *unit,
                           const char *path, const char *format, sc_error *err);

#endif
