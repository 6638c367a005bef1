/*
 * workbench.c - the ncurses workbench's start-up and its loop.
 *
 * At once a first partition (the -p file, else the file's stages, else a
 * fast search: wb_sample.c) with its stage table; then the default search
 * runs as an engine job and, when it ends, the ladder of lower bounds,
 * both filling in live (wb_jobs.c).  The terminal is opened with newterm,
 * which fails softly, so a bad TERM is an error message, not an exit
 * inside curses.  Below 80 x 24 the screen only says it is too small, and
 * keys wait (nothing acts unseen) until a resize makes room.
 *
 * The loop owns every event, in one poll() (the engine's, sc_engine_poll,
 * redis's ae): the terminal, the jobs' pipes, signals and timers.  A
 * signal (SIGHUP, SIGTERM, SIGWINCH) sets what it means and writes a byte
 * to the engine's self-pipe, so the poll ends at once, whichever thread
 * the signal reached; a terminal that has gone away without a SIGHUP is
 * seen in poll()'s report on it (POLLHUP, POLLERR, POLLNVAL), and both
 * leave as a hang-up does (the recovery file written, wb_recover.c).
 * There is no tick: each turn waits until the nearest thing due (a
 * running job's elapsed time every 0.25 s, the status line's message
 * expiring, the recovery file's write: next_due), or for a job's deadline
 * (the engine's own), or for ever when nothing runs and nothing is due,
 * until a key or a signal.  Keys go through wb_key (wb_keys.c), and the
 * screen is redrawn (wb_draw.c) at most once a turn, only when a key or a
 * job changed something, while a job runs (its elapsed time), or when the
 * status line's message expires.

 * Layer: the top, with wb_keys.c.  It may call every file of tui/wb/ (it
 * hands the state the list of views, wb_views) and nothing else calls it
 * but tui/cmd/.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/workbench.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "solvers/simple.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"
#include "tui/wb/wb_draw.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keys.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_overview.h"
#include "tui/wb/wb_recover.h"
#include "tui/wb/wb_sample.h"

/* What the signal handlers leave for the loop: hangup (the signal, SIGHUP
 * or SIGTERM, and SIGHUP for the terminal gone; 0 for none), and the engine's self-pipe they wake
 * it through
 * (-1 until the loop runs).  Signal state, not view state: a handler can
 * reach nothing else. */
static volatile sig_atomic_t hangup;
static volatile sig_atomic_t wake_fd = -1;
/* curses' own SIGWINCH handler (it turns a resize into KEY_RESIZE), which
 * ours calls before waking the loop */
static struct sigaction curses_winch;

static void wake_loop(void)
{
	int fd = wake_fd;
	if (fd >= 0) {
		char c = 1;
		ssize_t r = write(fd, &c, 1); /* a full pipe is awake already */
		(void)r;
	}
}

static void on_hangup(int sig)
{
	int saved = errno;
	hangup = sig;
	wake_loop();
	errno = saved;
}

static void on_winch(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;
	if (curses_winch.sa_flags & SA_SIGINFO)
		curses_winch.sa_sigaction(sig, info, uctx);
	else if (curses_winch.sa_handler != SIG_DFL && curses_winch.sa_handler != SIG_IGN)
		curses_winch.sa_handler(sig);
	wake_loop();
	errno = saved;
}

/* Routes the signals the loop hears through the engine's self-pipe (after
 * newterm, whose SIGWINCH handler on_winch keeps calling). */
static void catch_signals(wb *w)
{
	wake_fd = sc_engine_wake_fd(w->eng);
	struct sigaction sa = {.sa_handler = on_hangup};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct sigaction winch = {.sa_sigaction = on_winch, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&winch.sa_mask);
	sigaction(SIGWINCH, &winch, &curses_winch);
}

/* With CPU stages (--cpus L, or a -p file naming CPU stages; 001 section 3):
 * the first partition valid for the devices into first and w->kind, which
 * it allocates (k + L kinds, 1 a CPU): the -p file's (its stages, then the CPU
 * stages it lacks, empty), else the file's own stages and L empty CPU
 * stages when every op may go to an accelerator, else a fast search's.
 * Sets w->set.k to k and w->set.cpus to L (sc_settings_stages: k + L
 * stages).  False after a message (*status set). */
