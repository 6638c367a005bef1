/*
 * common.c - shared helpers of the commands.  See common.h.
 */
#include "common.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/load.h"
#include "core/report.h"

sc_graph *ui_load(const char *path, const ui_opts *o, int *status)
{
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	if (!g) {
		ui_error("%s", err.msg);
		*status = UI_EXIT_INPUT;
		return NULL;
	}
	ui_opts_apply(o, &g->settings);
	return g;
}

bool ui_print_json(json_t *v)
{
	char *text = v ? json_dumps(v, SC_JSON_FLAGS) : NULL;
	json_decref(v);
	if (!text) {
		ui_error("out of memory while writing JSON");
		return false;
	}
	puts(text);
	free(text);
	return true;
}

const char *ui_num(double x, char *buf, size_t size)
{
	if (isinf(x))
		snprintf(buf, size, "inf");
	else if (x != 0 && (fabs(x) >= 1e7 || fabs(x) < 1e-3))
		snprintf(buf, size, "%.4e", x);
	else
		snprintf(buf, size, "%.4f", x);
	return buf;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

void ui_catch_interrupts(ui_interrupts *saved)
{
	struct sigaction sa = {.sa_handler = on_interrupt};
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &saved->old_int);
	sigaction(SIGTERM, &sa, &saved->old_term);
}

void ui_release_interrupts(const ui_interrupts *saved)
{
	sigaction(SIGINT, &saved->old_int, NULL);
	sigaction(SIGTERM, &saved->old_term, NULL);
}

bool ui_interrupted(void)
{
	return interrupted;
}

void ui_interrupt(void)
{
	interrupted = 1;
}

const char *ui_file_extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	return dot && dot[1] ? dot + 1 : NULL;
}
