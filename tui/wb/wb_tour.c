/*
 * wb_tour.c - the tour (t): the practitioner's dilemma on the loaded graph,
 * in six steps drawn in a box at the bottom of the screen: the partition
 * and the simple bound, each rung of the ladder with what it assumes and
 * how much of the gap it closed (the paper's three, then stagecut's cover
 * rung), then the answer.  A modal that keeps only
 * its own keys (wb_keys.def's WB_IN_TOUR rows): the others work as without
 * it, so the engineer can run the ladder or switch views during the tour.
 *
 * Every step speaks of the partition on screen (wb_answer_get, as the
 * header does): its objective and gap, and the best partition found beside
 * it when that is better.  Each step names the paper it comes from, with
 * its title, so "000" and "001" mean something to a reader without the
 * papers at hand.
 *
 * Layer: a modal (layer 4 in wb.h): it calls the state, the key table, the
 * jobs and wb_draw.c; the keys it leaves it passes on by returning 0 to the
 * dispatcher (wb_keys.c), which alone names wb_tour_modal.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_tour.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/wb/wb_draw.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keytab.h"

/* The papers the steps cite (../shared/papers/, DESIGN.md). */
#define PAPER_000                                                                                  \
	"paper 000: Archer et al., \"Practical Performance Guarantees for Pipelined DNN "          \
	"Inference\""
#define PAPER_001                                                                                  \
	"paper 001: Tarnawski et al., \"Efficient Algorithms for Device Placement of DNN Graph "   \
	"Operators\" (NeurIPS 2020)"

enum { TOUR_LINES = 4, TOUR_REF_ROWS = 3 };

/* What the partition on screen is, in one sentence (step 1). */
static void this_partition(const wb *w, const wb_answer *a, char *buf, size_t size)
{
	char b1[32], b2[32], b3[32];
	if (!a->feasible)
		snprintf(buf, size,
		         "This partition is infeasible: stage %d holds %s bytes of %s, over the "
		         "hard limit of %s.",
		         a->over + 1, ui_num(w->c->st[a->over].need, b1, sizeof b1),
		         w->g->acts ? "memory" : "parameters",
		         ui_num(sc_costs_stage_memory(w->c, a->over), b2, sizeof b2));
	else if (strcmp(a->name, "bottleneck") == 0)
		snprintf(buf, size,
		         "This partition's slowest stage is %d, costing %s. Is that good enough?",
		         a->at + 1, ui_num(a->objective, b1, sizeof b1));
	else {
		int fa, ba;
		sc_costs_gpipe(w->c, &fa, &ba);
		snprintf(buf, size,
		         "This partition's GPipe objective is %s (fw %s + bw %s). Is that good "
		         "enough?",
		         ui_num(a->objective, b1, sizeof b1),
		         ui_num(w->c->st[fa].cost_fw, b2, sizeof b2),
		         ui_num(w->c->st[ba].cost_bw, b3, sizeof b3));
	}
}

/* The best partition found, beside the one on screen, when it is better. */
static void best_line(const wb *w, const wb_answer *a, char *buf, size_t size)
{
	char b[32];
	buf[0] = '\0';
	if (!a->best_better)
		return;
	if (isnan(a->gain))
		snprintf(buf, size,
		         "The best partition found (%s, %s) fits the memory: a adopts it.",
		         ui_num(a->best, b, sizeof b), w->best_from);
	else
		snprintf(buf, size,
		         "The best partition found (%s, %s) is %.1f%% better than this one: a "
		         "adopts "
		         "it.",
		         ui_num(a->best, b, sizeof b), w->best_from, 100 * a->gain);
}

/* A rung's step (2-5): what it assumes, and what it proved of the gap of
 * the partition on screen. */
