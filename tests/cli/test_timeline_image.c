/*
 * test_timeline_image.c - `stagecut render --timeline`: the pipeline
 * schedule drawn with cairo (viz/timeline_draw.c) on
 * samples/paper/figure2.dot -k 3 (its own stages).  The SVG is parsed back:
 * forward compute rectangles (fill SC_TL_COMPUTE_RGB, one more for the
 * legend's swatch) = k * m, a "stage s" line per lane in its <desc>, and the
 * caption's period equal to eval --timeline --json's; a PNG's signature and
 * IHDR size, a PDF's header, and a refused format.
 */
#include "tests/cli/cli_test.h"

#include "viz/timeline_draw.h"

TestSuite(timeline_image, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The SVG of figure2 -k 3 with m micro-batches (0: the default). */
static char *svg_of(int m)
{
	char out[128], more[32] = "";
	ts_tpath(out, sizeof out, "t.svg");
	if (m)
		snprintf(more, sizeof more, "--batches %d", m);
	cr_assert_eq(ts_runf(NULL, NULL, "render %s -k 3 --timeline %s -o %s", FIGURE2, more, out),
	             0);
	char *svg = ts_slurp(out, NULL);
	cr_assert_not_null(svg);
	cr_assert_eq(strncmp(svg, "<?xml", 5), 0);
	return svg;
}

Test(timeline_image, svg_counts)
{
	const int k = 3, ms[] = {0, 3};
	for (int i = 0; i < 2; i++) {
		int m = ms[i] ? ms[i] : 2 * k;
		char *svg = svg_of(ms[i]);
		int compute = count(svg, "fill:" SC_TL_COMPUTE_RGB ";");
		cr_assert_eq(compute, k * m + 1, "m %d: %d compute rectangles", m, compute);
		for (int s = 1; s <= k; s++) {
			char lane[32];
			snprintf(lane, sizeof lane, "\nstage %d: ", s);
			cr_assert(strstr(svg, lane), "no lane %d", s);
		}
		if (m == 6)
			cr_assert(strstr(svg, "stage 2: busy 48, idle 17.2%, bottleneck"));
		free(svg);
	}
}

Test(timeline_image, svg_caption_period_as_eval)
{
	char part[128];
	ts_tpath(part, sizeof part, "fig2.json");
	ts_write_text(part, ts_fig2_own);
	json_t *root = ts_run_json(0, "eval --timeline --json %s %s", FIGURE2, part);
	double period = ts_jnum(ts_jget(root, "timeline"), "period");
	json_decref(root);
	char *svg = svg_of(0);
	char want[64];
	snprintf(want, sizeof want, "<desc>6 micro-batches: period %.6g ", period);
	cr_assert(strstr(svg, want), "no \"%s\"", want);
	free(svg);
	/* --json gives the schedule as eval does */
	char out[128];
	ts_tpath(out, sizeof out, "t.svg");
	root = ts_run_json(0, "render %s -k 3 --timeline --json -o %s", FIGURE2, out);
	cr_assert_str_eq(ts_jstr(root, "picture"), "timeline");
	cr_assert_eq(ts_jnum(ts_jget(root, "timeline"), "period"), period);
	json_decref(root);
}

Test(timeline_image, png_and_pdf)
{
	char png[128], pdf[128];
	ts_tpath(png, sizeof png, "t.png");
	ts_tpath(pdf, sizeof pdf, "t.pdf");
	cr_assert_eq(ts_runf(NULL, NULL, "render %s -k 3 --timeline -o %s", FIGURE2, png), 0);
	size_t len = 0;
	unsigned char *d = (unsigned char *)ts_slurp(png, &len);
	cr_assert(len > 24);
	cr_assert_eq(memcmp(d, "\x89PNG\r\n\x1a\n", 8), 0);
	cr_assert_eq(memcmp(d + 12, "IHDR", 4), 0);
	unsigned w = (unsigned)d[16] << 24 | d[17] << 16 | d[18] << 8 | d[19];
	unsigned h = (unsigned)d[20] << 24 | d[21] << 16 | d[22] << 8 | d[23];
	cr_assert(w > 0 && h > 0);
	free(d);
	cr_assert_eq(ts_runf(NULL, NULL, "render %s -k 3 --timeline -T pdf -o %s", FIGURE2, pdf),
	             0);
	char *p = ts_slurp(pdf, &len);
	cr_assert(len > 5 && !strncmp(p, "%PDF", 4));
	free(p);
}

Test(timeline_image, bad_format)
{
	char out[128], *err = NULL;
	ts_tpath(out, sizeof out, "t.gif");
	cr_assert_eq(ts_runf(NULL, &err, "render %s -k 3 --timeline -o %s", FIGURE2, out), 2);
	cr_assert_eq(count(err, "\n"), 1, "%s", err);
	cr_assert(strstr(err, "svg, png or pdf"), "%s", err);
	free(err);
	cr_assert_null(fopen(out, "r"));
}
