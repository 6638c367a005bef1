/*
 * devices_file.h - a devices file (--devices FILE): the kinds of device a
 * pipeline runs on, each with its count and, beyond what a --devices SPEC
 * can say, its own costs, memory and link (DESIGN.md section 1, Devices):
 *
 *   {"format": "stagecut-devices/1", "devices": [
 *      {"name": "h100", "count": 2, "profile": "h100", "times": "prof.json",
 *       "memory": 80e9, "bandwidth": 5e10},
 *      {"name": "cpu", "count": 1}]}
 *
 * Each kind: "name" and "count" as in a SPEC (fleet.h); "profile" an ONNX
 * model's device profile for the kind (a built-in device's name, else a
 * profile file, device.h); "times" its measured times (times.h);
 * "memory" bytes per stage and "bandwidth" bytes per time unit of its link,
 * both > 0; "refuse" a list of op names or op types (ONNX's op_type) the
 * kind may not run (an op it has no kernel for, one too slow to be worth
 * placing there).  Paths are relative to the devices file's directory.
 * Any other key is an error (a misspelt key would be silently ignored
 * otherwise).
 */
#ifndef SC_DEVICES_FILE_H
#define SC_DEVICES_FILE_H

#include <stdbool.h>

#include "core/error.h"
#include "core/fleet.h"

#define SC_DEVICES_FORMAT "stagecut-devices/1"
#define SC_DEVICES_PATH 1024
#define SC_DEVICES_REFUSE 4096

/* What a devices file says of each kind beyond sc_kind's fields: kind d's
 * profile and measured times as paths the program can open (or a built-in
 * device name), "" when the file gives none, and the ops it refuses as
 * sc_load_kind.refuse lists them (each ended by a NUL, the list by an
 * empty string; "" none).  A value: no pointers. */
typedef struct sc_devices_file {
	char profile[SC_KINDS_MAX][SC_DEVICES_PATH];
	char times[SC_KINDS_MAX][SC_DEVICES_PATH];
	char refuse[SC_KINDS_MAX][SC_DEVICES_REFUSE];
} sc_devices_file;

/* True when a --devices argument names a file rather than a SPEC: it
 * exists as a file, holds a '/' or ends in ".json". */
bool sc_devices_is_file(const char *arg);

/* Reads the devices file at path into fleet (names, counts, own_memory and
 * own_bandwidth; the rest as sc_fleet_parse leaves it) and files.  Returns
 * SC_OK, SC_ERR_IO when it cannot be read, or SC_ERR_INPUT with one line
 * naming the file (and the kind) and what is wrong. */
sc_status sc_devices_read(const char *path, sc_fleet *fleet, sc_devices_file *files, sc_error *err);

#endif
