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

sc_status sc_part_read(const char *path, const sc_graph *g, int *k_out, int *stage, sc_error *err)
{
	bool *cpu = NULL;
	sc_status st = sc_part_read_devices(path, g, k_out, stage, &cpu, err);
	if (st == SC_OK && cpu) {
		free(cpu);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has CPU stages, which this command does "
		                    "not take yet (eval and solve do)",
		                    path);
	}
	return st;
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

sc_status sc_part_read_devices(const char *path, const sc_graph *g, int *k_out, int *stage,
                               bool **cpu_out, sc_error *err)
{
	*cpu_out = NULL;
	char **names = NULL;
	sc_status st = read_names(path, g, k_out, stage, &names, err);
	if (st != SC_OK || !names)
		return st;
	/* without a fleet the devices are "accel" and "cpu" (001 section 3) */
	int k = *k_out;
	bool *cpu = sc_calloc_n((size_t)k, sizeof *cpu), any = false;
	for (int s = 0; cpu && s < k && st == SC_OK; s++) {
		if (strcmp(names[s], "cpu") != 0 && strcmp(names[s], "accel") != 0)
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: stage %d's device is '%s', a kind of --devices "
			                  "(eval --devices takes it)",
			                  path, s + 1, names[s]);
		else
			any |= cpu[s] = strcmp(names[s], "cpu") == 0;
	}
	if (!cpu)
		st = sc_error_nomem(err, "the partition's devices");
	sc_part_names_free(names, k);
	if (st == SC_OK && any)
		*cpu_out = cpu;
	else
		free(cpu);
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

sc_status sc_part_load_kinds(const char *path, const sc_graph *g, const sc_fleet *f, int *k_out,
                             int *stage, int **kind_out, sc_violation *viol, sc_error *err)
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
	if (k > sc_fleet_stages(f)) {
		sc_part_names_free(names, k);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has k = %d, more stages than the %d of "
		                    "--devices",
		                    path, k, sc_fleet_stages(f));
	}
	int *kind = NULL;
	if (names) {
		int used[SC_KINDS_MAX] = {0};
		kind = sc_malloc_n((size_t)k, sizeof *kind);
		for (int s = 0; kind && s < k && st == SC_OK; s++) {
			int e = sc_fleet_find(f, names[s]);
			if (e < 0)
				st = sc_error_set(err, SC_ERR_INPUT,
				                  "%s: stage %d's device '%s' is none of --devices",
				                  path, s + 1, names[s]);
			else if (++used[e] > f->kind[e].count)
				st = sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: more stages of '%s' than the %d of --devices", path,
				        names[s], f->kind[e].count);
			else
				kind[s] = e;
		}
		if (!kind)
			st = sc_error_nomem(err, "the partition's devices");
		sc_part_names_free(names, k);
		if (st != SC_OK) {
			free(kind);
			return st;
		}
	}
	*kind_out = kind;
	sc_violation v;
	if (!sc_part_check_kinds(g, stage, k, f, kind, &v))
		return invalid(path, g, stage, &v, viol, err);
	return SC_OK;
}

/* The checks sc_part_load and sc_part_load_devices share, on a file read. */
static sc_status check_loaded(const char *path, const sc_graph *g, int want_k, int k,
                              const int *stage, const bool *cpu, sc_violation *viol, sc_error *err)
{
	sc_violation v;
	if (want_k > 0 && k != want_k)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the partition has k = %d, but k = %d is asked for", path,
		                    k, want_k);
	if (!sc_part_check_devices(g, stage, k, cpu, &v))
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
	return check_loaded(path, g, want_k, k, stage, NULL, viol, err);
}

sc_status sc_part_load_devices(const char *path, const sc_graph *g, int want_k, int *k_out,
                               int *stage, bool **cpu_out, sc_violation *viol, sc_error *err)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	if (viol)
		*viol = none;
	*k_out = 0;
	int k;
	sc_status st = sc_part_read_devices(path, g, &k, stage, cpu_out, err);
	if (st != SC_OK)
		return st;
	*k_out = k;
	return check_loaded(path, g, want_k, k, stage, *cpu_out, viol, err);
}

sc_status sc_part_write(const char *path, const sc_graph *g, const int *stage, int k,
                        const sc_costs *costs, sc_error *err)
{
	return sc_part_format_for_write(path)->write(path, g, stage, k, costs, err);
}
