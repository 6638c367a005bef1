/*
 * test_devices_times.c - each kind of device with its own measured times
 * (--times KIND=FILE) and devices files (--devices FILE), DESIGN.md
 * section 1, Devices.  On resnet18 with an h100 kind measured from the
 * H100 times of samples/h100/measured.json (a CSV written here from that
 * file) and an a100 kind from the model's own device, solve and eval cost
 * every h100 stage at the sum of the measured times of its ops, summed
 * here from the file apart from the program; a devices file saying the
 * same gives the same result as the options; on a DOT file a kind's
 * measured times solve as the file with those times in work_NAME does; a
 * devices file's memory and link cost as -M and -B do, and stand over them.
 */
#include "cli_test.h"

#include <math.h>

TestSuite(devices_times, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 120);

#define R18 "samples/h100/onnx/resnet18.onnx"

/* The H100 fp16 times at N = 1 of resnet18's ops (graph_us, else
 * eager_us: samples/h100/README.md), of the ops the partition file part
 * names, written as a CSV to csv; returns them as a JSON object name ->
 * microseconds (the caller decrefs it).  Every op of the partition has a
 * time in the file. */
static json_t *write_h100_csv(const char *part, const char *csv)
{
	json_error_t jerr;
	json_t *m = json_load_file("samples/h100/measured.json", 0, &jerr);
	cr_assert_not_null(m, "%s", jerr.text);
	json_t *p = json_load_file(part, 0, &jerr);
	cr_assert_not_null(p, "%s", jerr.text);
	json_t *ops = NULL, *run;
	size_t i;
	json_array_foreach(json_object_get(m, "runs"), i, run)
	{
		json_t *n = json_object_get(json_object_get(run, "dims"), "N");
		if (strcmp(ts_jstr(run, "model"), "resnet18.onnx") == 0 &&
		    strcmp(ts_jstr(run, "dtype"), "fp16") == 0 && json_integer_value(n) == 1)
			ops = json_object_get(run, "ops");
	}
	cr_assert_not_null(ops, "no resnet18 fp16 N=1 run in measured.json");
	json_t *times = json_object();
	FILE *f = fopen(csv, "w");
	cr_assert_not_null(f);
	fprintf(f, "name,microseconds\n");
	const char *name;
	json_t *stage;
	json_object_foreach(json_object_get(p, "stages"), name, stage)
	{
		json_t *op = json_object_get(ops, name);
		cr_assert_not_null(op, "op '%s' has no time in measured.json", name);
		json_t *us = json_object_get(op, "graph_us");
		double t = json_is_number(us) ? json_number_value(us)
		                              : json_number_value(json_object_get(op, "eager_us"));
		fprintf(f, "%s,%.17g\n", name, t);
		json_object_set_new(times, name, json_real(t));
	}
	fclose(f);
	json_decref(m);
	json_decref(p);
	return times;
}

/* The work of each stage of the partition file part whose device is kind,
 * summed from times (name -> us), against the stage's "work" in
 * stage_costs (a JSON report's "stages", or the file's own); returns how
 * many stages were checked. */
static int check_stages(const char *part, json_t *stages, json_t *times, const char *kind)
{
	json_error_t jerr;
	json_t *p = json_load_file(part, 0, &jerr);
	cr_assert_not_null(p, "%s", jerr.text);
	json_t *devices = json_object_get(p, "devices");
	int checked = 0;
	for (size_t s = 0; s < json_array_size(stages); s++) {
		if (strcmp(json_string_value(json_array_get(devices, s)), kind) != 0)
			continue;
		double sum = 0;
		const char *name;
		json_t *st;
		json_object_foreach(json_object_get(p, "stages"), name,
		                    st) if (json_integer_value(st) == (json_int_t)s + 1) sum +=
		        json_number_value(json_object_get(times, name));
		double work = ts_jnum(json_array_get(stages, s), "work");
		cr_assert(fabs(work - sum) <= 1e-9 * sum,
		          "stage %zu on %s: work %.17g, measured %.17g", s + 1, kind, work, sum);
		checked++;
	}
	json_decref(p);
	return checked;
}