static void rung_step(const wb *w, const wb_answer *a, int step, char l[][200])
{
	static const char *const assume[4][2] = {
	        {"Assumes one stage does >= the simple bound's work, with all stages before and",
	         "after it merged into two superblocks; minimises that stage's cost (a MIP)."},
	        {"Also guesses that stage's position j, and averages the stages before and",
	         "after it: k MIPs, the bound is the smallest. Tensors inside superblocks are "
	         "free."},
	        {"Assumes nothing: every op's stage is a variable, started from the best",
	         "partition found and the other rungs as a floor. Optimal means proven."},
	        {"Assumes only that each stage is a set of ops costing <= C: when no k such sets,",
	         "even fractionally, cover the ops (an LP over sets), C is too low. Strong for "
	         "many small stages."},
	};
	sc_rung r = (sc_rung)(step - 1);
	snprintf(l[0], 200, "%s", assume[step - 2][0]);
	snprintf(l[1], 200, "%s", assume[step - 2][1]);
	char b1[32];
	if (!w->jobs->ladder) {
		snprintf(l[2], 200, "The ladder has not run yet: press l.");
		return;
	}
	sc_rung_info ri;
	sc_ladder_info(w->jobs->ladder, r, &ri);
	/* the gap before this rung: the best of the rungs below it */
	double lb = w->simple;
	for (int q = SC_RUNG_BOTTLENECK; q < (int)r; q++) {
		sc_rung_info rj;
		sc_ladder_info(w->jobs->ladder, (sc_rung)q, &rj);
		if ((rj.state == SC_RS_DONE || rj.state == SC_RS_STOPPED) && rj.value > lb)
			lb = rj.value;
	}
	const char *proof = "another rung";
	switch (ri.state) {
	case SC_RS_UNNEEDED:
		sc_ladder_proven(w->jobs->ladder, &proof);
		if (a->none_fits_by)
			snprintf(l[2], 200,
			         "Not needed: no %d-stage partition fits, proven by %s. l runs "
			         "every "
			         "rung anyway.",
			         sc_settings_stages(&w->set), proof);
		else
			snprintf(l[2], 200,
			         "Not needed: the optimum was already proven by %s. l runs every "
			         "rung "
			         "anyway.",
			         proof);
		break;
	case SC_RS_DONE:
	case SC_RS_STOPPED:
		if (!a->feasible)
			snprintf(l[2], 200, "It proves %s%s.", ui_num(ri.value, b1, sizeof b1),
			         ri.state == SC_RS_STOPPED ? " (stopped by its time limit)" : "");
		else if (ri.value > lb * (1 + 1e-9))
			snprintf(l[2], 200,
			         "It proves %s: this partition's gap goes from %.1f%% to %.1f%%%s.",
			         ui_num(ri.value, b1, sizeof b1),
			         100 * fmax(0, a->objective / lb - 1),
			         100 * fmax(0, a->objective / ri.value - 1),
			         ri.state == SC_RS_STOPPED ? " (stopped by its time limit)" : "");
		else
			/* a weaker bound than one below it proves nothing new: the
			 * gap is the best bound's and never grows */
			snprintf(l[2], 200,
			         "It proves %s, no more than the rungs below it: this partition's "
			         "gap "
			         "stays %.1f%%%s.",
			         ui_num(ri.value, b1, sizeof b1),
			         100 * fmax(0, a->objective / lb - 1),
			         ri.state == SC_RS_STOPPED ? " (stopped by its time limit)" : "");
		break;
	case SC_RS_FAILED: snprintf(l[2], 200, "It failed: %.150s", ri.message); break;
	case SC_RS_WAITING: snprintf(l[2], 200, "Waiting for a free core."); break;
	default:
		/* running or cancelled: only a bound above its floor is its own */
		if (ri.value > lb * (1 + 1e-9))
			snprintf(l[2], 200, "%s: it has proven >= %s so far.",
			         ri.state == SC_RS_RUNNING ? "Running" : "Cancelled",
			         ui_num(ri.value, b1, sizeof b1));
		else
			snprintf(l[2], 200, "%s: no bound of its own yet.",
			         ri.state == SC_RS_RUNNING ? "Running" : "Cancelled");
	}
}

/* What the certified gap (wb_answer: objective / lower - 1) proves of a
 * partition, into buf, when it is under 1 %: optimal when the bound is its
 * objective by a proof that needs no solver (the exact DP, the simple
 * bound), optimal to within the ladder's tolerance when a MIP's bound
 * reached it (ladder.h: CBC proves only that much), else within that many
 * percent of the optimum; false (buf untouched) at 1 % or more, or when
 * unknown. */
