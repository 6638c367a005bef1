/*
 * test_wbkeys.c - the workbench's key table (tui/wb/wb_keys.def) against
 * itself and the man page: every key named in its row's label, no key bound
 * twice where it works, footers naming their action's key, the help screen
 * listing every key of the views, the man page's key list equal to the
 * table; and the line editor of the prompts (^U, ^W, the selected initial
 * text) and the wrapping of the popups' text.
 */
#include <criterion/criterion.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"

#define MAN_PAGE "man/stagecut.1"

/* Whether word is one of the words of text (separated by spaces, or by
 * slashes when slash is set). */
static bool has_word(const char *text, const char *word, bool slash)
{
	size_t n = strlen(word);
	for (const char *p = text; (p = strstr(p, word)); p++) {
		bool start = p == text || p[-1] == ' ' || (slash && p[-1] == '/');
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == ':' || (slash && p[n] == '/');
		if (start && end)
			return true;
	}
	return false;
}

/* The label documenting row i: its own, or that of the nearest row above
 * with one. */
static const char *label_of(const wb_binding *b, int i)
{
	while (i > 0 && !b[i].label)
		i--;
	return b[i].label;
}

Test(wbkeys, every_key_is_named_in_its_label)
{
	int n;
	const wb_binding *b = wb_bindings(&n);
	cr_assert_gt(n, 20);
	cr_assert(b[0].label, "the first row documents itself");
	for (int i = 0; i < n; i++) {
		cr_expect((b[i].label == NULL) == (b[i].help == NULL),
		          "row %d: label and help go together", i);
		cr_expect(b[i].keys[0], "row %d has no key", i);
		for (const int *k = b[i].keys; *k; k++) {
			char name[32];
			wb_key_name(*k, name, sizeof name);
			cr_expect(has_word(label_of(b, i), name, false),
			          "key '%s' is not in the label '%s'", name, label_of(b, i));
		}
	}
}

Test(wbkeys, no_key_is_bound_twice_where_it_works)
{
	int n;
	const wb_binding *b = wb_bindings(&n);
	static const unsigned contexts[] = {WB_IN_OVERVIEW, WB_IN_NODES,   WB_IN_QUOTIENT,
	                                    WB_IN_TIMELINE, WB_IN_MODULES, WB_IN_SETTINGS,
	                                    WB_IN_TOUR,     WB_IN_CHOOSE,  WB_IN_CPUTAB};
	for (size_t c = 0; c < sizeof contexts / sizeof *contexts; c++)
		for (int i = 0; i < n; i++)
			for (const int *k = b[i].keys; *k; k++) {
				if (!(b[i].where & contexts[c]))
					continue;
				cr_expect_eq(wb_key_action(contexts[c], *k), b[i].act,
				             "key %d of row %d is bound twice in context %u", *k, i,
				             contexts[c]);
			}
	/* what the review found missing: a few keys decode where they should */
	cr_expect_eq(wb_key_action(WB_IN_NODES, KEY_PPAGE), WB_A_PAGE_UP);
	cr_expect_eq(wb_key_action(WB_IN_NODES, 'G'), WB_A_LAST);
	cr_expect_eq(wb_key_action(WB_IN_NODES, ','), WB_A_EARLIER);
	cr_expect_eq(wb_key_action(WB_IN_NODES, '.'), WB_A_LATER);
	cr_expect_eq(wb_key_action(WB_IN_QUOTIENT, 18), WB_A_REDO);
	cr_expect_eq(wb_key_action(WB_IN_OVERVIEW, ' '), WB_A_NONE,
	             "Space pages the node browser and the module view only");
	/* the module view's own keys, and the browser's it shares */
	cr_expect_eq(wb_key_action(WB_IN_MODULES, '+'), WB_A_EXPAND);
	cr_expect_eq(wb_key_action(WB_IN_MODULES, '-'), WB_A_COLLAPSE);
	cr_expect_eq(wb_key_action(WB_IN_MODULES, 'i'), WB_A_MODULE_OPS);
	cr_expect_eq(wb_key_action(WB_IN_MODULES, '/'), WB_A_FILTER);
	cr_expect_eq(wb_key_action(WB_IN_MODULES, '\n'), WB_A_OPEN);
	cr_expect_eq(wb_key_action(WB_IN_MODULES, '5'), WB_A_VIEW);
	cr_expect_eq(wb_key_action(WB_IN_NODES, 'i'), WB_A_NONE, "i is the module view's");
}

Test(wbkeys, footers_name_a_key_of_their_action)
{
	int n;
	const wb_binding *b = wb_bindings(&n);
	for (int f = 0; f < WB_FOOT_COUNT; f++) {
		int hints = 0;
		wb_action act;
		for (const char *h; (h = wb_footer_hint(f, hints, &act)); hints++) {
			bool named = false;
			for (int i = 0; i < n; i++)
				for (const int *k = b[i].keys; b[i].act == act && *k; k++) {
					char name[32];
					named = named ||
					        has_word(h, wb_key_name(*k, name, sizeof name),
					                 true);
				}
			cr_expect(named, "footer %d's hint '%s' names no key of its action", f, h);
		}
		cr_expect_geq(hints, 2, "footer %d has %d hints", f, hints);
	}
	char buf[256];
	cr_expect_str_eq(wb_footer(WB_FOOT_MAIN, "  ", buf, sizeof buf),
	                 "? help  q quit  s search  l ladder  x cancel  a adopt  1/2/3 views  "
	                 "o settings  t tour");
}

