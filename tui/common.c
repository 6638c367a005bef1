/*
 * common.c - shared helpers of the commands.  See common.h.
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>

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
