/*
 * devices_file.c - reading a devices file (jansson).  See devices_file.h.
 *
 * The file is read whole and parsed with duplicate keys refused (a kind
 * given two counts would keep one silently); every kind is checked as a
 * --devices SPEC's kinds are (sc_kind_name_ok, counts 1 to 4096, each name
 * once, at most SC_KINDS_MAX), so that a file and the SPEC it spells out
 * make the same fleet.
 */
#define _POSIX_C_SOURCE 200809L
#include "devices_file.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/device.h"
#include "core/fileio.h"
#include "core/parse.h"

bool sc_devices_is_file(const char *arg)
{
	struct stat st;
	size_t len = strlen(arg);
	return strchr(arg, '/') || (len >= 5 && strcmp(arg + len - 5, ".json") == 0) ||
	       (stat(arg, &st) == 0 && S_ISREG(st.st_mode));
}

/* rel made relative to the directory of path into out; false when it does
 * not fit. */
static bool beside(const char *path, const char *rel, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	int n = rel[0] == '/' || !slash
	                ? snprintf(out, size, "%s", rel)
	                : snprintf(out, size, "%.*s/%s", (int)(slash - path), path, rel);
	return n >= 0 && (size_t)n < size;
}

/* A positive finite number at key of kind (0 when absent) into *out. */
static sc_status positive(const char *path, const char *name, const json_t *kind, const char *key,
                          double *out, sc_error *err)
{
	const json_t *v = json_object_get(kind, key);
	*out = 0;
	if (!v)
		return SC_OK;
	if (!json_is_number(v) || !(json_number_value(v) > 0) || !isfinite(json_number_value(v)))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: device '%s': \"%s\" must be a number > 0", path, name,
		                    key);
	*out = json_number_value(v);
	return SC_OK;
}

/* A path at key of kind ("" when absent) into out, relative to path's
 * directory when as_file. */
static sc_status file_key(const char *path, const char *name, const json_t *kind, const char *key,
                          bool as_file, char *out, sc_error *err)
{
	const json_t *v = json_object_get(kind, key);
	out[0] = '\0';
	if (!v)
		return SC_OK;
	const char *text = json_string_value(v);
	if (!text || !*text)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: device '%s': \"%s\" must be a non-empty string", path,
		                    name, key);
	bool ok = as_file ? beside(path, text, out, SC_DEVICES_PATH)
	                  : snprintf(out, SC_DEVICES_PATH, "%s", text) < SC_DEVICES_PATH;
	if (!ok)
		return sc_error_set(err, SC_ERR_INPUT, "%s: device '%s': \"%s\" is too long", path,
		                    name, key);
	/* a file that is not there is this file's fault: said here, naming it */
	if (as_file && access(out, R_OK) != 0)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: device '%s': \"%s\": cannot read %s: %s", path, name, key,
		                    out, strerror(errno));
	return SC_OK;
}

/* The "refuse" list of kind into out (SC_DEVICES_REFUSE bytes): each
 * name ended by a NUL, the list by an empty string. */
static sc_status refuse_list(const char *path, const char *name, const json_t *kind, char *out,
                             sc_error *err)
{
	const json_t *list = json_object_get(kind, "refuse"), *e;
	size_t at = 0, i;
	memset(out, 0, SC_DEVICES_REFUSE);
	if (!list)
		return SC_OK;
	if (!json_is_array(list))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: device '%s': \"refuse\" must be a list of op names or "
		                    "types",
		                    path, name);
	json_array_foreach(list, i, e)
	{
		const char *text = json_string_value(e);
		size_t len = text ? strlen(text) : 0;
		if (len == 0)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: device '%s': \"refuse\" entry %zu is not a non-empty "
			        "string",
			        path, name, i + 1);
		if (at + len + 2 > SC_DEVICES_REFUSE)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: device '%s': \"refuse\" holds more than %d bytes of "
			        "names",
			        path, name, SC_DEVICES_REFUSE - 2);
		memcpy(out + at, text, len + 1);
		at += len + 1;
	}
	return SC_OK;
}