Test(wbkeys, the_help_lists_every_key_of_the_views_once)
{
	int n;
	const wb_binding *b = wb_bindings(&n);
	char line[200];
	int lines = 0;
	for (; wb_help_line(WB_IN_VIEWS, lines, line, sizeof line); lines++)
		for (int j = 0; j < lines; j++) {
			char other[200];
			wb_help_line(WB_IN_VIEWS, j, other, sizeof other);
			cr_expect_str_neq(line, other, "help line %d repeats line %d", lines, j);
		}
	for (int i = 0; i < n; i++) {
		if (!(b[i].where & WB_IN_VIEWS) || !b[i].label)
			continue;
		bool found = false;
		for (int j = 0; j < lines && !found; j++) {
			wb_help_line(WB_IN_VIEWS, j, line, sizeof line);
			found = strstr(line, b[i].label) && strstr(line, b[i].help);
		}
		cr_expect(found, "'%s' is not in the help", b[i].label);
	}
	/* the help fits an 80x24 terminal without scrolling: its lines, two
	 * notes and the box's top and bottom edges (it scrolls beyond) */
	cr_expect_leq(lines + 2 + 2, 24, "%d help lines do not fit 80x24", lines);
	/* and none of them wraps in the 80-column box (a border and a space
	 * on each side) */
	for (int j = 0; j < lines; j++)
		cr_expect_leq(strlen(wb_help_line(WB_IN_VIEWS, j, line, sizeof line)), 76,
		              "help line '%s' wraps at 80 columns", line);
}

/* The man page's workbench keys: ".TP" entries (".B LABEL", then the help
 * line) between the two marker comments, "\-" read as "-". */
typedef struct man_key {
	char label[64], help[160];
} man_key;

static int man_keys(man_key *out, int max)
{
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man, "cannot read " MAN_PAGE);
	char *w = man;
	for (const char *r = man; *r; r++) {
		if (r[0] == '\\' && r[1] == '-')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	char *start = strstr(man, ".\\\" the workbench's keys");
	char *end = strstr(man, ".\\\" end of the workbench's keys");
	cr_assert(start && end && start < end, "no workbench keys markers in " MAN_PAGE);
	*end = '\0';
	int n = 0;
	for (char *line = strtok(start, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, ".TP", 3) != 0)
			continue;
		char *label = strtok(NULL, "\n"), *help = strtok(NULL, "\n");
		cr_assert(label && help && strncmp(label, ".B ", 3) == 0,
		          "a .TP entry in the keys list is not '.B LABEL' and a help line");
		cr_assert_lt(n, max);
		snprintf(out[n].label, sizeof out[n].label, "%s", label + 3);
		snprintf(out[n].help, sizeof out[n].help, "%s", help);
		n++;
	}
	free(man);
	return n;
}

Test(wbkeys, the_man_page_lists_the_table_and_nothing_else)
{
	man_key man[64];
	int nman = man_keys(man, 64), n, rows = 0;
	const wb_binding *b = wb_bindings(&n);
	for (int i = 0; i < n; i++) {
		if (!b[i].label)
			continue;
		rows++;
		bool found = false;
		for (int j = 0; j < nman && !found; j++)
			found = strcmp(man[j].label, b[i].label) == 0 &&
			        strcmp(man[j].help, b[i].help) == 0;
		cr_expect(found, "'%s  %s' (tui/wb/wb_keys.def) is not in the keys of " MAN_PAGE,
		          b[i].label, b[i].help);
	}
	for (int j = 0; j < nman; j++) {
		bool found = false;
		for (int i = 0; i < n && !found; i++)
			found = b[i].label && strcmp(man[j].label, b[i].label) == 0 &&
			        strcmp(man[j].help, b[i].help) == 0;
		cr_expect(found, "'%s  %s' in " MAN_PAGE " is not in tui/wb/wb_keys.def",
		          man[j].label, man[j].help);
	}
	cr_expect_eq(nman, rows, MAN_PAGE " lists %d keys, the table %d", nman, rows);
}