static bool choose_first_cpus(wb *w, const ui_opts *o, int *first, const sc_fleet *file_fleet,
                              const int *file_kind, int kf, int *status)
{
	const sc_graph *g = w->g;
	int L = w->set.cpus, ncpu = 0;
	for (int s = 0; file_kind && s < kf; s++)
		ncpu += file_kind[s] == 1;
	if (o->partition) {
		/* the file's kinds: 0 the graph's device, 1 a CPU */
		if (!ui_check_part_kinds("stagecut", o->partition, g, file_fleet, file_kind, kf,
		                         o)) {
			*status = UI_EXIT_INPUT;
			return false;
		}
		if (ncpu > L)
			L = ncpu;
		w->set.k = kf - ncpu;
	}
	w->set.cpus = L;
	int K = sc_settings_stages(&w->set);
	w->kind = calloc((size_t)K, sizeof *w->kind);
	if (!w->kind) {
		ui_error("out of memory");
		*status = UI_EXIT_INPUT;
		return false;
	}
	sc_violation viol = {SC_VIOL_NONE, -1, -1};
	if (o->partition) {
		for (int s = 0; s < K; s++)
			w->kind[s] = s < kf ? (file_kind ? file_kind[s] : 0) : 1;
	} else if (g->init_stage && g->accel_refused == 0 &&
	           sc_part_check(g, g->init_stage, w->set.k, &viol)) {
		memcpy(first, g->init_stage, (size_t)g->n * sizeof *first);
		for (int s = w->set.k; s < K; s++)
			w->kind[s] = 1;
		snprintf(w->origin, sizeof w->origin, "the file's own stages, %d CPU stage%s added",
		         L, L == 1 ? "" : "s");
		w->from_file = true;
	} else if (!wb_first_partition_cpus(g, &w->set, first, w->kind, w->origin,
	                                    sizeof w->origin)) {
		ui_error("%s: the first search found no partition into %d accelerator and up to %d "
		         "CPU stages that fits; try 'stagecut solve --cpus %d -m exact'",
		         g->source, w->set.k, L, L);
		*status = UI_EXIT_UNDECIDED;
		return false;
	}
	return true;
}

/* On a fleet of kinds (--devices): the first partition into first and its
 * kinds into w->kind, which it allocates (the fleet's K stages): the -p
 * file's stages and kinds (a file that names none: the kinds in the
 * fleet's order), then the stages it lacks, empty, of the kinds left;
 * else a fast search's.  False after a message (*status set). */
static bool choose_first_fleet(wb *w, const ui_opts *o, int *first, int *status)
{
	const sc_graph *g = w->g;
	sc_error err;
	sc_fleet f, used;
	int K = sc_fleet_stages(w->set.fleet);
	w->set.k = K;
	w->kind = calloc((size_t)K, sizeof *w->kind);
	if (!w->kind || !sc_fleet_resolve(g, &w->set, &f, &err)) {
		ui_error("%s", w->kind ? err.msg : "out of memory");
		*status = UI_EXIT_INPUT;
		return false;
	}
	if (!o->partition) {
		if (wb_first_partition_cpus(g, &w->set, first, w->kind, w->origin,
		                            sizeof w->origin))
			return true;
		ui_error("%s: the first search found no partition on %s that fits; try 'stagecut "
		         "solve --devices %s -m exact'",
		         g->source, o->devices, o->devices);
		*status = UI_EXIT_UNDECIDED;
		return false;
	}
	int kf = 0, *kind = NULL;
	sc_status st =
	        sc_part_load_kinds(o->partition, g, &f, 0, &kf, first, &used, &kind, NULL, &err);
	int left[SC_KINDS_MAX];
	for (int d = 0; d < f.n; d++)
		left[d] = f.kind[d].count;
	for (int s = 0; st == SC_OK && s < kf; s++)
		left[w->kind[s] = kind ? kind[s] : sc_fleet_kind_in_order(&f, s)]--;
	for (int d = 0, at = kf; st == SC_OK && d < f.n; d++)
		while (left[d]-- > 0)
			w->kind[at++] = d;
	free(kind);
	if (st == SC_OK && !sc_part_check_kinds(g, first, K, &f, w->kind, NULL))
		st = sc_error_set(
		        &err, SC_ERR_INVALID,
		        "%s: the partition puts an op on a kind of device that may not run "
		        "it (stagecut eval %s %s --devices %s says which)",
		        o->partition, g->source, o->partition, o->devices);
	if (st != SC_OK) {
		ui_error("%s", err.msg);
		*status = ui_exit_status(st);
		return false;
	}
	snprintf(w->origin, sizeof w->origin, "from %s", o->partition);
	w->from_file = true;
	return true;
}

