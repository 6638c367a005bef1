/*
 * methods.c - the registry of search methods and the choice behind `best`.
 * See search.h (sc_search_new, sc_search_methods) and search_impl.h.
 *
 * This is the top of solvers/' search layer: it lists every method's table
 * (slicing.c, brkga.c, ideals.c, refine.c), resolves the pseudo-method
 * `best` (the exact DP over ideals when its ideals fit memory and time, else
 * BRKGA), and hands the chosen method with the refinement phase to the
 * framework (search.c, sc_search_start).  The methods and the framework
 * never call back here.
 */
#include "ideals.h"
#include "search_impl.h"

#include "core/clock.h"

#include <string.h>

static const sc_method method_best = {
        .name = "best",
        .help = "exact when its ideals fit memory and time, else brkga + refine (default; with "
                "--cpus the exact DP with CPU stages)",
};

/* in the order of the help text */
static const sc_method *const methods[] = {
        &method_best,     &sc_method_kahn,   &sc_method_slice,        &sc_method_random,
        &sc_method_brkga, &sc_method_mla,    &sc_method_mla_weighted, &sc_method_dpl,
        &sc_method_exact, &sc_method_refine,
};
#define NMETHODS (int)(sizeof methods / sizeof methods[0])

const sc_method_info *sc_search_methods(int *count)
{
	static sc_method_info info[NMETHODS];
	for (int i = 0; i < NMETHODS; i++)
		info[i] = (sc_method_info){methods[i]->name, methods[i]->help};
	*count = NMETHODS;
	return info;
}

static const sc_method *find_method(const char *name)
{
	for (int i = 0; i < NMETHODS; i++)
		if (strcmp(methods[i]->name, name) == 0)
			return methods[i];
	return NULL;
}

/* What stops choose_best's count: the caller's interrupt and stop, and the
 * time limit (counted from the search's start). */
typedef struct choose_stop {
	const sc_search_params *p;
	double deadline; /* 0: none */
} choose_stop;

static bool choose_should_stop(void *ctx)
{
	const choose_stop *c = ctx;
	if (c->p->interrupted && c->p->interrupted())
		return true;
	if (c->p->stop && c->p->stop(c->p->stop_ctx))
		return true;
	return c->deadline > 0 && sc_clock_now() >= c->deadline;
}

/* `best`: exact when the DP's ideals fit its memory budget and the time
 * (sc_dp_best_limit: what the DP is expected to get through in the time
 * limit, or in two minutes without one), or when --ideal-limit gives a
 * count, at most that many; else the genetic search.  NULL with err set
 * when the unit DAG cannot be built. */
static const sc_method *choose_best(const sc_graph *g, const sc_settings *set,
                                    const sc_search_params *p, double started, sc_error *err)
{
	if (set->pin && sc_graph_is_training(g) && set->schedule == SC_SCHEDULE_GPIPE)
		return &sc_method_brkga; /* the exact DP takes no pins there (ideals.c) */
	sc_units *u = sc_units_new(g, true, set, err);
	if (!u)
		return NULL;
	long limit = p->ideal_limit > 0 ? p->ideal_limit : sc_dp_best_limit(u, set, p->time_limit);
	/* stopped while counting: the genetic search, which then stops at once
	 * with the greedy split (what was found) */
	choose_stop cs = {.p = p, .deadline = p->time_limit > 0 ? started + p->time_limit : 0};
	long count = sc_ideals_count_until(u, limit, choose_should_stop, &cs);
	sc_units_free(u);
	return count >= 0 && count <= limit ? &sc_method_exact : &sc_method_brkga;
}

sc_status sc_search_best_is_exact(const sc_graph *g, const sc_settings *set,
                                  const sc_search_params *p, bool *exact, sc_error *err)
{
	sc_search_params def;
	sc_search_params_init(&def);
	sc_error local;
	sc_error *e = err ? err : &local;
	const sc_method *m = choose_best(g, set, p ? p : &def, sc_clock_now(), e);
	if (!m)
		return e->code;
	*exact = m == &sc_method_exact;
	return SC_OK;
}

sc_search *sc_search_new(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                         sc_error *err)
{
	/* the time limit counts from here: choosing (counting the ideals) takes
	 * a pass over the graph, 0.2 s on 10^5 ops */
	double started = sc_clock_now();
	sc_search_params def;
	sc_search_params_init(&def);
	if (!p)
		p = &def;
	const char *name = p->method ? p->method : "best";
	const sc_method *m = find_method(name);
	if (!m) {
		char list[256] = "";
		for (int i = 0; i < NMETHODS; i++) {
			strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
			strncat(list, methods[i]->name, sizeof list - strlen(list) - 1);
		}
		sc_error_set(err, SC_ERR_INPUT, "unknown method '%s' (one of: %s)", name, list);
		return NULL;
	}
	if (sc_search_check(g, set, p, err) != SC_OK)
		return NULL;
	/* a pin names a stage of all of them, with devices every kind's */
	int K = sc_settings_stages(set);
	for (int v = 0; set->pin && v < g->n; v++)
		if (set->pin[v] >= K) {
			sc_error_set(err, SC_ERR_INPUT, "'%s' is pinned to stage %d of %d",
			             g->op_name[v], set->pin[v] + 1, K);
			return NULL;
		}
	if (m == &method_best && !(m = choose_best(g, set, p, started, err)))
		return NULL;
	sc_search_params named = *p;
	named.method = name;
	sc_search *s = sc_search_start(g, set, &named, m, &sc_refine_phase, err);
	if (s)
		s->t0 = started;

	return s;
}
