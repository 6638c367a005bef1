/*
 * test_devices_commands.c - the commands around solve --devices
 * (core/fleet.h): every reader of a partition takes its stages' kinds
 * (eval, render, export, solve --partition, with --align too), and bench
 * --devices runs a testbed on a fleet, its records and resume key naming
 * the devices.  The optima themselves are checked against brute force in
 * test_devices.c.
 */
#include "cli_test.h"

#include <math.h>
#include <stdlib.h>

TestSuite(devices_commands, .init = ts_scratch_init, .fini = ts_scratch_fini);

/* Every command that reads a partition takes its kinds: solve --devices
 * --align writes an aligned partition on three devices; eval, render and
 * export read it back (export lists each stage's kind in stage order,
 * render heads each stage with its kind and holds its parameters against
 * that kind's memory: 80 GB on an h100, 40 GB on an a100); solve
 * --partition refines from it.  Read without --devices, the ONNX model has
 * no h100 times: exit 2 naming the way out. */
Test(devices_commands, partition_readers_take_the_kinds, .timeout = 120)
{
	const char *m = "samples/onnx/resnet50.onnx", *spec = "h100:1,a100:2";
	char part[512], pic[512];
	ts_tpath(part, sizeof part, "aligned.json");
	ts_tpath(pic, sizeof pic, "stages.dot");
	json_t *r = ts_run_json(0, "solve %s --devices %s --align 1 --json -o %s", m, spec, part);
	json_t *dev = ts_jget(r, "devices");
	cr_assert_eq(json_array_size(dev), 3);
	cr_assert_eq(ts_jint(ts_jget(r, "align"), "depth"), 1);
	json_t *e = ts_run_json(0, "eval %s %s --devices %s --json", m, part, spec);
	cr_assert(ts_close_rel(ts_jnum(e, "bottleneck"), ts_jnum(r, "bottleneck"), 1e-12));
	cr_assert(json_equal(ts_jget(e, "devices"), dev));
	json_decref(e);
	/* export: the list of kinds, as the file names them */
	char want[256] = "devices = [";
	for (size_t s = 0; s < json_array_size(dev); s++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s\"%s\"", s ? ", " : "",
		         json_string_value(json_array_get(dev, s)));
	strcat(want, "]");
	const char *formats[] = {"pytorch", "deepspeed"};
	for (int i = 0; i < 2; i++) {
		char *out, *err;
		cr_assert_eq(ts_runf(&out, &err, "export %s %s --format %s --devices %s", m, part,
		                     formats[i], spec),
		             0, "%s", err);
		cr_assert(strstr(out, want), "%s: no '%s' in\n%s", formats[i], want, out);
		free(out);
		free(err);
	}
	/* render: each stage headed by its kind, its parameters against its
	 * kind's memory */
	json_t *p = ts_run_json(0, "render %s %s --devices %s -o %s --json", m, part, spec, pic);
	cr_assert(json_equal(ts_jget(p, "devices"), dev));
	json_decref(p);
	char *dot = ts_slurp(pic, NULL);
	/* the second kind's stages (a100) headed in its own colour */
	cr_assert(strstr(dot, "BGCOLOR=\"#cfe8d5\"><B>stage"), "no heading in the a100 colour");
	for (size_t s = 0; s < json_array_size(dev); s++) {
		const char *kind = json_string_value(json_array_get(dev, s));
		char head[64];
		snprintf(head, sizeof head, "stage %zu &#183; %s", s + 1, kind);
		const char *at = strstr(dot, head);
		cr_assert(at, "no '%s' in the picture", head);
		const char *lim = strcmp(kind, "h100") == 0 ? "/ 80 GB" : "/ 40 GB";
		const char *next = strstr(at + strlen(head), "&#183;");
		const char *found = strstr(at, lim);
		cr_assert(found && (!next || found < next), "stage %zu (%s): no '%s'", s + 1, kind,
		          lim);
	}
	free(dot);
	/* solve --partition refines from the file's stages and kinds */
	json_t *f = ts_run_json(0, "solve %s --devices %s --partition %s --json", m, spec, part);
	cr_assert_str_eq(ts_jstr(f, "method"), "refine");
	cr_assert_leq(ts_jnum(f, "bottleneck"), ts_jnum(r, "bottleneck") * (1 + 1e-12));
	json_decref(f);
	json_decref(r);
	char *err;
	cr_assert_eq(ts_runf(NULL, &err, "eval %s %s", m, part), 2);
	cr_assert(strstr(err, "'h100'") && strstr(err, "give --devices"), "%s", err);
	free(err);
}

/* bench --devices: every instance on the fleet (k its sum), its record
 * naming the devices, its upper bound solve's optimum on the same fleet
 * and its lower bound never above it; the key holds the devices, so a
 * second run resumes while a run without them does not take the record;
 * a graph without a kind's times is that instance's error; -k other than
 * the sum exits 2. */
