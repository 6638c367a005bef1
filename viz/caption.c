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

void gv_caption(strbuf *b, const sc_caption *cap, const char *summary, double bottleneck)
{
	char lb[32];
	sb_add(b, "<B>");
	sb_add_escaped(b, cap->title);
	sb_add(b, "</B><BR/><FONT POINT-SIZE=\"11\">");
	sb_add_escaped(b, summary);
	double gap = sc_caption_gap(bottleneck, cap->lower);
	if (!isnan(gap)) {
		sb_add(b, "<BR/>best lower bound %s", sc_quotient_fmt(cap->lower, lb, sizeof lb));
		if (cap->lower_by && *cap->lower_by) {
			sb_add(b, " (");
			sb_add_escaped(b, cap->lower_by);
			sb_add(b, ")");
		}
		if (gap == 0)
			sb_add(b, ": <B>proven optimal</B>");
		else
			sb_add(b, ", gap %.2f%%", 100 * gap);
	}
	sb_add(b, "</FONT>");
}
