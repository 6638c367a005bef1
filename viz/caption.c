/*
 * caption.c - the caption above every picture and its gap.  See caption.h.
 *
 * gv_caption (declared in gv.h, which is private to viz/) writes the caption
 * as an HTML-like label with gv.c's string builder; the stage graph
 * (layout.c) and the picture of every op (full.c) call it.  Nothing here
 * calls back into the pictures, so viz/ has no circle of calls.
 */
#include "caption.h"

#include <math.h>

#include "core/graph.h"
#include "gv.h"
#include "quotient.h"

double sc_caption_gap(double bottleneck, double lower)
{
	if (!(lower > 0) || !isfinite(lower) || isnan(bottleneck))
		return NAN;
	double gap = bottleneck / lower - 1;
	/* rounding in the bound's arithmetic is no gap */
	return gap < 1e-9 ? 0 : gap;
}

/* The training lines of a caption (see gv_training in gv.h). */
static void training_lines(strbuf *b, const gv_training *tr)
{
	char n1[32], n2[32], n3[32];
	sb_add(b, "<BR/>training graph: %d of %d ops backward", tr->backward_ops, tr->ops);
	if (tr->orphans > 0)
		sb_add(b, " (%d orphan%s)", tr->orphans, tr->orphans == 1 ? "" : "s");
	sb_add(b, ", schedule %s", sc_quotient_schedule_name((sc_schedule)tr->schedule));
	const sc_quotient *q = tr->q;
	if (q && tr->schedule == SC_SCHEDULE_GPIPE)
		sb_add(b,
		       "<BR/>GPipe objective %s = forward %s (stage %d) + backward %s (stage "
		       "%d)",
		       sc_quotient_fmt(q->objective, n1, sizeof n1),
		       sc_quotient_fmt(q->gpipe_fw, n2, sizeof n2), q->gpipe_fw_at + 1,
		       sc_quotient_fmt(q->gpipe_bw, n3, sizeof n3), q->gpipe_bw_at + 1);
	if (tr->legend)
		sb_add(b,
		       "<BR/><FONT COLOR=\"%s\">backward ops dashed on lavender; edges into "
		       "backward ops dashed purple</FONT>",
		       GV_COL_BW_EDGE);
}

void gv_caption(strbuf *b, const sc_caption *cap, const char *summary, const gv_training *tr,
                double objective)
{
	char lb[32];
	sb_add(b, "<B>");
	sb_add_escaped(b, cap->title);
	sb_add(b, "</B><BR/><FONT POINT-SIZE=\"11\">");
	if (cap->what && *cap->what) {
		sb_add_escaped(b, cap->what);
		sb_add(b, "<BR/>");
	}
	sb_add_escaped(b, summary);
	if (tr)
		training_lines(b, tr);
	/* an infinite objective (a partition breaking the hard memory limit,
	 * which the summary says) has a bound but no gap */
	double gap = sc_caption_gap(isfinite(objective) ? objective : 0, cap->lower);
	if (!isnan(gap)) {
		sb_add(b, "<BR/>best lower bound %s", sc_quotient_fmt(cap->lower, lb, sizeof lb));
		if (cap->lower_by && *cap->lower_by) {
			sb_add(b, " (");
			sb_add_escaped(b, cap->lower_by);
			sb_add(b, ")");
		}
		if (isfinite(objective) && gap == 0)
			sb_add(b, ": <B>proven optimal</B>");
		else if (isfinite(objective))
			sb_add(b, ", gap %.2f%%", 100 * gap);
	}
	/* a better partition known: beside the pictured one, with its own gap */
	if (cap->best > 0 && isfinite(cap->best) && cap->best < objective * (1 - 1e-12)) {
		sb_add(b, "<BR/>best found %s", sc_quotient_fmt(cap->best, lb, sizeof lb));
		if (cap->best_by && *cap->best_by) {
			sb_add(b, " (");
			sb_add_escaped(b, cap->best_by);
			sb_add(b, ")");
		}
		double bgap = sc_caption_gap(cap->best, cap->lower);
		if (bgap == 0)
			sb_add(b, ": optimal");
		else if (!isnan(bgap))
			sb_add(b, ", gap %.2f%%", 100 * bgap);
	}
	if (cap->costs && *cap->costs) {
		sb_add(b, "<BR/>costs: ");
		sb_add_escaped(b, cap->costs);
	}
	if (cap->unit) {
		sb_add(b, "<BR/>units: work and costs in ");
		sb_add_escaped(b, cap->unit);
		sb_add(b, ", tensors and memory in bytes");
		if (cap->device && *cap->device) {
			sb_add(b, " &#183; device ");
			sb_add_escaped(b, cap->device);
		}
		if (cap->dims && *cap->dims) {
			sb_add(b, " &#183; dims ");
			sb_add_escaped(b, cap->dims);
		}
	}
	sb_add(b, "</FONT>");
}
