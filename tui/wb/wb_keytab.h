/*
 * wb_keytab.h - the workbench's keys as data: the actions (one per row of
 * wb_keys.def), decoding a key in a context, naming keys, the help lines
 * and the footers.  The table itself is wb_keys.def; wb_keytab.c reads it
 * (a leaf: any file of tui/wb/ may call it); wb_keys.c dispatches the
 * decoded actions and holds the global actions (what a view or modal
 * leaves unhandled).
 */
#ifndef UI_WB_KEYTAB_H
#define UI_WB_KEYTAB_H

#include <stdbool.h>
#include <stddef.h>

typedef enum wb_action {
	WB_A_NONE = 0,
#define WB_KEY(act, where, label, help, ...) WB_A_##act,
#include "tui/wb/wb_keys.def"
	WB_A_COUNT
} wb_action;

/* Where a key works: a view's context or a modal's. */
enum {
	WB_IN_OVERVIEW = 1u,
	WB_IN_NODES = 2u,
	WB_IN_QUOTIENT = 4u,
	WB_IN_TIMELINE = 64u,
	WB_IN_MODULES = 256u,
	WB_IN_VIEWS = 327u, /* the five views' contexts */
	WB_IN_SETTINGS = 8u,
	WB_IN_TOUR = 16u,
	WB_IN_COMPARE = 32u,
	WB_IN_CHOOSE = 128u, /* the list of neighbours (wb_nav.c) */
	WB_IN_CPUTAB = 512u, /* the CPU table (wb_cputable.c) */
};

/* The footers made from the WB_HINT rows. */
enum {
	WB_FOOT_MAIN,
	WB_FOOT_NODES,
	WB_FOOT_MODULES,
	WB_FOOT_SETTINGS,
	WB_FOOT_TOUR,
	WB_FOOT_COMPARE,
	WB_FOOT_COUNT
};

enum { WB_KEYS_PER_ACTION = 4 };

typedef struct wb_binding {
	wb_action act;
	unsigned where;                   /* WB_IN_* */
	const char *label;                /* NULL: documented by the row above */
	const char *help;                 /* NULL with label */
	int keys[WB_KEYS_PER_ACTION + 1]; /* 0-terminated */
} wb_binding;

/* The table, in help order; *n gets its length.  Static, never NULL. */
const wb_binding *wb_bindings(int *n);

/* The action of key ch in context in (a WB_IN_* bit), or WB_A_NONE. */
wb_action wb_key_action(unsigned in, int ch);

/* The name of key ch as labels write it ("q", "Down", "^R", "Tab",
 * "Space", "Enter", "Esc") into buf. */
const char *wb_key_name(int ch, char *buf, size_t size);

/* Footer f's text: its hints joined by sep, into buf; returns buf. */
const char *wb_footer(int f, const char *sep, char *buf, size_t size);

/* The i-th footer hint of footer f (its action into *act when not NULL),
 * or NULL past the last. */
const char *wb_footer_hint(int f, int i, wb_action *act);

/* The help screen's i-th key line ("  LABEL  HELP", labels padded to one
 * column) for the rows working in the contexts of mask in, into buf; NULL
 * past the last. */
const char *wb_help_line(unsigned in, int i, char *buf, size_t size);

#endif