Test(devices_times, an_h100_measured_and_an_a100_modelled)
{
	char part0[256], part[256], csv[256];
	ts_tpath(part0, sizeof part0, "p0.json");
	ts_tpath(part, sizeof part, "p.json");
	ts_tpath(csv, sizeof csv, "h100.csv");
	json_decref(ts_run_json(0, "solve --json " R18 " --devices h100:1,a100:1 -m exact -o %s",
	                        part0));
	json_t *times = write_h100_csv(part0, csv);
	json_t *s = ts_run_json(0,
	                        "solve --json " R18 " --devices h100:1,a100:1 --times h100=%s "
	                        "-m exact -o %s",
	                        csv, part);
	cr_assert_eq(check_stages(part, ts_jget(s, "stages"), times, "h100"), 1);
	/* the report says how much of the h100's work was measured */
	cr_assert(strstr(ts_jstr(s, "costs"), "h100 stages: measured 49 of 49 ops (100.0 % of "
	                                      "the work)"),
	          "%s", ts_jstr(s, "costs"));
	/* eval of the partition costs it the same way, and without the times
	 * the h100 stage is the model's again while the a100 stage is unchanged */
	json_t *e = ts_run_json(0, "eval --json " R18 " %s --devices h100:1,a100:1 --times h100=%s",
	                        part, csv);
	cr_assert_eq(check_stages(part, ts_jget(e, "stages"), times, "h100"), 1);
	json_t *m = ts_run_json(0, "eval --json " R18 " %s --devices h100:1,a100:1", part);
	json_t *ps = json_load_file(part, 0, NULL);
	for (size_t i = 0; i < 2; i++) {
		bool h100 =
		        strcmp(json_string_value(json_array_get(json_object_get(ps, "devices"), i)),
		               "h100") == 0;
		double with = ts_jnum(json_array_get(ts_jget(e, "stages"), i), "work");
		double without = ts_jnum(json_array_get(ts_jget(m, "stages"), i), "work");
		cr_assert(h100 ? with != without : with == without, "stage %zu: %g %g", i + 1, with,
		          without);
	}
	json_decref(ps);
	json_decref(m);
	json_decref(e);
	json_decref(s);
	json_decref(times);
}

/* Removes from j, at any depth, the keys that time a run ("...seconds")
 * and the fleet as given ("fleet"): what two runs of the same problem may
 * differ in. */
static void drop_run_keys(json_t *j)
{
	const char *key;
	json_t *v;
	void *tmp;
	size_t i;
	if (json_is_array(j))
		json_array_foreach(j, i, v) drop_run_keys(v);
	json_object_foreach_safe(j, tmp, key, v)
	{
		if (strstr(key, "seconds") || strcmp(key, "fleet") == 0)
			json_object_del(j, key);
		else
			drop_run_keys(v);
	}
}

/* The same fleet as a devices file (its times beside it, a relative path)
 * and as options: the same partition, devices and costs. */
