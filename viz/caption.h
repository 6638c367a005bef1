/*
 * caption.h - what a picture says about itself (DESIGN.md section 7).
 *
 * Both pictures (the stage graph, layout.h, and every op, full.h) draw the
 * same caption above them: the graph's name, then k and the bottleneck,
 * then the best lower bound with what proved it and the gap.  The caption's
 * data and the gap live here, apart from the pictures, so that the
 * Graphviz session (gv.c), which writes the caption's HTML-like label
 * (gv_caption in gv.h, defined in caption.c), and the pictures that use it
 * depend on this file and not on each other.  Pure functions, thread-safe.
 */
#ifndef SC_CAPTION_H
#define SC_CAPTION_H

/* What a picture says about itself, drawn above it: title (the graph's
 * name; NULL for no caption), then what the partition is (what; NULL or ""
 * for nothing), then k and the bottleneck, then the best lower bound known
 * (lower > 0; NAN or 0 when none) with what proved it and the gap of the
 * pictured partition over it, "proven optimal" when there is none; then,
 * when a better partition is known (best below the pictured partition's
 * objective; 0 or NAN for none), its objective, where it came from and
 * its gap. */
typedef struct sc_caption {
	const char *title;
	double lower;
	const char *lower_by; /* "exact", "dp", ...; may be NULL */
	const char *what;     /* "the partition on screen: edited by hand"; may be NULL */
	double best;
	const char *best_by; /* "dpl", "the search"; may be NULL */
	const char *costs;   /* where the work came from (sc_graph.cost_short); may be NULL */
	/* What the numbers mean, on a line of their own when unit is not
	 * NULL: work and costs in unit ("microseconds", "time units"), bytes
	 * for tensors and memory, the device the costs were modelled for
	 * ("h100 at fp16"; NULL or "" for none) and the symbolic dims the
	 * model was costed at ("N=32, S=128"; NULL or "" for none) */
	const char *unit;
	const char *device;
	const char *dims;
} sc_caption;

/* The gap of a partition of bottleneck cost over a lower bound,
 * bottleneck / lower - 1, as `stagecut bounds` reports it: 0 when the bound
 * meets the bottleneck (within rounding), NAN without a positive bound. */
double sc_caption_gap(double bottleneck, double lower);

#endif
