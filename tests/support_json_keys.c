/*
 * support_json_keys.c - every JSON document the program writes checked
 * against the key tables of stagecut(1) (JSON OUTPUT, "Keys, types and
 * null"): each key found must have a row, with its type, and may be null
 * only where the row says when.  The tables are read from the man page
 * itself, so the contract and the check cannot drift apart.
 *
 * A table starts at a line `.\" json\-keys: DOC` and is the tbl block that
 * follows: rows `key|type|about|null`, the null column "\-" (never null) or
 * a text block T{ ... T} saying when.  Types: string, integer, number,
 * boolean, object, array, map (an object whose keys come from the data,
 * its entries under NAME.*), and the names of the tables of shared objects
 * (stage, training, timeline, profile), whose keys are checked against
 * their own table.  A null column saying "infinite (FLAG true)" (or false)
 * names the boolean beside the key that says the value is infinite: when
 * it does, the key must be null.
 *
 * The run of one test process reads the page once; ts_json_keys_seen()
 * tells which rows the documents checked so far have used, so that a test
 * can show that no row is stale.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 1024

typedef struct key_row {
	char doc[16];
	char key[64];
	char type[16];
	char about[16];
	bool nullable;
	char flag[32]; /* "infinite (FLAG VALUE)": then FLAG beside it says so */
	bool flag_value;
	bool seen;
} key_row;

static key_row rows[MAX_ROWS];
static int nrows = -1;

/* "\-" in roff is "-" in the JSON */
static void unescape(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	for (; *src && n + 1 < size; src++) {
		if (src[0] == '\\' && src[1] == '-')
			src++;
		dst[n++] = *src;
	}
	dst[n] = '\0';
}

static bool is_shared(const char *type)
{
	for (int i = 0; i < nrows; i++)
		if (strcmp(rows[i].doc, type) == 0)
			return true;
	return false;
}

static void load_rows(void)
{
	if (nrows >= 0)
		return;
	nrows = 0;
	char *man = ts_slurp("man/stagecut.1", NULL);
	cr_assert(man, "cannot read man/stagecut.1");
	char doc[16] = "";
	bool in_table = false, in_format = false;
	for (char *line = man, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		const char *mark = ".\\\" json\\-keys: ";
		if (strncmp(line, mark, strlen(mark)) == 0) {
			snprintf(doc, sizeof doc, "%s", line + strlen(mark));
			continue;
		}
		if (doc[0] && strcmp(line, ".TS") == 0) {
			in_table = in_format = true;
			continue;
		}
		if (!in_table)
			continue;
		if (strcmp(line, ".TE") == 0) {
			in_table = false;
			doc[0] = '\0';
			continue;
		}
		if (in_format) { /* options and formats end with a '.' */
			in_format = line[strlen(line) - 1] != '.';
			continue;
		}
		char *f[4] = {line, NULL, NULL, NULL};
		for (int i = 1; i < 4; i++) {
			f[i] = f[i - 1] ? strchr(f[i - 1], '|') : NULL;
			if (f[i])
				*f[i]++ = '\0';
		}
		cr_assert(f[3], "man/stagecut.1: table %s: '%s' is not key|type|about|null", doc,
		          line);
		if (strcmp(f[0], "key") == 0) /* the heading */
			continue;
		cr_assert_lt(nrows, MAX_ROWS, "more than %d key rows", MAX_ROWS);
		key_row *r = &rows[nrows++];
		snprintf(r->doc, sizeof r->doc, "%s", doc);
		unescape(r->key, sizeof r->key, f[0]);
		snprintf(r->type, sizeof r->type, "%s", f[1]);
		unescape(r->about, sizeof r->about, f[2]);
		cr_assert(strcmp(f[3], "\\-") == 0 || strcmp(f[3], "T{") == 0,
		          "man/stagecut.1: %s %s: the null column is neither \\- nor T{ text T}",
		          doc, r->key);
		r->nullable = strcmp(f[3], "T{") == 0;
		if (r->nullable) { /* the text block: an infinite value's flag */
			char *text = next;
			while (next && strncmp(next, "T}", 2) != 0)
				next = strchr(next, '\n') ? strchr(next, '\n') + 1 : NULL;
			char *inf = text ? strstr(text, "infinite (") : NULL, word[8], end;
			if (inf && (!next || inf < next) &&
			    sscanf(inf, "infinite (%31[a-z_] %7[a-z]%c", r->flag, word, &end) ==
			            3 &&
			    end == ')')
				r->flag_value = strcmp(word, "true") == 0;
			else
				r->flag[0] = '\0';
			cr_assert(next, "man/stagecut.1: %s %s: T{ without T}", doc, r->key);
			next = strchr(next, '\n') ? strchr(next, '\n') + 1 : NULL;
		}
	}
	free(man);
	cr_assert_gt(nrows, 100, "only %d key rows in man/stagecut.1", nrows);
	/* the words of the type and about columns are the page's */
	static const char *const types[] = {"string", "integer", "number", "boolean",
	                                    "object", "array",   "map",    NULL};
	static const char *const abouts[] = {"-",      "given",   "partition", "free",
	                                     "pinned", "aligned", "asked",     NULL};
	for (int i = 0; i < nrows; i++) {
		bool type = is_shared(rows[i].type), about = false;
		for (int t = 0; types[t]; t++)
			type = type || strcmp(rows[i].type, types[t]) == 0;
		for (int a = 0; abouts[a]; a++)
			about = about || strcmp(rows[i].about, abouts[a]) == 0;
		cr_assert(type, "man/stagecut.1: %s %s: no type '%s'", rows[i].doc, rows[i].key,
		          rows[i].type);
		cr_assert(about, "man/stagecut.1: %s %s: no such about, '%s'", rows[i].doc,
		          rows[i].key, rows[i].about);
	}
}