Test(wbkeys, the_line_editor)
{
	char buf[4] = "";
	cr_expect_eq(wb_line_key(buf, sizeof buf, 'a'), WB_LINE_EDITED);
	cr_expect_eq(wb_line_key(buf, sizeof buf, 'b'), WB_LINE_EDITED);
	cr_expect_eq(wb_line_key(buf, sizeof buf, 'c'), WB_LINE_EDITED);
	cr_expect_eq(wb_line_key(buf, sizeof buf, 'd'), WB_LINE_IGNORED, "the line is full");
	cr_expect_str_eq(buf, "abc");
	cr_expect_eq(wb_line_key(buf, sizeof buf, KEY_BACKSPACE), WB_LINE_EDITED);
	cr_expect_str_eq(buf, "ab");
	cr_expect_eq(wb_line_key(buf, sizeof buf, KEY_UP), WB_LINE_IGNORED);
	cr_expect_eq(wb_line_key(buf, sizeof buf, '\n'), WB_LINE_DONE);
	cr_expect_eq(wb_line_key(buf, sizeof buf, 27), WB_LINE_CANCEL);
	buf[0] = '\0';
	cr_expect_eq(wb_line_key(buf, sizeof buf, 127), WB_LINE_EDITED,
	             "erasing nothing is harmless");
	cr_expect_str_eq(buf, "");
}

Test(wbkeys, the_line_editor_kills_a_line_and_a_word)
{
	char buf[32] = "abc  de fg  ";
	cr_expect_eq(wb_line_key(buf, sizeof buf, WB_CTRL_W), WB_LINE_EDITED);
	cr_expect_str_eq(buf, "abc  de ", "^W takes the spaces after the word, then the word");
	wb_line_key(buf, sizeof buf, WB_CTRL_W);
	cr_expect_str_eq(buf, "abc  ");
	wb_line_key(buf, sizeof buf, WB_CTRL_W);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(wb_line_key(buf, sizeof buf, WB_CTRL_W), WB_LINE_EDITED,
	             "harmless on nothing");
	snprintf(buf, sizeof buf, "out/a b.json");
	cr_expect_eq(wb_line_key(buf, sizeof buf, WB_CTRL_U), WB_LINE_EDITED);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(wb_line_key(buf, sizeof buf, 'x'), WB_LINE_EDITED, "and typing goes on");
	cr_expect_str_eq(buf, "x");
}

Test(wbkeys, the_initial_text_is_selected)
{
	char buf[16] = "conv";
	bool sel = true;
	/* typing replaces it */
	cr_expect_eq(wb_line_edit(buf, sizeof buf, &sel, 'm'), WB_LINE_EDITED);
	cr_expect_str_eq(buf, "m");
	cr_expect_not(sel);
	cr_expect_eq(wb_line_edit(buf, sizeof buf, &sel, 'a'), WB_LINE_EDITED);
	cr_expect_str_eq(buf, "ma", "then it appends");
	/* Backspace, ^U and ^W erase it all */
	int erasers[] = {KEY_BACKSPACE, 127, WB_CTRL_U, WB_CTRL_W, KEY_DC};
	for (size_t i = 0; i < sizeof erasers / sizeof *erasers; i++) {
		snprintf(buf, sizeof buf, "two words");
		sel = true;
		cr_expect_eq(wb_line_edit(buf, sizeof buf, &sel, erasers[i]), WB_LINE_EDITED);
		cr_expect_str_eq(buf, "", "key %d erases the selection", erasers[i]);
		cr_expect_not(sel);
	}
	/* End keeps it for editing */
	snprintf(buf, sizeof buf, "conv");
	sel = true;
	cr_expect_eq(wb_line_edit(buf, sizeof buf, &sel, KEY_END), WB_LINE_EDITED);
	cr_expect_not(sel);
	wb_line_edit(buf, sizeof buf, &sel, '1');
	cr_expect_str_eq(buf, "conv1");
	/* Enter takes it as it is; other keys leave it selected */
	sel = true;
	cr_expect_eq(wb_line_edit(buf, sizeof buf, &sel, KEY_UP), WB_LINE_IGNORED);
	cr_expect(sel);
	cr_expect_eq(wb_line_edit(buf, sizeof buf, &sel, '\n'), WB_LINE_DONE);
	cr_expect_str_eq(buf, "conv1");
}

Test(wbkeys, wrapping_breaks_at_spaces_and_cuts_nothing)
{
	const char *text = "refine from the current (edited) partition";
	int start[8], len[8];
	int n = wb_wrap(text, 16, start, len, 8);
	cr_assert_eq(n, 3);
	/* "refine from the", "current (edited)", "partition" */
	cr_expect_eq(len[0], 15);
	cr_expect_eq(len[1], 16);
	cr_expect(strncmp(text + start[1], "current (edited)", 16) == 0);
	cr_expect_str_eq(text + start[2], "partition");
	/* every character but the spaces at the breaks is in a row */
	int chars = 0;
	for (int i = 0; i < n; i++) {
		cr_expect_leq(len[i], 16);
		chars += len[i];
	}
	cr_expect_eq(chars + (n - 1), (int)strlen(text));
	/* a word longer than a row is broken */
	cr_expect_eq(wb_wrap("abcdefghij", 4, start, len, 8), 3);
	cr_expect_eq(len[2], 2);
	cr_expect_eq(wb_wrap("", 10, start, len, 8), 0);
	/* the count goes past max, the rows stop there */
	cr_expect_eq(wb_wrap("a b c d", 1, start, len, 2), 4);
}
