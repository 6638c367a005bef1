/*
 * gv.h - what the pictures of viz/ share about Graphviz (private to viz/).
 *
 * A gv_session is one use of the process's single Graphviz context (made
 * on first use and kept, see gv.c) with cgraph's error channel diverted
 * from stderr into a buffer; gv_render writes a laid-out graph in any
 * format Graphviz knows, atomically.  The strbuf builds the HTML-like
 * labels both pictures use.  Not thread-safe, like Graphviz itself.
 */
#ifndef SC_VIZ_GV_H
#define SC_VIZ_GV_H

#include <stdbool.h>
#include <stddef.h>

#include <graphviz/gvc.h>

#include "core/error.h"

/* colours: a calm blue-grey for stages, warm with a red border for the
 * bottleneck (which also says "bottleneck", for greyscale) */
#define GV_COL_BORDER "#5b6b7f"
#define GV_COL_HEAD "#dfe7f1"
#define GV_COL_BN_BORDER "#b3261e"
#define GV_COL_BN_HEAD "#f9c99a"
#define GV_COL_BN_TEXT "#8c1d18"
#define GV_COL_EDGE "#56657a"
#define GV_COL_EDGE_EMPTY "#9aa5b4"
#define GV_COL_LABEL "#2f3b4a"
#define GV_COL_WARN "#b3261e"
/* training graphs: backward ops dashed on a lavender tint, the edges into
 * them dashed in purple (the legend in the caption says so) */
#define GV_COL_BW_FILL "#efe8f6"
#define GV_COL_BW_EDGE "#7d5ba6"
#define GV_STYLE_BW_OP "rounded,filled,dashed"
#define GV_STYLE_BW_EDGE "dashed"
/* CPU stages (001 section 3): a dashed outline on warm grey, darker than any
 * stage tint of the full picture, and the word "CPU" */
#define GV_COL_CPU_HEAD "#d9d2bf"
#define GV_COL_CPU_FILL "#e8e4d8"
#define GV_COL_CPU_BORDER "#6b6250"
/* devices of several kinds (core/fleet.h): each kind's stages headed in a
 * colour of their own (the first kind the stages' usual head), named too */
#define GV_KIND_HEADS 4
extern const char *const gv_kind_head[GV_KIND_HEADS];
#define GV_FONT "Helvetica"

typedef struct gv_session {
	GVC_t *gvc;
	Agraph_t *g;
	bool laid_out;
	agerrlevel_t old_level;
} gv_session;

/* A new directed graph named name (NULL when out of memory; agclose frees
 * it) whose objects cgraph keeps in the order they are made.  cgraph's
 * default discipline makes a named object's ID the address of its
 * interned name, and it keeps subgraphs in ID order, which dot lays out
 * and draws in: clusters came out in another order from run to run (an
 * SVG's clusters swapped places).  Here a name's ID is its number in
 * the order names are first seen. */
Agraph_t *gv_graph_new(const char *name);

/* Opens a session on the shared context.  SC_OK or SC_ERR_NOMEM. */
sc_status gv_open(gv_session *s, sc_error *err);

/* Frees s's layout and graph and restores the error channel. */
void gv_close(gv_session *s);

/* Lays s->g out with dot; on failure sets err quoting Graphviz. */
sc_status gv_layout(gv_session *s, sc_error *err);

/* Sets err to code, saying what Graphviz could not do (write format to
 * path, or lay out what when format is NULL) and quoting its last error. */
sc_status gv_fail(sc_error *err, sc_status code, const char *path, const char *format,
                  const char *what);

/* Renders the laid-out s->g in format to path, atomically (see
 * sc_render_quotient in layout.h for the formats refused and the errors).
 * A bitmap too large for the renderer is drawn smaller; *scale (may be
 * NULL) says by how much (1 for full size). */
sc_status gv_render(gv_session *s, const char *format, const char *path, double *scale,
                    sc_error *err);

/* Checks that Graphviz can write format to a file; otherwise sets err
 * (SC_ERR_INPUT, naming path and some known formats). */
sc_status gv_check_format(gv_session *s, const char *format, const char *path, sc_error *err);

/* Declares what every picture shares: left to right on white, the caption
 * at the top, labels in GV_FONT and GV_COL_LABEL, and empty node labels and
 * edge labels and styles, so that each object may set its own (cgraph
 * ignores agset on an undeclared attribute). */
void gv_declare_defaults(Agraph_t *g);

/* Sets an HTML-like attribute value of obj (a graph, node or edge of g). */
void gv_set_html(void *obj, Agraph_t *g, char *name, const char *text);

/* A bounded string builder; an overflow is remembered, not written. */
typedef struct strbuf {
	char *s;
	size_t size, len;
	bool full;
} strbuf;

void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends text with the characters HTML-like labels reserve escaped, and
 * control characters (C0, DEL and the C1 controls U+0080-U+009F) and bytes
 * that are not part of UTF-8 replaced by '?'. */
void sb_add_escaped(strbuf *b, const char *text);

struct sc_caption;
struct sc_quotient;

/* What a caption says about a training graph (NULL for an inference
 * graph): its counts and schedule, the partition's quotient (NULL without
 * a partition) for the GPipe objective, and whether the picture draws the
 * backward pass apart (the full picture's legend). */
typedef struct gv_training {
	int ops, backward_ops, orphans;
	int schedule; /* an sc_schedule */
	const struct sc_quotient *q;
	bool legend;
} gv_training;

/* (caption.c) Appends a picture's caption as an HTML-like label: cap's
 * title in bold, then summary, then for a training graph (tr not NULL) a
 * line with its backward ops and schedule, under GPipe with a partition the
 * objective and its two terms, and the legend when asked; then (when cap
 * has a lower bound and objective is a number) the bound, what proved it
 * and the gap of objective over it (no gap for an infinite objective: a
 * partition over the hard memory limit). */
void gv_caption(strbuf *b, const struct sc_caption *cap, const char *summary, const gv_training *tr,
                double objective);

#endif
