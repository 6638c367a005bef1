/*
 * partition_file.c - choosing a partition format, and the checks every
 * reader of a partition file shares.  See partition_file.h; the formats are
 * partition_json.c and partition_dot.c, which do not call back here.
 */
#define _POSIX_C_SOURCE 200809L
#include "partition_file.h"

#include "core/fleet.h"
#include "core/mem.h"

#include <ctype.h>
#include <string.h>
#include <stdlib.h>

#include "core/fileio.h"
#include "core/parse.h"

/* in the order ties go: content over extension, then first listed; the
 * first is also the format of a file no probe knows */
static const sc_part_format *const formats[] = {&sc_part_format_json, &sc_part_format_dot};
#define NFORMATS (sizeof formats / sizeof formats[0])

const sc_part_format *sc_part_format_for_read(const char *path, const char *head, size_t len)
{
	const sc_part_format *best = formats[0];
	int surest = SC_PROBE_NO;
	for (size_t f = 0; f < NFORMATS; f++) {
		int p = formats[f]->probe(path, head, len);
		if (p > surest) {
			surest = p;
			best = formats[f];
		}
	}
	return best;
}

const sc_part_format *sc_part_format_for_write(const char *path)
{
	/* by the name alone: the file may not exist yet, and what it held
	 * before says nothing of what is asked for now */
	if (sc_has_extension(path, ".dot") || sc_has_extension(path, ".gv"))
		return &sc_part_format_dot;
	return &sc_part_format_json;
}

/* Reads path once (a pipe cannot be read again after the probe; and
 * here rather than in a parser, for the same messages as graph files: a
 * directory is not "malformed JSON"), with the format whose probe is
 * surest, the devices as the file names them. */
static sc_status read_names(const char *path, const sc_graph *g, int *k_out, int *stage,
                            char ***names, sc_error *err)
{
	size_t len;
	char *data = sc_file_read_all(path, "a partition file", &len, err);
	if (!data)
		return err ? err->code : SC_ERR_IO;
	if (len == 0) {
		free(data);
		return sc_error_set(err, SC_ERR_INPUT, "%s: the file is empty", path);
	}
	/* a byte order mark is invisible when quoted, and neither JSON text
	 * (RFC 8259 section 8.1) nor a DOT file may start with one */
	if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
		free(data);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the file starts with a UTF-8 byte order mark (bytes EF BB "
		                    "BF), which a partition file may not hold; save it without one",
		                    path);
	}
	size_t at = 0;
	while (at < len && isspace((unsigned char)data[at]))
		at++;
	size_t head = len - at < 512 ? len - at : 512;
	const sc_part_format *f = sc_part_format_for_read(path, data + at, head);
	sc_status st = f->read(path, data, len, g, k_out, stage, names, err);
	free(data);
	return st;
}

sc_status sc_part_read(const char *path, const sc_graph *g, int *k_out, int *stage, sc_error *err)
{
	char **names = NULL;
	sc_status st = read_names(path, g, k_out, stage, &names, err);
	for (int s = 0; st == SC_OK && names && s < *k_out; s++)
		if (strcmp(names[s], "accel") != 0 && strcmp(names[s], sc_graph_work_kind(g)) != 0)
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: stage %d runs on '%s': give the devices (--cpus or "
			                  "--devices) to read it",
			                  path, s + 1, names[s]);
	sc_part_names_free(names, *k_out);
	return st;
}

void sc_part_names_free(char **names, int k)
{
	for (int s = 0; names && s < k; s++)
		free(names[s]);
	free(names);
}

/* The one message of a partition that breaks its rules (v, then into
 * *viol when not NULL): SC_ERR_INVALID. */
static sc_status invalid(const char *path, const sc_graph *g, const int *stage,
                         const sc_violation *v, sc_violation *viol, sc_error *err)
{
	char why[SC_PART_WHY_SIZE];
	sc_part_describe(g, stage, v, why, sizeof why);
	if (viol)
		*viol = *v;
	return sc_error_set(err, SC_ERR_INVALID, "%s: the partition is invalid: %s", path, why);
}

/* The fleet of a partition's own device names (no fleet given): kind 0 the
 * graph's work kind (named so, or "accel" as 001's files name it), kind 1
 * "cpu" (the indices an sc_costs without a fleet gives them), then every
 * other kind in the order the file names them, each with the count of
 * stages that name it (every stage kind 0 when names is NULL: a file that
 * names no devices), bound to g's op times by sc_fleet_resolve. */