static bool near_optimal(const wb_answer *a, double gap, char *buf, size_t size)
{
	if (isnan(gap) || gap >= 0.01)
		return false;
	bool exact = strcmp(a->lower_by, "exact DP") == 0 || strcmp(a->lower_by, "simple") == 0;
	if (gap == 0 && exact)
		snprintf(buf, size, "proven optimal (lower bound: %s)", a->lower_by);
	else if (gap <= SC_LADDER_REL_TOL)
		snprintf(buf, size,
		         "proven optimal to within " SC_LADDER_REL_TOL_TEXT
		         " relative (lower bound: %s, to CBC's tolerance)",
		         a->lower_by);
	else
		snprintf(buf, size, "within %.2f%% of the optimum (the certified gap)", 100 * gap);
	return true;
}

/* The answer (step 5): the gap of the partition on screen, and what to do. */
static void answer_step(const wb *w, const wb_answer *a, char l[][200])
{
	char b1[32], b2[32], b3[32];
	ui_num(a->lower, b2, sizeof b2);
	if (!a->feasible && a->none_fits_by) {
		snprintf(l[0], 200,
		         "No %d-stage partition fits the hard memory limit: proven by %s.",
		         sc_settings_stages(&w->set), a->none_fits_by);
		snprintf(l[1], 200, "%s",
		         "Give it more stages (k) or more memory per stage (o), or the overflow "
		         "policy.");
		return;
	}
	if (!a->feasible) {
		snprintf(l[0], 200,
		         "This partition breaks the hard memory limit (stage %d); best lower "
		         "bound %s (%s).",
		         a->over + 1, b2, a->lower_by);
		snprintf(l[1], 200, "%s",
		         a->best_better
		                 ? "Adopt the best partition found (a), or move ops off that "
		                   "stage by hand (2, < >)."
		                 : "Move ops off that stage by hand (2, < >), or search (s).");
		return;
	}
	snprintf(l[0], 200,
	         "This partition's %s %s, best lower bound %s (%s): certified gap %.2f%%.", a->name,
	         ui_num(a->objective, b1, sizeof b1), b2, a->lower_by, 100 * a->gap);
	char proven[96];
	if (near_optimal(a, a->gap, proven, sizeof proven))
		snprintf(l[1], 200, "This partition is %s: stop searching.", proven);
	else if (a->best_better && near_optimal(a, a->best_gap, proven, sizeof proven))
		snprintf(l[1], 200,
		         "It is not: the best found (%s) is %s. Adopt it (a) and stop searching.",
		         ui_num(a->best, b3, sizeof b3), proven);
	else if (a->best_better)
		snprintf(l[1], 200,
		         "Adopt the best found (a: %s, gap %.2f%%), then search longer (s) or let "
		         "the "
		         "exact MIP run longer (o).",
		         ui_num(a->best, b3, sizeof b3), 100 * a->best_gap);
	else
		snprintf(l[1], 200,
		         "Search longer (s), refine by hand (2, < >), or let the exact MIP "
		         "run longer (o).");
}

/* Writes text wrapped at spaces into rows of width wd from (y, x), at most
 * max rows; returns the rows used.  With y < 0 it only counts them. */
static int wrapped(int y, int x, int wd, int max, const char *text)
{
	int n = 0;
	const char *p = text;
	while (*p && n < max) {
		int len = (int)strlen(p), take = len;
		if (len > wd) {
			take = wd;
			while (take > 0 && p[take] != ' ')
				take--;
			if (take == 0)
				take = wd;
		}
		if (y >= 0)
			mvprintw(y + n, x, "%.*s", take, p);
		n++;
		p += take;
		while (*p == ' ')
			p++;
	}
	return n;
}

/* The tour's own state (its modal's): the step shown, 1 to 6. */
typedef struct tour_state {
	int step;
} tour_state;

