/*
 * first_fit.c - first fit under a hard memory limit.  See first_fit.h.
 */
#include "first_fit.h"

#include <math.h>
#include <stdlib.h>

#include "core/mem.h"

/* First fit along order: true when every unit found a stage. */
static bool place(const sc_units *u, const int *order, int k, double memory, double *room,
                  int *unit_stage)
{
	for (int s = 0; s < k; s++)
		room[s] = memory;
	for (int i = 0; i < u->n; i++) {
		int x = order[i], lo = 0;
		for (int j = u->pred_off[x]; j < u->pred_off[x + 1]; j++)
			if (unit_stage[u->pred[j]] > lo)
				lo = unit_stage[u->pred[j]];
		double need = u->param[x];
		int s = lo;
		if (u->pin && u->pin[x] >= 0) {
			s = u->pin[x];
			if (s < lo || room[s] < need)
				return false;
		} else {
			while (s < k && room[s] < need)
				s++;
			if (s == k)
				return false;
		}
		room[s] -= need;
		unit_stage[x] = s;
	}
	return true;
}

sc_status sc_first_fit(const sc_units *u, sc_orderer *o, int k, double memory, int *unit_stage,
                       bool *found, sc_error *err)
{
	*found = false;
	if (u->n == 0 || (double)u->n * k > 1e8)
		return SC_OK;
	double *prio = sc_malloc_n((size_t)u->n, sizeof *prio);
	double *room = sc_malloc_n((size_t)k, sizeof *room);
	int *order = sc_malloc_n((size_t)u->n, sizeof *order);
	if (!prio || !room || !order) {
		free(prio);
		free(room);
		free(order);
		return sc_error_nomem(err, "a first-fit partition");
	}
	for (int round = 0; round < 3 && !*found; round++) {
		const int *by = order;
		if (round < 2) {
			for (int x = 0; x < u->n; x++)
				prio[x] = round == 0 ? u->param[x] : u->work[x];
			sc_order_kahn(o, prio, order);
		} else {
			by = u->topo;
		}
		*found = place(u, by, k, memory, room, unit_stage);
	}
	free(prio);
	free(room);
	free(order);
	return SC_OK;
}
