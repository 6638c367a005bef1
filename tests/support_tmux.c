/*
 * support_tmux.c - the terminal tests' helpers: the program in a tmux
 * session, keys sent, the screen read and waited on, lines of it found.
 * See support.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

void ts_tmux_start(ts_tmux *t, int cols, int rows, const char *env, const char *cmd)
{
	static int counter;
	snprintf(t->name, sizeof t->name, "sctest-%d-%d", (int)getpid(), counter++);
	char buf[2048];
	snprintf(buf, sizeof buf,
	         "tmux new-session -d -s %s -x %d -y %d \"env %s timeout --foreground -s HUP 300 "
	         "%s; echo "
	         "EXIT=\\$?; sleep 60\"",
	         t->name, cols, rows, env, cmd);
	/* two tests starting the first session at once race to start tmux's
	 * server, and the loser's new-session fails: a second try finds the
	 * server up */
	int st = system(buf);
	for (int tries = 0; st != 0 && tries < 3; tries++) {
		struct timespec nap = {0, 200000000};
		nanosleep(&nap, NULL);
		st = system(buf);
	}
	cr_assert_eq(st, 0, "tmux failed: %s", buf);
}

void ts_tmux_keys(ts_tmux *t, const char *keys)
{
	char buf[512];
	snprintf(buf, sizeof buf, "tmux send-keys -t %s %s", t->name, keys);
	cr_assert_eq(system(buf), 0);
}

char *ts_tmux_screen(ts_tmux *t)
{
	char buf[256], *out = NULL;
	snprintf(buf, sizeof buf, "tmux capture-pane -p -t %s", t->name);
	ts_run(buf, &out, NULL);
	return out;
}

/* Polls the screen every 50 ms for up to seconds until shows(screen, arg);
 * returns that screen (malloc'd), or fails the test, naming what (printf
 * style with arg) and showing the last screen, after stopping the session
 * so that the program does not run on. */
static char *wait_until(ts_tmux *t, bool (*shows)(const char *screen, const char *arg),
                        const char *arg, const char *what, double seconds)
{
	char *screen = NULL;
	for (double waited = 0; waited <= seconds; waited += 0.05) {
		free(screen);
		screen = ts_tmux_screen(t);
		if (screen && shows(screen, arg))
			return screen;
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	ts_tmux_stop(t);
	char named[600];
	snprintf(named, sizeof named, what, arg);
	cr_assert_fail("waited %.1f s for %s; the screen shows:\n%s", seconds, named,
	               screen ? screen : "(nothing)");
	return NULL;
}

static bool has_text(const char *screen, const char *text)
{
	return strstr(screen, text) != NULL;
}

char *ts_tmux_wait(ts_tmux *t, const char *text, double seconds)
{
	return wait_until(t, has_text, text, "'%s'", seconds);
}

void ts_tmux_resize(ts_tmux *t, int cols, int rows)
{
	char buf[256];
	snprintf(buf, sizeof buf, "tmux resize-window -t %s -x %d -y %d", t->name, cols, rows);
	cr_assert_eq(system(buf), 0);
}

void ts_tmux_stop(ts_tmux *t)
{
	char buf[256];
	snprintf(buf, sizeof buf, "tmux kill-session -t %s 2>/dev/null", t->name);
	(void)system(buf);
}

/* Waits for text as ts_tmux_wait does, then until two captures 100 ms
 * apart agree (at most 3 s), so that a screen caught half redrawn is not
 * read; returns the last capture (malloc'd). */
char *ts_tmux_settled(ts_tmux *t, const char *text, double seconds)
{
	char *s = ts_tmux_wait(t, text, seconds);
	struct timespec nap = {0, 100 * 1000 * 1000};
	for (int i = 0; i < 30; i++) {
		nanosleep(&nap, NULL);
		char *again = ts_tmux_screen(t);
		bool same = strcmp(again, s) == 0;
		free(s);
		s = again;
		if (same && strstr(s, text))
			break;
	}
	return s;
}

/* Whether the first row of screen s ends in "idle". */
static bool title_idle(const char *s, const char *unused)
{
	(void)unused;
	size_t n = strcspn(s, "\n");
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n >= 4 && strncmp(s + n - 4, "idle", 4) == 0;
}

char *ts_tmux_idle(ts_tmux *t, double seconds)
{
	return wait_until(t, title_idle, "", "the workbench to be idle%s", seconds);
}

void ts_tmux_quit(ts_tmux *t)
{
	ts_tmux_keys(t, "q");
	free(ts_tmux_wait(t, "EXIT=0", 5));
	ts_tmux_stop(t);
}

/* s with every run of spaces made one and no space at either end. */
void ts_squeeze(const char *s, char *out, size_t size)
{
	size_t n = 0;
	bool space = false;
	for (; *s && *s != '\n' && n + 1 < size; s++) {
		if (*s == ' ') {
			space = n > 0;
			continue;
		}
		if (space && n + 2 < size)
			out[n++] = ' ';
		space = false;
		out[n++] = *s;
	}
	out[n] = '\0';
}

/* The line of screen s holding text, squeezed, into out ("" when no line
 * holds it); returns out. */
char *ts_line_of(const char *s, const char *text, char *out, size_t size)
{
	const char *p = strstr(s, text);
	out[0] = '\0';
	if (p) {
		while (p > s && p[-1] != '\n')
			p--;
		ts_squeeze(p, out, size);
	}
	return out;
}

/* Whether some line of screen s squeezes to want. */
bool ts_has_line(const char *s, const char *want)
{
	char sq[1024];
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		ts_squeeze(p, sq, sizeof sq);
		if (strcmp(sq, want) == 0)
			return true;
	}
	return false;
}