static key_row *find_row(const char *doc, const char *key)
{
	for (int i = 0; i < nrows; i++)
		if (strcmp(rows[i].doc, doc) == 0 && strcmp(rows[i].key, key) == 0)
			return &rows[i];
	return NULL;
}

static bool type_ok(const char *type, json_t *v)
{
	if (strcmp(type, "string") == 0)
		return json_is_string(v);
	if (strcmp(type, "integer") == 0)
		return json_is_integer(v);
	if (strcmp(type, "number") == 0)
		return json_is_number(v);
	if (strcmp(type, "boolean") == 0)
		return json_is_boolean(v);
	if (strcmp(type, "array") == 0)
		return json_is_array(v);
	return json_is_object(v); /* object, map and the shared objects */
}

static void check_object(const char *what, const char *doc, const char *prefix, json_t *o,
                         bool map);

/* v, found at path (for the message) as row key of table doc */
static void check_value(const char *what, const char *doc, const char *key, const char *path,
                        json_t *v)
{
	key_row *r = find_row(doc, key);
	cr_assert(r, "%s: key '%s' (%s in table %s) is not in stagecut(1)'s key tables", what, path,
	          key, doc);
	r->seen = true;
	if (json_is_null(v)) {
		cr_assert(r->nullable, "%s: '%s' is null, which stagecut(1) says it never is", what,
		          path);
		return;
	}
	cr_assert(type_ok(r->type, v), "%s: '%s' is not of type %s (stagecut(1))", what, path,
	          r->type);
	char sub[96];
	if (json_is_array(v)) {
		snprintf(sub, sizeof sub, "%s[]", key);
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
		{
			char p[256];
			snprintf(p, sizeof p, "%s[%zu]", path, i);
			check_value(what, doc, sub, p, e);
		}
	} else if (json_is_object(v)) {
		if (is_shared(r->type))
			check_object(what, r->type, "", v, false);
		else
			check_object(what, doc, key, v, strcmp(r->type, "map") == 0);
	}
}

/* The keys of o, whose row key is prefix ("" at a document's top); in a
 * map a key without a row of its own is prefix.* */
static void check_object(const char *what, const char *doc, const char *prefix, json_t *o, bool map)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v)
	{
		char key[96];
		snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", k);
		if (map && !find_row(doc, key))
			snprintf(key, sizeof key, "%s.*", prefix);
		check_value(what, doc, key, k, v);
		/* an infinite value is null, and the flag its row names says it */
		key_row *r = find_row(doc, key);
		json_t *flag = r->flag[0] ? json_object_get(o, r->flag) : NULL;
		if (json_is_boolean(flag) && json_is_true(flag) == r->flag_value)
			cr_assert(json_is_null(v), "%s: '%s' is not null though %s is %s", what, k,
			          r->flag, r->flag_value ? "true" : "false");
	}
}

void ts_json_keys_check(const char *doc, json_t *root, const char *what)
{
	load_rows();
	cr_assert(is_shared(doc), "stagecut(1) has no key table '%s'", doc);
	cr_assert(json_is_object(root), "%s: not a JSON object", what);
	check_object(what, doc, "", root, false);
}

const char *ts_json_keys_doc(const char *args)
{
	static const char *const cmds[] = {"info",   "solve",     "bounds", "eval",
	                                   "render", "calibrate", "bench",  NULL};
	char word[32];
	for (const char *p = args; *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1),
		         p);
		for (int i = 0; cmds[i]; i++)
			if (strcmp(word, cmds[i]) == 0)
				return cmds[i];
		p += n;
	}
	return NULL;
}

int ts_json_keys_unseen(char *buf, size_t size)
{
	load_rows();
	int n = 0;
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < nrows; i++)
		if (!rows[i].seen) {
			n++;
			if (len < size)
				len += (size_t)snprintf(buf + len, size - len, " %s:%s",
				                        rows[i].doc, rows[i].key);
		}
	return n;
}

bool ts_json_keys_excuse(const char *doc, const char *key)
{
	load_rows();
	key_row *r = find_row(doc, key);
	if (r)
		r->seen = true;
	return r != NULL;
}

void ts_json_keys_check_output(const char *args, char *text, char **out)
{
	const char *doc = strstr(args, "--json") ? ts_json_keys_doc(args) : NULL;
	json_t *root = doc && text ? json_loads(text, 0, NULL) : NULL;
	if (json_is_object(root))
		ts_json_keys_check(doc, root, args);
	json_decref(root);
	if (out)
		*out = text;
	else
		free(text);
}