/* Kind i of the "devices" array into fleet and files. */
static sc_status read_kind(const char *path, const json_t *kind, int i, sc_fleet *fleet,
                           sc_devices_file *files, sc_error *err)
{
	if (!json_is_object(kind))
		return sc_error_set(err, SC_ERR_INPUT, "%s: device %d is not a JSON object", path,
		                    i + 1);
	const char *key;
	const json_t *value;
	json_object_foreach((json_t *)kind, key, value)
	{
		static const char *const known[] = {"name",   "count",     "profile", "times",
		                                    "memory", "bandwidth", "refuse"};
		bool ok = false;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			ok |= strcmp(key, known[k]) == 0;
		if (!ok)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: device %d: unknown key \"%s\" (name, count, profile, "
			        "times, memory, bandwidth, refuse)",
			        path, i + 1, key);
	}
	const char *name = json_string_value(json_object_get(kind, "name"));
	if (!name || !sc_kind_name_ok(name, strlen(name)))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: device %d: \"name\" must be a device name (letters, "
		                    "digits, _ - . and at most %d of them)",
		                    path, i + 1, SC_KIND_NAME - 1);
	if (sc_fleet_find(fleet, name) >= 0)
		return sc_error_set(err, SC_ERR_INPUT, "%s: device '%s' is named twice", path,
		                    name);
	json_int_t count;
	if (!sc_json_whole(json_object_get(kind, "count"), &count, NULL) || count < 1 ||
	    count > 4096)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: device '%s': \"count\" must be a whole number from 1 to "
		                    "4096",
		                    path, name);
	sc_kind *d = &fleet->kind[fleet->n];
	snprintf(d->name, sizeof d->name, "%s", name);
	d->count = (int)count;
	d->cpu = strcmp(name, "cpu") == 0;
	const char *profile = json_string_value(json_object_get(kind, "profile"));
	bool profile_file = profile && !sc_device_builtin(profile);
	sc_status st = positive(path, name, kind, "memory", &d->own_memory, err);
	if (st == SC_OK)
		st = positive(path, name, kind, "bandwidth", &d->own_bandwidth, err);
	if (st == SC_OK)
		st = file_key(path, name, kind, "profile", profile_file, files->profile[fleet->n],
		              err);
	if (st == SC_OK)
		st = file_key(path, name, kind, "times", true, files->times[fleet->n], err);
	if (st == SC_OK)
		st = refuse_list(path, name, kind, files->refuse[fleet->n], err);
	if (st == SC_OK && d->cpu &&
	    (json_object_get(kind, "profile") || json_object_get(kind, "times")))
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: device 'cpu': its op times are the graph file's (cpu_work, "
		                  "cpuLatency), not a profile's or measured ones",
		                  path);
	if (st == SC_OK)
		fleet->n++;
	return st;
}

sc_status sc_devices_read(const char *path, sc_fleet *fleet, sc_devices_file *files, sc_error *err)
{
	memset(fleet, 0, sizeof *fleet);
	memset(files, 0, sizeof *files);
	size_t len;
	char *data = sc_file_read_all(path, "a devices file", &len, err);
	if (!data)
		return err->code;
	json_error_t jerr;
	json_t *root = sc_json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	free(data);
	if (!root)
		return sc_json_error(err, path, &jerr);
	const json_t *fmt = json_object_get(root, "format");
	const json_t *kinds = json_object_get(root, "devices");
	sc_status st = SC_OK;
	if (!json_is_object(root) || !json_is_string(fmt) ||
	    strcmp(json_string_value(fmt), SC_DEVICES_FORMAT) != 0)
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: not a devices file (a JSON object with \"format\": \"%s\")",
		                  path, SC_DEVICES_FORMAT);
	else if (!json_is_array(kinds) || json_array_size(kinds) == 0)
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: \"devices\" must be a non-empty list of devices", path);
	else if (json_array_size(kinds) > SC_KINDS_MAX)
		st = sc_error_set(err, SC_ERR_INPUT, "%s: more than %d kinds of device", path,
		                  SC_KINDS_MAX);
	const char *key;
	const json_t *value;
	if (st == SC_OK)
		json_object_foreach(root, key, value) if (strcmp(key, "format") != 0 &&
		                                          strcmp(key, "devices") != 0)
		{
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: unknown key \"%s\" (format, devices)", path, key);
			break;
		}
	for (size_t i = 0; st == SC_OK && i < json_array_size(kinds); i++)
		st = read_kind(path, json_array_get(kinds, i), (int)i, fleet, files, err);
	json_decref(root);
	return st;
}