/* The first partition into first: the -p file (checked before the screen
 * opens: a bad one is an error, with the exit status in *status), else the
 * file's own stages when valid, else wb_first_partition.  Sets w->set.k,
 * w->origin and w->from_file; false on an error (already printed). */
static bool choose_first(wb *w, const ui_opts *o, int *first, int *status)
{
	const sc_graph *g = w->g;
	sc_error err;
	sc_violation viol = {SC_VIOL_NONE, -1, -1};
	if (w->set.fleet)
		return choose_first_fleet(w, o, first, status);
	if (o->partition) {
		int k2;
		int *kind = NULL;
		sc_fleet fleet;
		sc_status st =
		        ui_part_load_cpus(o->partition, g, 0, &k2, first, &kind, &fleet, &err);
		int ncpu = 0;
		for (int s = 0; kind && s < k2; s++)
			ncpu += kind[s] == 1;
		if (st == SC_OK && o->k > 0 && k2 - ncpu != o->k)
			st = sc_error_set(
			        &err, SC_ERR_INPUT,
			        "%s: the partition has k = %d accelerator stages, but -k %d "
			        "was given",
			        o->partition, k2 - ncpu, o->k);
		if (st != SC_OK) {
			ui_error("%s", err.msg);
			*status = ui_exit_status(st);
			free(kind);
			return false;
		}
		w->set.k = k2;
		snprintf(w->origin, sizeof w->origin, "from %s", o->partition);
		w->from_file = true;
		bool ok = !kind && w->set.cpus <= 0
		                  ? true
		                  : choose_first_cpus(w, o, first, &fleet, kind, k2, status);
		free(kind);
		return ok;
	} else if (w->set.cpus > 0) {
		return choose_first_cpus(w, o, first, NULL, NULL, 0, status);
	} else if (g->init_stage && sc_part_check(g, g->init_stage, w->set.k, &viol)) {
		memcpy(first, g->init_stage, (size_t)g->n * sizeof *first);
		snprintf(w->origin, sizeof w->origin, "the file's own stages");
		w->from_file = true;
	} else {
		wb_first_partition(g, &w->set, first, w->origin, sizeof w->origin);
		if (g->init_stage) {
			char why[160];
			sc_part_describe(g, g->init_stage, &viol, why, sizeof why);
			size_t used = strlen(w->origin);
			snprintf(w->origin + used, sizeof w->origin - used,
			         "; the file's stages: %s", why);
		}
	}
	return true;
}

/* Opens the terminal; false (after printing why) when it cannot. */
static SCREEN *open_terminal(wb *w)
{
	setlocale(LC_ALL, "");
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		ui_error("cannot open the terminal (TERM=%s)",
		         getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	w->color = has_colors() && !getenv("NO_COLOR");
	if (w->color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_GREEN, -1);
		init_pair(3, COLOR_YELLOW, -1);
		init_pair(4, COLOR_BLUE, -1);
	}
	return scr;
}

static void start_default_search(wb *w)
{
	wb_start_search(w, NULL, NULL);
}

/* The smallest terminal the screens are laid out for. */
enum { MIN_COLS = 80, MIN_ROWS = 24 };

static bool too_small(void)
{
	return COLS < MIN_COLS || LINES < MIN_ROWS;
}

/* Draws the screen, or below MIN_COLS x MIN_ROWS only a line saying so (the
 * views and popups would be cut into garbage); the next redraw after a
 * resize back draws the screen again. */
static void draw(wb *w)
{
	if (!too_small()) {
		wb_draw(w);
		return;
	}
	const char *times = strcmp(nl_langinfo(CODESET), "UTF-8") == 0 ? "\xc3\x97" : "x";
	char line1[64], line2[96];
	snprintf(line1, sizeof line1, "terminal too small (need %d%s%d)", MIN_COLS, times,
	         MIN_ROWS);
	snprintf(line2, sizeof line2, "it is %d%s%d; keys wait until it is bigger", COLS, times,
	         LINES);
	erase();
	curs_set(0);
	int y = LINES / 2 - 1 > 0 ? LINES / 2 - 1 : 0;
	const char *lines[2] = {line1, line2};
	for (int i = 0; i < 2 && y + i < LINES; i++) {
		int len = (int)strlen(lines[i]), x = (COLS - len) / 2 > 0 ? (COLS - len) / 2 : 0;
		mvprintw(y + i, x, "%.*s", COLS, lines[i]);
	}
	refresh();
}

