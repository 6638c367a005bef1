/*
 * wb_keytab.c - the workbench's key table as data: wb_keys.def read into
 * the bindings and the footer hints, and the queries on them (decoding a
 * key in a context, naming a key, the help lines, the footers).
 *
 * Layer: the leaf above wb_state.c.  It calls nothing of the workbench
 * (only curses' key codes and libc), so every view and modal may ask it;
 * the dispatch that acts on the decoded actions is wb_keys.c, on top.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_keytab.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

static const wb_binding bindings[] = {
#define WB_KEY(act_, where_, label_, help_, ...)                                                   \
	{.act = WB_A_##act_,                                                                       \
	 .where = (where_),                                                                        \
	 .label = (label_),                                                                        \
	 .help = (help_),                                                                          \
	 .keys = {__VA_ARGS__}},
#include "tui/wb/wb_keys.def"
};

enum { NBINDINGS = (int)(sizeof bindings / sizeof *bindings) };

typedef struct hint {
	int footer;
	wb_action act;
	const char *text;
} hint;

static const hint hints[] = {
#define WB_HINT(footer_, act_, text_) {.footer = (footer_), .act = WB_A_##act_, .text = (text_)},
#include "tui/wb/wb_keys.def"
};

enum { NHINTS = (int)(sizeof hints / sizeof *hints) };

const wb_binding *wb_bindings(int *n)
{
	*n = NBINDINGS;
	return bindings;
}

wb_action wb_key_action(unsigned in, int ch)
{
	if (ch == 0)
		return WB_A_NONE;
	for (int i = 0; i < NBINDINGS; i++) {
		if (!(bindings[i].where & in))
			continue;
		for (const int *k = bindings[i].keys; *k; k++)
			if (*k == ch)
				return bindings[i].act;
	}
	return WB_A_NONE;
}

const char *wb_key_name(int ch, char *buf, size_t size)
{
	static const struct {
		int ch;
		const char *name;
	} names[] = {
	        {KEY_DOWN, "Down"},   {KEY_UP, "Up"},      {KEY_LEFT, "Left"}, {KEY_RIGHT, "Right"},
	        {KEY_NPAGE, "PgDn"},  {KEY_PPAGE, "PgUp"}, {KEY_HOME, "Home"}, {KEY_END, "End"},
	        {'\t', "Tab"},        {' ', "Space"},      {'\n', "Enter"},    {'\r', "Enter"},
	        {KEY_ENTER, "Enter"}, {27, "Esc"},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].ch == ch) {
			snprintf(buf, size, "%s", names[i].name);
			return buf;
		}
	if (ch > 0 && ch < 32)
		snprintf(buf, size, "^%c", ch + '@');
	else if (ch >= 32 && ch < 127)
		snprintf(buf, size, "%c", ch);
	else
		snprintf(buf, size, "key %d", ch);
	return buf;
}

const char *wb_footer_hint(int f, int i, wb_action *act)
{
	for (int j = 0; j < NHINTS; j++)
		if (hints[j].footer == f && i-- == 0) {
			if (act)
				*act = hints[j].act;
			return hints[j].text;
		}
	return NULL;
}

const char *wb_footer(int f, const char *sep, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	const char *h;
	for (int i = 0; (h = wb_footer_hint(f, i, NULL)) && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? sep : "", h);
	return buf;
}

const char *wb_help_line(unsigned in, int i, char *buf, size_t size)
{
	int col = 0;
	for (int j = 0; j < NBINDINGS; j++)
		if (bindings[j].label && (bindings[j].where & in) &&
		    (int)strlen(bindings[j].label) > col)
			col = (int)strlen(bindings[j].label);
	for (int j = 0; j < NBINDINGS; j++)
		if (bindings[j].label && (bindings[j].where & in) && i-- == 0) {
			snprintf(buf, size, "  %-*s  %s", col, bindings[j].label, bindings[j].help);
			return buf;
		}
	return NULL;
}