Test(devices_commands, bench_on_a_fleet, .timeout = 120)
{
	char dir[512], g[512], bare[512], res[512];
	ts_tpath(dir, sizeof dir, "tb");
	ts_tpath(g, sizeof g, "tb/e.dot");
	ts_tpath(bare, sizeof bare, "tb/f.dot");
	ts_tpath(res, sizeof res, "res.json");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
	cr_assert_eq(system(cmd), 0);
	ts_write_text(g, "digraph { a [work=4, work_b=6, out=2]; c [work=8, work_b=12, out=2]; "
	                 "d [work=6, work_b=3, out=1]; e [work=7, work_b=7, out=1]; "
	                 "a -> c -> e; a -> d -> e; }");
	ts_write_text(bare, "digraph { a [work=4]; b [work=8]; a -> b }");
	json_t *opt = ts_run_json(0, "solve %s --devices accel:1,b:2 --json", g);
	char *out, *err;
	/* (an instance's error is bad input: exit 2, named) */
	cr_assert_eq(ts_runf(&out, &err, "bench %s --devices accel:1,b:2 -t 4 -o %s", dir, res), 2,
	             "%s", err);
	cr_assert(strstr(err, "f.dot: no op times for the device 'b'"), "%s", err);
	free(out);
	free(err);
	size_t len;
	char *text = ts_slurp(res, &len);
	int seen = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		json_t *r = json_loads(line, 0, NULL);
		cr_assert(r);
		cr_assert_eq(ts_jint(r, "k"), 3);
		cr_assert(strstr(ts_jstr(r, "config"), "devices=accel:1,b:2"));
		if (strstr(ts_jstr(r, "graph"), "e.dot")) {
			cr_assert_str_eq(ts_jstr(r, "devices"), "accel:1,b:2");
			cr_assert(
			        ts_close_rel(ts_jnum(r, "upper"), ts_jnum(opt, "bottleneck"), 1e-9),
			        "bench %.17g, solve %.17g", ts_jnum(r, "upper"),
			        ts_jnum(opt, "bottleneck"));
			cr_assert_leq(ts_jnum(r, "lower"), ts_jnum(r, "upper") * (1 + 1e-9));
			cr_assert_leq(ts_jnum(r, "simple"), ts_jnum(r, "lower") * (1 + 1e-9));
		} else {
			cr_assert(strstr(ts_jstr(r, "error"), "'b'"), "%s", line);
		}
		seen++;
		json_decref(r);
	}
	cr_assert_eq(seen, 2);
	free(text);
	json_decref(opt);
	cr_assert_eq(ts_runf(NULL, &err, "bench %s --devices accel:1,b:2 -t 4 -o %s", dir, res), 2);
	cr_assert(strstr(err, "2 already in"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "bench %s -k 3 -t 1 --methods dpl --rungs simple -o %s",
	                     dir, res),
	             0, "%s", err);
	cr_assert(strstr(err, "0 already in"), "%s", err);
	free(err);
	cr_assert_eq(ts_runf(NULL, &err, "bench %s --devices accel:1,b:2 -k 2 -o %s", dir, res), 2);
	cr_assert(strstr(err, "-k may only repeat"), "%s", err);
	free(err);
}

/* The timeline on a fleet names each lane by its kind: eval --timeline
 * --json gives every lane the device eval gives its stage, labelled
 * "stage N (KIND)", and the text's bottleneck names its kind. */
Test(devices_commands, timeline_lanes_name_their_kinds)
{
	char g[512], part[512];
	ts_tpath(g, sizeof g, "e.dot");
	ts_tpath(part, sizeof part, "kinds.json");
	ts_write_text(g, "digraph { a [work=4, work_b=6, out=2]; c [work=8, work_b=12, out=2]; "
	                 "d [work=6, work_b=3, out=1]; e [work=7, work_b=7, out=1]; "
	                 "a -> c -> e; a -> d -> e; }");
	json_decref(ts_run_json(0, "solve %s --devices accel:1,b:2 --json -o %s", g, part));
	json_t *e = ts_run_json(0, "eval %s %s --timeline --json", g, part);
	json_t *dev = ts_jget(e, "devices"), *lanes = ts_jget(ts_jget(e, "timeline"), "lanes");
	cr_assert_eq(json_array_size(lanes), 3);
	for (size_t s = 0; s < 3; s++) {
		const char *kind = json_string_value(json_array_get(dev, s));
		json_t *lane = json_array_get(lanes, s);
		cr_assert_str_eq(ts_jstr(lane, "device"), kind);
		char label[64];
		snprintf(label, sizeof label, "stage %zu (%s)", s + 1, kind);
		cr_assert_str_eq(ts_jstr(lane, "label"), label);
	}
	int at = ts_jint(e, "bottleneck_stage");
	char want[64];
	snprintf(want, sizeof want, "(stage %d, %s)", at,
	         json_string_value(json_array_get(dev, (size_t)at - 1)));
	json_decref(e);
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "eval %s %s --timeline", g, part), 0);
	cr_assert(strstr(out, want), "no '%s' in\n%s", want, out);
	free(out);
}
