/*
 * full.h - the full graph through Graphviz (DESIGN.md section 7).
 *
 * Every op is a node labelled with its name, work and output tensor size;
 * with a partition, the ops of each stage sit in one cluster, filled in
 * the stage's colour and headed with its number and cost (the bottleneck's
 * cluster with a heavy red border and the word "bottleneck"), and edges
 * that cross stages are drawn dark and heavy with their tensor's size (dashed
 * and light when the tensor is empty) while edges inside a stage stay thin
 * and grey.  Inside a stage the ops are boxed by module (core/modules.h),
 * or with a depth each module at that depth is one box (boxes.h).  The
 * picture is folded (fold.h): the flow runs top to bottom in columns read
 * left to right, as many as make it about 1.6 times as wide as tall (no
 * side over SC_FULL_ASPECT_MAX times the other where the graph allows),
 * each stage below or after the one before.  On a training graph backward ops are
 * dashed boxes on a lavender tint and every edge into a backward op is
 * dashed purple (both with the svg class "backward"), a cluster's heading
 * splits its cost by pass, and the caption says so in a legend.
 *
 * Graphs too large to read are refused rather than drawn as a grey smear:
 * above max_ops ops the call fails with a message suggesting the quotient
 * graph (layout.h), which stays readable at any size.  Not thread-safe
 * (Graphviz, see gv.h).
 */
#ifndef SC_FULL_H
#define SC_FULL_H

#include "core/graph.h"
#include "layout.h"

/* The default op limit of a full picture: dot lays out real models of this
 * size in a second or two and dense random graphs in under a minute
 * (perf/perf_render.sh), and more ops would not be read anyway. */
#define SC_FULL_MAX_OPS 2000

/* The picture is folded into columns (fold.h) until neither its width nor
 * its height is more than this many times the other, where the graph
 * allows (one level wider than that is drawn as it is). */
#define SC_FULL_ASPECT_MAX 2.5

/* How the full picture is drawn: max_ops (<= 0: SC_FULL_MAX_OPS) refuses
 * more boxes; depth >= 1 draws each module at that depth as one box, 0
 * every op; page_units > 0 draws a picture of more boxes than that on
 * pages (each a window of the flow's levels, the pages as even as they
 * can be while cutting the fewest edges; an edge to another page ends at
 * a stub naming it), 0 on one page however large. */
typedef struct sc_full_opts {
	bool (*stop)(void); /* NULL, or asked before each page: true stops the
	                     * drawing with SC_ERR_LIMIT (the pages drawn stay) */
	int max_ops;
	int depth;
	int page_units;
	const int *kind; /* set->k stages' kinds (sc_quotient_new_kinds), or NULL:
	                  * each stage costed on its kind and headed by its name
	                  * when the partition names devices; CPU stages (001
	                  * section 3) square, dashed on warm grey and headed
	                  * "CPU"; the caption counts the stages of each kind */
} sc_full_opts;

/* What sc_render_full drew: scale (1: a bitmap at full size, else the
 * least scale one was drawn at), pages (0: one picture at path; else that
 * many pages at sc_full_page_path's names and an overview at path), and
 * the overview's module depth (0: the stage graph). */
typedef struct sc_full_result {
	double scale;
	int pages;
	int overview_depth;
} sc_full_result;

/* The default page: about what fits a 2560 x 1600 screen at full size
 * with labels readable (ResNet-50's 122 ops take two pages). */
#define SC_FULL_PAGE_UNITS 80

/* Writes the picture of g to path in format (any Graphviz output format, as
 * for sc_render_quotient; atomically, each file).  stage (0-based, below
 * set->k) may be NULL to draw the graph without stages; then cap's second
 * line gives the graph's size instead of the bottleneck.  cap may be NULL.
 * o may be NULL (every op, one page, SC_FULL_MAX_OPS).  On pages, path
 * gets an overview: each module at the deepest depth whose boxes fit a
 * page as one box, else the stage graph (layout.h), its caption naming the
 * pages.  r (may be NULL) says what was drawn.  Returns SC_OK;
 * SC_ERR_INPUT for a graph of more than max_ops ops or boxes (naming both
 * numbers), a negative depth, a stage out of range, or a format Graphviz
 * cannot write; SC_ERR_IO when a file cannot be written (the pages before
 * it stay written); SC_ERR_NOMEM; SC_ERR_INTERNAL when Graphviz fails. */
sc_status sc_render_full(const sc_graph *g, const sc_settings *set, const int *stage,
                         const sc_caption *cap, const char *format, const char *path,
                         const sc_full_opts *o, sc_full_result *r, sc_error *err);

/* Page i's path (1-based) for a picture at path: "f-3.png" for "f.png",
 * "f-3" for "f".  Returns what snprintf returns. */
int sc_full_page_path(const char *path, int i, char *buf, size_t size);

/* The page number i >= 1 when name, a file name without a directory, is
 * what sc_full_page_path gives for path's page i (its directory aside:
 * "f-3.png" for "f.png" or "out/f.png"), else 0 ("f-03.png", "f-3.svg",
 * "f-x.png" and "f.png" are no page of "f.png").  Thread-safe. */
int sc_full_page_number(const char *path, const char *name);

#endif