/* Whether key ch is taken while the terminal is too small: a resize and
 * the redraw, nothing that would act unseen. */
static bool key_when_small(int ch)
{
	return ch == KEY_RESIZE || wb_key_action(WB_IN_VIEWS, ch) == WB_A_REDRAW;
}

/* How often a running job's elapsed time is redrawn, in seconds. */
#define REFRESH 0.25

/* The time (sc_clock_now's) by which the loop must take a turn even if
 * nothing happens, last being when the screen was last drawn (< 0: never):
 * a running job's elapsed time, the status line's message expiring (its
 * redraw), the recovery file's turn; INFINITY when nothing is due.  The
 * engine adds its jobs' deadlines itself. */
static double next_due(const wb *w, double last, double now)
{
	if (last < 0)
		return now;
	double due = wb_recover_next(w, now);
	if (sc_engine_busy(w->eng) > 0)
		due = fmin(due, last + REFRESH);
	if (w->msg_shown)
		due = fmin(due, wb_msg_expiry(w));
	return due;
}

/* The poll's timeout for a turn due at due: -1 (until something happens)
 * when nothing is, else the milliseconds to it rounded up, so that the
 * turn does not come a moment early and find nothing to do. */
static int timeout_ms(double due, double now)
{
	if (!isfinite(due))
		return -1;
	double ms = ceil((due - now) * 1000);
	return ms <= 0 ? 0 : ms >= INT_MAX ? INT_MAX : (int)ms;
}

/* The loop, until a key quits or the terminal goes away. */
static void run(wb *w)
{
	const char *times = getenv("STAGECUT_KEY_TIMES");
	FILE *timing = times && *times ? fopen(times, "a") : NULL;
	catch_signals(w);
	double last = -1; /* when the screen was last drawn; < 0: never */
	for (bool go = true; go && !hangup;) {
		double now = sc_clock_now();
		short term = 0;
		bool dirty = sc_engine_poll(w->eng, timeout_ms(next_due(w, last, now), now),
		                            STDIN_FILENO, &term) > 0 ||
		             last < 0;
		/* the terminal has gone (no SIGHUP reaches a process that lost it
		 * some other way): leave as on a hang-up */
		if (term & (POLLHUP | POLLERR | POLLNVAL))
			hangup = SIGHUP;
		if (hangup)
			break;
		wb_follow_jobs(w);
		double t_key = 0;
		int first_key = 0;
		for (int ch; go && (ch = getch()) != ERR;) {
			if (!t_key) {
				t_key = sc_clock_now();
				first_key = ch;
			}
			if (too_small() && !key_when_small(ch)) {
				dirty = true;
				continue;
			}
			unsigned r = wb_key(w, ch);
			go = !(r & WB_QUIT);
			dirty = dirty || (r & WB_REDRAW);
		}
		double t = sc_clock_now(), t_handled = t;
		wb_recover_tick(w, t);
		/* a new message, a running job's elapsed time, a message that
		 * has just expired */
		dirty = dirty || w->msg_t > last ||
		        (sc_engine_busy(w->eng) > 0 && t - last >= REFRESH) ||
		        (w->msg_shown && !wb_msg_fresh(w, t));
		if (go && dirty) {
			draw(w);
			last = t;
		}
		if (t_key && timing) {
			/* key press to redrawn screen, for the benchmark */
			fprintf(timing, "%.3f %d %.3f\n", (sc_clock_now() - t_key) * 1e3, first_key,
			        (t_handled - t_key) * 1e3);
			fflush(timing);
		}
	}
	wake_fd = -1; /* the engine goes before the handlers do */
	if (timing)
		fclose(timing);
}

