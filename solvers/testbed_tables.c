/*
 * testbed_tables.c - the tables of a testbed (paper 000, Tables 1 and 2),
 * computed from records into sc_testbed_tables and as JSON.  See testbed.h.
 *
 * The rest of the module (instances, records, resuming) is testbed.c; the
 * bench command (tui/cmd/cmd_bench.c) prints what this file computes.
 * Every number is read back from the records by name, so records of older
 * runs with other methods count wherever their members match.
 */
#include "solvers/testbed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

/* ---- tables -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The names of the members of `what` ("methods" or "rungs") over all
 * records, in first-seen order, as rows. */
static int rows_of(const sc_testbed_records *rs, const char *what, sc_testbed_row *rows, int max)
{
	int n = 0;
	for (int i = 0; i < rs->n; i++) {
		const char *key;
		json_t *v;
		json_object_foreach(json_object_get(rs->r[i], what), key, v)
		{
			int j = 0;
			while (j < n && strcmp(rows[j].name, key) != 0)
				j++;
			if (j == n && n < max)
				rows[n++].name = key;
		}
	}
	return n;
}

/* The distinct ks of the records, ascending. */
static int ks_of(const sc_testbed_records *rs, int *ks, int max)
{
	int n = 0;
	for (int i = 0; i < rs->n; i++) {
		int k = (int)json_integer_value(json_object_get(rs->r[i], "k"));
		int j = 0;
		while (j < n && ks[j] != k)
			j++;
		if (j == n && n < max)
			ks[n++] = k;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ks[j - 1] > ks[j]; j--) {
			int t = ks[j];
			ks[j] = ks[j - 1];
			ks[j - 1] = t;
		}
	return n;
}

static double num(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Geometric mean over the records at k of num/den, where num is the
 * member `name` of `what` (its field `field`), or with what NULL the
 * record's own `field`, and den the record's `den` ("upper" or "simple"),
 * counting only positive finite ratios; *count gets how many. */
static double geomean(const sc_testbed_records *rs, int k, const char *what, const char *name,
                      const char *field, const char *den, int *count)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < rs->n; i++) {
		json_t *r = rs->r[i];
		if (json_integer_value(json_object_get(r, "k")) != k)
			continue;
		double x = what ? num(json_object_get(json_object_get(r, what), name), field)
		                : num(r, field);
		double d = num(r, den);
		if (isfinite(x) && isfinite(d) && x > 0 && d > 0) {
			sum += log(x / d);
			n++;
		}
	}
	*count = n;
	return n ? exp(sum / n) : NAN;
}

/* Fills the rows' ratios per k, their instance counts and their median
 * seconds; v is scratch for rs->n doubles (NULL: medians left NAN). */
static void fill_rows(const sc_testbed_records *rs, const sc_testbed_tables *t, const char *what,
                      const char *field, const char *den, sc_testbed_row *rows, int n, double *v)
{
	for (int i = 0; i < n; i++) {
		sc_testbed_row *row = &rows[i];
		row->instances = 0;
		for (int j = 0; j < t->nk; j++) {
			int cnt;
			row->ratio[j] = geomean(rs, t->ks[j], what, row->name, field, den, &cnt);
			row->instances += cnt;
		}
		row->median_seconds = NAN;
		if (!v)
			continue;
		int m = 0;
		for (int r = 0; r < rs->n; r++) {
			double s = num(json_object_get(json_object_get(rs->r[r], what), row->name),
			               "seconds");
			if (isfinite(s))
				v[m++] = s;
		}
		row->median_seconds = median(v, m);
	}
}

void sc_testbed_tables_compute(const sc_testbed_records *rs, sc_testbed_tables *t)
{
	memset(t, 0, sizeof *t);
	t->records = rs->n;
	t->nm = rows_of(rs, "methods", t->methods, SC_TESTBED_TABLE_METHODS);
	t->nr = rows_of(rs, "rungs", t->rungs, SC_TESTBED_TABLE_RUNGS);
	t->nk = ks_of(rs, t->ks, SC_TESTBED_TABLE_KS);
	double *v = sc_malloc_n((size_t)rs->n, sizeof *v);
	fill_rows(rs, t, "rungs", "value", "upper", t->rungs, t->nr, v);
	/* and the best lower bound of each instance: the largest rung, or the
	 * optimum itself where the exact DP proved it (000 Table 1's "best
	 * available lower bound") */
	if (t->nr > 0 && t->nr < SC_TESTBED_TABLE_RUNGS) {
		sc_testbed_row *row = &t->rungs[t->nr++];
		row->name = "best";
		row->instances = 0;
		for (int j = 0; j < t->nk; j++) {
			int cnt;
			row->ratio[j] = geomean(rs, t->ks[j], NULL, NULL, "lower", "upper", &cnt);
			row->instances += cnt;
		}
		row->median_seconds = NAN;
	}
	fill_rows(rs, t, "methods", "bottleneck", "simple", t->methods, t->nm, v);
	free(v);
	for (int r = 0; r < rs->n; r++)
		t->usable +=
		        isfinite(num(rs->r[r], "simple")) && !json_object_get(rs->r[r], "error");
	for (int j = 0; j < t->nk; j++) {
		for (int r = 0; r < rs->n; r++)
			if (json_integer_value(json_object_get(rs->r[r], "k")) == t->ks[j] &&
			    !json_object_get(rs->r[r], "error")) {
				t->of[j]++;
				t->proven[j] +=
				        json_is_true(json_object_get(rs->r[r], "proven_optimal"));
			}
		t->proven_all += t->proven[j];
		t->of_all += t->of[j];
	}
}

static json_t *number_or_null(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

static json_t *ratio_table(const sc_testbed_tables *t, const sc_testbed_row *rows, int n,
                           bool counts)
{
	json_t *table = json_object();
	char b[32];
	for (int i = 0; i < n; i++) {
		json_t *row = json_object();
		json_object_set_new(table, rows[i].name, row);
		for (int j = 0; j < t->nk; j++) {
			snprintf(b, sizeof b, "%d", t->ks[j]);
			json_object_set_new(row, b, number_or_null(rows[i].ratio[j]));
		}
		if (counts)
			json_object_set_new(row, "instances", json_integer(rows[i].instances));
	}
	return table;
}

static json_t *medians(const sc_testbed_row *rows, int n)
{
	json_t *group = json_object();
	for (int i = 0; i < n; i++)
		json_object_set_new(group, rows[i].name, number_or_null(rows[i].median_seconds));
	return group;
}

json_t *sc_testbed_tables_json(const sc_testbed_tables *t)
{
	json_t *root = json_object(), *times = json_object(), *proven = json_object();
	if (!root || !times || !proven) {
		json_decref(root);
		json_decref(times);
		json_decref(proven);
		return NULL;
	}
	json_object_set_new(root, "instances", json_integer(t->records));
	json_object_set_new(root, "table1", ratio_table(t, t->rungs, t->nr, false));
	json_object_set_new(root, "table2", ratio_table(t, t->methods, t->nm, true));
	json_object_set_new(root, "median_seconds", times);
	json_object_set_new(root, "proven_optimal", proven);
	json_object_set_new(times, "methods", medians(t->methods, t->nm));
	json_object_set_new(times, "rungs", medians(t->rungs, t->nr));
	char b[32];
	for (int j = 0; j < t->nk; j++) {
		snprintf(b, sizeof b, "%d", t->ks[j]);
		json_object_set_new(
		        proven, b, json_pack("{s:i, s:i}", "proven", t->proven[j], "of", t->of[j]));
	}
	return root;
}