/* The tour: the practitioner's dilemma on the loaded graph, step by step. */
static void tour_draw(wb *w, int rows, int cols)
{
	tour_state *ts = wb_modal_state(w, &wb_tour_modal);
	char l[TOUR_LINES][200] = {{0}}, b1[32];
	wb_answer a;
	wb_answer_get(w, &a);
	int step = ts->step;
	const char *title = "", *ref = PAPER_000;
	switch (step) {
	case 1:
		title = " tour 1/6: the practitioner's dilemma";
		this_partition(w, &a, l[0], sizeof l[0]);
		snprintf(l[1], sizeof l[1],
		         "simple bound %s: some stage does >= total work / k; a group is "
		         "indivisible (000 Lemma 3.3).",
		         ui_num(w->simple, b1, sizeof b1));
		if (a.feasible)
			/* the optimum's objective is >= the bound: it is at most
			 * (objective - bound) / objective faster than this one */
			snprintf(l[2], sizeof l[2],
			         "By this bound alone, the optimum could be up to %.1f%% faster "
			         "than "
			         "this partition. Each rung proves more.",
			         100 * fmax(0, (a.objective - w->simple) / a.objective));
		else
			snprintf(l[2], sizeof l[2],
			         "Until it fits, its gap means nothing: move ops off that stage "
			         "(2, < >).");
		best_line(w, &a, l[3], sizeof l[3]);
		break;
	case 2:
	case 3:
	case 4:
	case 5:
		title = step == 2   ? " tour 2/6: bottleneck (paper 000, section 3.2)"
		        : step == 3 ? " tour 3/6: bottleneck-guess (paper 000, section 3.3)"
		        : step == 4 ? " tour 4/6: exact MIP (paper 000, Figure 3)"
		                    : " tour 5/6: cover (stagecut's own: a set-cover LP)";
		rung_step(w, &a, step, l);
		best_line(w, &a, l[3], sizeof l[3]);
		if (step == 5)
			ref = "not from the papers: stagecut's own rung, proven in stagecut(1) "
			      "under bounds, cover";
		break;
	default:
		title = " tour 6/6: the answer";
		answer_step(w, &a, l);
		/* the exact DP over ideals is 001's */
		if (strstr(a.lower_by, "DP"))
			ref = PAPER_000 "; the exact DP over ideals: " PAPER_001;
		break;
	}
	/* each line wrapped to the box, then the papers, a blank row and the
	 * keys; measured first (nothing is drawn off the screen) */
	int wd = cols < 100 ? cols : 100, body = 0;
	for (int i = 0; i < TOUR_LINES; i++)
		body += wrapped(-1, 0, wd - 2, TOUR_LINES, l[i]);
	int refs = wrapped(-1, 0, wd - 2, TOUR_REF_ROWS, ref);
	int h = 1 + body + refs + 2;
	if (h > rows - 1) {
		refs = 0; /* a small screen keeps the tour, not the citation */
		h = 1 + body + 2;
	}
	int y0 = rows - 1 - h > 0 ? rows - 1 - h : 0, x0 = (cols - wd) / 2, y = y0 + 1;
	wb_box(y0, x0, h, wd, title);
	for (int i = 0; i < TOUR_LINES; i++)
		y += wrapped(y, x0 + 1, wd - 2, TOUR_LINES, l[i]);
	attron(A_DIM);
	wrapped(y, x0 + 1, wd - 2, refs, ref);
	char keys[96];
	mvprintw(y0 + h - 1, x0 + 1, "%.*s", wd - 2,
	         wb_footer(WB_FOOT_TOUR, "   ", keys, sizeof keys));
	attroff(A_DIM);
}

static unsigned tour_key(wb *w, int ch)
{
	tour_state *ts = wb_modal_state(w, &wb_tour_modal);
	switch (wb_key_action(WB_IN_TOUR, ch)) {
	case WB_A_TOUR_NEXT:
		if (ts->step >= 6) {
			wb_modal_close(w, &wb_tour_modal);
			break;
		}
		ts->step++;
		if (ts->step == 2 && !w->jobs->ladder)
			wb_start_ladder(w);
		break;
	case WB_A_TOUR_END: wb_modal_close(w, &wb_tour_modal); break;
	default: return 0;
	}
	return WB_HANDLED | WB_REDRAW;
}

const wb_modal_ops wb_tour_modal = {
        .name = "tour", .draw = tour_draw, .key = tour_key, .state_size = sizeof(tour_state)};

void wb_tour_open(wb *w)
{
	tour_state *ts = wb_modal_state(w, &wb_tour_modal);
	ts->step = 1;
	if (!wb_modal_open(w, &wb_tour_modal))
		wb_modal_push(w, &wb_tour_modal);
}