int ui_workbench(const ui_opts *o)
{
	char sample[PATH_MAX + 64];
	const char *path = o->npos ? o->pos[0] : ui_default_sample(sample, sizeof sample);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		ui_error("the workbench needs a terminal; for scripts use 'stagecut info', 'eval' "
		         "(see --help)");
		return UI_EXIT_INPUT;
	}
	int status = UI_EXIT_OK;
	/* training graphs too (their backward pass has its own stage rules,
	 * which the editor keeps): the loader that takes them */
	sc_graph *g = ui_load(path, o, &status);
	if (!g)
		return status;
	wb w = {.g = g,
	        .opts = o,
	        .best = INFINITY,
	        .view = &wb_overview_view,
	        .views = wb_views,
	        .modals = wb_modals};
	snprintf(w.path, sizeof w.path, "%s", path);
	w.set = g->settings;
	if (w.set.k < 1)
		w.set.k = 4;
	sc_error err;
	/* the views' and the modals' own state, before the first partition
	 * reaches them */
	bool views_made = true;
	for (int i = 0; i < WB_NVIEWS; i++)
		if (w.views[i]->init && !(w.view_state[i] = w.views[i]->init(&w)))
			views_made = false;
	for (int i = 0; i < WB_NMODALS; i++)
		if (w.modals[i]->state_size &&
		    !(w.modal_state[i] = calloc(1, w.modals[i]->state_size)))
			views_made = false;
	int *first = sc_part_new(g);
	w.best_stage = sc_part_new(g);
	w.pinned = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof *w.pinned);
	w.rec = wb_recover_new();
	w.jobs = wb_jobs_new();
	w.eng = sc_engine_new(0, &err);
	if (!first || !w.best_stage || !w.pinned || !w.rec || !w.jobs || !w.eng || !views_made) {
		ui_error("%s", w.eng ? "out of memory" : err.msg);
		free(first);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (!choose_first(&w, o, first, &status)) {
		free(first);
		goto out;
	}
	char origin[sizeof w.origin];
	memcpy(origin, w.origin, sizeof origin);
	bool made = wb_new_editor(&w, first);
	free(first);
	if (!made) {
		ui_error("%s", w.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	memcpy(w.origin, origin, sizeof origin);
	wb_mark_saved(&w); /* the first partition is the baseline */
	w.simple = wb_simple_bound(&w);
	if (w.kind) {
		w.best_kind = calloc((size_t)sc_settings_stages(&w.set), sizeof *w.best_kind);
		if (w.best_kind)
			memcpy(w.best_kind, w.kind,
			       (size_t)sc_settings_stages(&w.set) * sizeof *w.kind);
	}
	if (isfinite(sc_costs_objective(w.c))) {
		memcpy(w.best_stage, w.stage, (size_t)g->n * sizeof *w.stage);
		w.best = sc_costs_objective(w.c);
		snprintf(w.best_from, sizeof w.best_from, "%s", w.from_file ? "file" : "first");
	}
	SCREEN *scr = open_terminal(&w);
	if (!scr) {
		status = UI_EXIT_INPUT;
		goto out;
	}
	wb_recover_open(&w, true);
	/* the search starts once the recovery offer (if any) is answered, so
	 * a restored partition is in place before it ends; the first screen
	 * at once after, its title counting the search (were it drawn before,
	 * it would say idle for a moment with a search about to start) */
	if (!wb_recover_offer(&w, start_default_search))
		start_default_search(&w);
	draw(&w);
	run(&w);
	if (hangup) {
		/* the terminal went away: keep the edits for the next start (or
		 * remove a file written before they were undone) */
		w.recover_due = true;
		wb_recover_wait();
		wb_recover_write(&w, true);
		/* the status of a command a signal stopped: 129, 143 (what a
		 * shell reports, and what a script tells from a quit's 0) */
		status = 128 + hangup;
	}
	endwin();
	delscreen(scr);
out:
	wb_recover_wait(); /* the graph must outlive the writer */
	if (w.rec)
		wb_recover_close(&w);
	wb_recover_free(w.rec);
	for (int i = 0; i < WB_NVIEWS; i++)
		if (w.views[i]->fini)
			w.views[i]->fini(&w, w.view_state[i]);
	wb_jobs_free(w.jobs);
	sc_engine_free(w.eng);
	/* after the engine: a job may read a modal's state (the CPU table's
	 * mixes) until it ends */
	for (int i = 0; i < WB_NMODALS; i++) {
		if (w.modals[i]->fini && w.modal_state[i])
			w.modals[i]->fini(&w, w.modal_state[i]);
		free(w.modal_state[i]);
	}
	sc_editor_free(w.ed);
	free(w.best_stage);
	free(w.kind);
	free(w.best_kind);
	free(w.pinned);
	wb_baseline_free(w.base);
	sc_graph_free(g);
	return status;
}