static sc_status fleet_of_names(const char *path, const sc_graph *g, char **names, int k,
                                sc_fleet *f, sc_error *err)
{
	sc_fleet named = {.n = 2};
	snprintf(named.kind[0].name, SC_KIND_NAME, "%s", sc_graph_work_kind(g));
	snprintf(named.kind[1].name, SC_KIND_NAME, "cpu");
	for (int s = 0; s < k; s++) {
		const char *name =
		        !names || strcmp(names[s], "accel") == 0 ? named.kind[0].name : names[s];
		int e = sc_fleet_find(&named, name);
		if (e < 0) {
			if (named.n == SC_KINDS_MAX || strlen(name) >= SC_KIND_NAME)
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: stage %d's device '%s' is one kind too many "
				        "(at most %d, or a name of at most %d bytes)",
				        path, s + 1, names[s], SC_KINDS_MAX, SC_KIND_NAME - 1);
			e = named.n++;
			snprintf(named.kind[e].name, SC_KIND_NAME, "%s", name);
		}
		named.kind[e].count++;
	}
	sc_settings set = g->settings;
	set.fleet = &named;
	sc_error why;
	if (!sc_fleet_resolve(g, &set, f, &why))
		return sc_error_set(err, SC_ERR_INPUT, "%s: %s; give --devices to cost them", path,
		                    why.msg);
	return SC_OK;
}

sc_status sc_part_load_kinds(const char *path, const sc_graph *g, const sc_fleet *given, int want_k,
                             int *k_out, int *stage, sc_fleet *fleet, int **kind_out,
                             sc_violation *viol, sc_error *err)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	if (viol)
		*viol = none;
	*k_out = 0;
	*kind_out = NULL;
	int k;
	char **names = NULL;
	sc_status st = read_names(path, g, &k, stage, &names, err);
	if (st != SC_OK)
		return st;
	*k_out = k;
	if (want_k > 0 && k != want_k)
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: the partition has k = %d, but k = %d is asked for", path, k,
		                  want_k);
	else if (given && k > sc_fleet_stages(given))
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: the partition has k = %d, more stages than the %d asked "
		                  "for",
		                  path, k, sc_fleet_stages(given));
	else if (given)
		*fleet = *given;
	else
		st = fleet_of_names(path, g, names, k, fleet, err);
	int *kind = NULL;
	if (st == SC_OK && names) {
		int used[SC_KINDS_MAX] = {0};
		kind = sc_malloc_n((size_t)k, sizeof *kind);
		for (int s = 0; kind && s < k && st == SC_OK; s++) {
			/* "accel": the graph's own device, as 001's files name it */
			int e = sc_fleet_find(fleet, strcmp(names[s], "accel") == 0
			                                     ? sc_graph_work_kind(g)
			                                     : names[s]);
			if (e < 0)
				st = sc_error_set(err, SC_ERR_INPUT,
				                  "%s: stage %d's device '%s' is none of the %s",
				                  path, s + 1, names[s],
				                  given ? "devices asked for" : "graph's");
			else if (++used[e] > fleet->kind[e].count)
				st = sc_error_set(err, SC_ERR_INPUT,
				                  "%s: more stages of '%s' than the %d asked for",
				                  path, names[s], fleet->kind[e].count);
			else
				kind[s] = e;
		}
		if (!kind)
			st = sc_error_nomem(err, "the partition's devices");
	}
	sc_part_names_free(names, k);
	if (st != SC_OK) {
		free(kind);
		return st;
	}
	*kind_out = kind;
	sc_violation v;
	if (!sc_part_check_kinds(g, stage, k, fleet, kind, &v))
		return invalid(path, g, stage, &v, viol, err);
	return SC_OK;
}

sc_status sc_part_load(const char *path, const sc_graph *g, int want_k, int *k_out, int *stage,
                       sc_violation *viol, sc_error *err)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	if (viol)
		*viol = none;
	*k_out = 0;
	int k;
	sc_status st = sc_part_read(path, g, &k, stage, err);
	if (st != SC_OK)
		return st;
	*k_out = k;
	if (want_k > 0 && k != want_k)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has k = %d, but k = %d is asked for", path,
		                    k, want_k);
	/* every stage of the graph's own device: an op it may not run breaks
	 * the partition as a broken order does */
	sc_fleet f;
	st = fleet_of_names(path, g, NULL, k, &f, err);
	sc_violation v;
	if (st == SC_OK && !sc_part_check_kinds(g, stage, k, &f, NULL, &v))
		return invalid(path, g, stage, &v, viol, err);
	return st;
}

sc_status sc_part_write(const char *path, const sc_graph *g, const int *stage, int k,
                        const sc_costs *costs, sc_error *err)
{
	return sc_part_write_until(path, g, stage, k, costs, NULL, NULL, err);
}

sc_status sc_part_write_until(const char *path, const sc_graph *g, const int *stage, int k,
                              const sc_costs *costs, bool (*stop)(void *), void *ctx, sc_error *err)
{
	return sc_part_format_for_write(path)->write(path, g, stage, k, costs, stop, ctx, err);
}