Test(devices_times, a_devices_file_is_its_options)
{
	char part0[256], csv[256], dev[256];
	ts_tpath(part0, sizeof part0, "p0.json");
	ts_tpath(csv, sizeof csv, "h100.csv");
	ts_tpath(dev, sizeof dev, "fleet.json");
	json_decref(ts_run_json(0, "solve --json " R18 " --devices h100:1,a100:1 -m exact -o %s",
	                        part0));
	json_decref(write_h100_csv(part0, csv));
	ts_write_text(dev, "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                   "  {\"name\": \"h100\", \"count\": 1, \"times\": \"h100.csv\"},\n"
	                   "  {\"name\": \"a100\", \"count\": 1}]}\n");
	const char *cmds[] = {"solve --json " R18 " -m exact",
	                      "bounds --json " R18 " --rungs simple", "info --json " R18};
	for (int c = 0; c < 3; c++) {
		json_t *a =
		        ts_run_json(0, "%s --devices h100:1,a100:1 --times h100=%s", cmds[c], csv);
		json_t *b = ts_run_json(0, "%s --devices %s", cmds[c], dev);
		drop_run_keys(a);
		drop_run_keys(b);
		char *ta = json_dumps(a, JSON_SORT_KEYS), *tb = json_dumps(b, JSON_SORT_KEYS);
		cr_assert_str_eq(ta, tb, "%s", cmds[c]);
		free(ta);
		free(tb);
		json_decref(a);
		json_decref(b);
	}
}

/* On a DOT file, a kind's measured times (a CSV naming some ops) solve as
 * the file whose work_b holds those times does: the ops the CSV names take
 * its times, the others keep work_b, and an op without work_b that the CSV
 * times runs on b. */
Test(devices_times, dot_kind_times_are_its_table)
{
	char g1[256], g2[256], csv[256];
	ts_tpath(g1, sizeof g1, "g1.dot");
	ts_tpath(g2, sizeof g2, "g2.dot");
	ts_tpath(csv, sizeof csv, "b.csv");
	ts_write_text(g1, "digraph g { a [work=4, out=1, work_b=9]; b [work=5, out=2, work_b=1];\n"
	                  " c [work=3, out=1]; d [work=6, out=1, work_b=2];\n"
	                  " a -> b -> d; a -> c -> d; }\n");
	ts_write_text(csv, "name,us\na,1.5\nc,0.5\n");
	ts_write_text(g2,
	              "digraph g { a [work=4, out=1, work_b=1.5]; b [work=5, out=2, work_b=1];\n"
	              " c [work=3, out=1, work_b=0.5]; d [work=6, out=1, work_b=2];\n"
	              " a -> b -> d; a -> c -> d; }\n");
	for (int k = 1; k <= 2; k++) {
		json_t *a = ts_run_json(
		        0, "solve --json %s --devices accel:%d,b:1 --times b=%s -m exact", g1, k,
		        csv);
		json_t *b =
		        ts_run_json(0, "solve --json %s --devices accel:%d,b:1 -m exact", g2, k);
		cr_assert_eq(ts_jnum(a, "bottleneck"), ts_jnum(b, "bottleneck"), "k %d", k);
		cr_assert(json_equal(ts_jget(a, "stages"), ts_jget(b, "stages")), "k %d", k);
		json_decref(a);
		json_decref(b);
	}
	/* without the CSV, c cannot run on b: one accelerator and one b cost
	 * more than with it */
	json_t *none = ts_run_json(0, "solve --json %s --devices accel:1,b:1 -m exact", g1);
	json_t *with = ts_run_json(0, "solve --json %s --devices accel:1,b:1 --times b=%s -m exact",
	                           g1, csv);
	cr_assert_gt(ts_jnum(none, "bottleneck"), ts_jnum(with, "bottleneck"));
	json_decref(none);
	json_decref(with);
}

/* A devices file's memory and link cost as -M and -B do, and stand over
 * them: the file's bandwidth 0.5 with -B 4 solves as -B 0.5. */
Test(devices_times, a_files_memory_and_link)
{
	char dev[256];
	ts_tpath(dev, sizeof dev, "fleet.json");
	ts_write_text(dev, "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                   "  {\"name\": \"accel\", \"count\": 3, \"bandwidth\": 0.5, "
	                   "\"memory\": 12}]}\n");
	json_t *a = ts_run_json(0,
	                        "solve --json samples/paper/figure2.dot --devices %s -B 4 -M 100 "
	                        "-m exact",
	                        dev);
	json_t *b =
	        ts_run_json(0, "solve --json samples/paper/figure2.dot --devices accel:3 -B 0.5 "
	                       "-M 12 -m exact");
	json_t *c = ts_run_json(0, "solve --json samples/paper/figure2.dot --devices accel:3 -B 4 "
	                           "-M 100 -m exact");
	cr_assert_eq(ts_jnum(a, "bottleneck"), ts_jnum(b, "bottleneck"));
	cr_assert(json_equal(ts_jget(a, "stages"), ts_jget(b, "stages")));
	/* (and the settings given do change the answer) */
	cr_assert_neq(ts_jnum(a, "bottleneck"), ts_jnum(c, "bottleneck"));
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* A devices file's "refuse": an op a kind refuses is one it has no time
 * for.  On a table's kind (b) it solves as the file without that op's
 * work_b; on the graph's own kind (accel) as the file with accel_ok=false
 * on it. */
Test(devices_times, refused_ops_are_ops_without_times)
{
	char g1[256], g2[256], g3[256], dev_b[256], dev_a[256];
	ts_tpath(g1, sizeof g1, "g1.dot");
	ts_tpath(g2, sizeof g2, "g2.dot");
	ts_tpath(g3, sizeof g3, "g3.dot");
	ts_tpath(dev_b, sizeof dev_b, "refuse_b.json");
	ts_tpath(dev_a, sizeof dev_a, "refuse_a.json");
	ts_write_text(g1, "digraph g { a [work=2, out=1, work_b=5]; b [work=6, out=2, work_b=1];\n"
	                  " c [work=1, out=1, work_b=4]; d [work=3, out=1, work_b=2];\n"
	                  " a -> b -> d; a -> c -> d; }\n");
	ts_write_text(g2, "digraph g { a [work=2, out=1, work_b=5]; b [work=6, out=2];\n"
	                  " c [work=1, out=1, work_b=4]; d [work=3, out=1, work_b=2];\n"
	                  " a -> b -> d; a -> c -> d; }\n");
	ts_write_text(g3, "digraph g { a [work=2, out=1, work_b=5]; b [work=6, out=2, work_b=1];\n"
	                  " c [work=1, out=1, work_b=4, accel_ok=false]; d [work=3, out=1, "
	                  "work_b=2];\n a -> b -> d; a -> c -> d; }\n");
	ts_write_text(dev_b, "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                     "  {\"name\": \"accel\", \"count\": 1},\n"
	                     "  {\"name\": \"b\", \"count\": 1, \"refuse\": [\"b\"]}]}\n");
	ts_write_text(dev_a, "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                     "  {\"name\": \"accel\", \"count\": 1, \"refuse\": [\"c\"]},\n"
	                     "  {\"name\": \"b\", \"count\": 1}]}\n");
	const char *files[2][2] = {{dev_b, g2}, {dev_a, g3}};
	json_t *plain = ts_run_json(0, "solve --json %s --devices accel:1,b:1 -m exact", g1);
	for (int i = 0; i < 2; i++) {
		json_t *a =
		        ts_run_json(0, "solve --json %s --devices %s -m exact", g1, files[i][0]);
		json_t *b = ts_run_json(0, "solve --json %s --devices accel:1,b:1 -m exact",
		                        files[i][1]);
		cr_assert_eq(ts_jnum(a, "bottleneck"), ts_jnum(b, "bottleneck"), "%d", i);
		cr_assert(json_equal(ts_jget(a, "stages"), ts_jget(b, "stages")), "%d", i);
		/* (the refusal costs something here) */
		cr_assert_gt(ts_jnum(a, "bottleneck"), ts_jnum(plain, "bottleneck"), "%d", i);
		json_decref(a);
		json_decref(b);
	}
	json_decref(plain);
}

/* On an ONNX model "refuse" names op types too: an h100 that refuses Conv
 * holds no convolution (resnet18's are named ".../Conv"), yet holds ops. */
Test(devices_times, an_onnx_kind_refuses_an_op_type)
{
	char dev[256], part[256];
	ts_tpath(dev, sizeof dev, "fleet.json");
	ts_tpath(part, sizeof part, "p.json");
	ts_write_text(dev, "{\"format\": \"stagecut-devices/1\", \"devices\": [\n"
	                   "  {\"name\": \"h100\", \"count\": 1, \"refuse\": [\"Conv\"]},\n"
	                   "  {\"name\": \"a100\", \"count\": 2}]}\n");
	json_decref(ts_run_json(0, "solve --json " R18 " --devices %s -m exact -o %s", dev, part));
	json_error_t jerr;
	json_t *p = json_load_file(part, 0, &jerr);
	cr_assert_not_null(p, "%s", jerr.text);
	json_t *devices = json_object_get(p, "devices");
	const char *name;
	json_t *st;
	int on_h100 = 0;
	json_object_foreach(json_object_get(p, "stages"), name, st)
	{
		const char *kind = json_string_value(
		        json_array_get(devices, (size_t)json_integer_value(st) - 1));
		if (strcmp(kind, "h100") != 0)
			continue;
		on_h100++;
		size_t len = strlen(name);
		cr_assert(len < 5 || strcmp(name + len - 5, "/Conv") != 0, "%s on the h100", name);
	}
	cr_assert_gt(on_h100, 0);
	json_decref(p);
}
