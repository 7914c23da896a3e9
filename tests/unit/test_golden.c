/*
 * test_golden.c - runs the real `roz` binary through the scripted cases in
 * tests/golden/<name>.case and compares stdout, stderr, exit status and the
 * stored session with what the case file records. ROZ_GOLDEN_UPDATE=1
 * rewrites the expectations from what roz does now (review the diff!).
 *
 * Case file format, one directive per line:
 *   # comment                     ignored
 *   config:                       the following indented lines are config.toml
 *   file <path>:                  indented lines written to <home>/<path>
 *   step: <args...>               run `roz <args>` (double quotes group words)
 *   in: <text>                    stdin for the step (JSON, one line; <home> is
 *                                 the throwaway home directory)
 *   out: <text>                   expected stdout, one line per `out:`
 *   status: <n>                   expected exit status (default 0)
 *   err~ <text>                   stderr must contain this text
 *   err: none                     stderr must be empty
 *   state <id>:                   indented lines: the stored session, with
 *                                 times shown as <time> and event ids as <id>
 *   state <id>: none              no session file may exist
 *   ls <dir>: <names>             the directory holds exactly these entries
 *                                 (names with a variable suffix end in '*')
 *   env: NAME=value               set for the steps that follow ("env: -" clears;
 *                                 <home> is the home directory)
 */
#include "support.h"

#include "roz/json.h"
#include "roz/session_json.h"
#include "roz/store.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdarg.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct golden {
	char *path;
	char **lines;
	size_t n;
} golden;

static bool updating(void)
{
	const char *u = getenv("ROZ_GOLDEN_UPDATE");

	return u && *u && strcmp(u, "0") != 0;
}

static char **split_lines(char *text, size_t *n)
{
	char **lines = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');

		if (*n + 1 >= cap) {
			cap = cap ? cap * 2 : 64;
			lines = realloc(lines, cap * sizeof(*lines));
		}
		if (nl)
			*nl = '\0';
		lines[(*n)++] = strdup(p);
		if (!nl)
			break;
		p = nl + 1;
	}
	return lines;
}

/* Split a step line into argv, honouring double quotes and \" inside them. */
static char **split_args(const char *s, int *argc)
{
	char **argv = calloc(64, sizeof(char *));
	char buf[4096];

	*argc = 0;
	while (*s && *argc < 63) {
		size_t k = 0;
		bool quoted = false;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		while (*s && (quoted || *s != ' ') && k + 1 < sizeof(buf)) {
			if (*s == '"') {
				quoted = !quoted;
				s++;
				continue;
			}
			if (quoted && *s == '\\' && s[1] == '"')
				s++;
			buf[k++] = *s++;
		}
		buf[k] = '\0';
		argv[(*argc)++] = strdup(buf);
	}
	return argv;
}

/* Replace timestamps by <time>, recursively. */
static void normalize_times(cJSON *v)
{
	cJSON *c;

	if (cJSON_IsString(v)) {
		const char *s = v->valuestring;

		if (strlen(s) >= 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':')
			cJSON_SetValuestring(v, "<time>");
		return;
	}
	cJSON_ArrayForEach(c, v)
		normalize_times(c);
}

/* Times become <time>, trace event ids <id>: what varies from run to run. */
static void normalize(cJSON *root)
{
	cJSON *ev;

	normalize_times(root);
	cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(root, "trace")) {
		cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");

		if (cJSON_IsString(id))
			cJSON_SetValuestring(id, "<id>");
	}
}

/* The stored session, normalized and pretty-printed, or NULL if absent. */
/* A session as the store reads it back whole (state and trace, as `roz debug` shows it). */
static char *stored_state(const char *home, const char *id)
{
	roz_store *store = NULL;
	roz_session *s = NULL;
	roz_buf b = ROZ_BUF_INIT;
	cJSON *root = NULL;
	char *out;
	int rc;

	assert_int_equal(roz_store_file_open(home, NULL, &store), ROZ_OK);
	rc = roz_store_get(store, id, &s);
	roz_store_free(store);
	if (rc == ROZ_ENOTFOUND)
		return NULL;
	if (rc != ROZ_OK)
		return t_sprintf("(unreadable) %s", roz_error_last());
	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	roz_session_free(s);
	/* roz's own parser keeps numbers as written, as the file has them */
	assert_int_equal(roz_json_parse(b.ptr, b.len, &root), ROZ_OK);
	roz_buf_dispose(&b);
	normalize(root);
	out = cJSON_Print(root);
	cJSON_Delete(root);
	return out;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Directory entries, sorted, space separated; variable suffixes become '*'. */
static char *listing(const char *dir)
{
	char *names[256], *out, *tmp;
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return strdup("(missing)");
	out = strdup("");
	while ((de = readdir(d)) != NULL && n < 256) {
		char *name, *cut;

		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		name = strdup(de->d_name);
		if ((cut = strstr(name, ".corrupt-")) != NULL)
			strcpy(cut + 9, "*");
		names[n++] = name;
	}
	closedir(d);
	qsort(names, n, sizeof(char *), compare_names);
	for (size_t i = 0; i < n; i++) {
		tmp = t_sprintf("%s%s%s", out, i ? " " : "", names[i]);
		free(out);
		free(names[i]);
		out = tmp;
	}
	return out;
}

static bool digits_at(const char *p, const char *shape)
{
	/* shape: '9' is any digit, 'x' any lowercase hex digit, anything else itself */
	for (; *shape; shape++, p++) {
		if (*shape == '9' ? (*p < '0' || *p > '9')
		    : *shape == 'x' ? !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
				    : *p != *shape)
			return false;
	}
	return true;
}

/*
 * Mask what changes from run to run in command output: RFC 3339 times
 * (<time>), local dates and clocks (<date>, <clock>), random ids (<uuid>)
 * and the throwaway home directory (<home>).
 */
static char *mask(const char *s, const char *home)
{
	size_t hl = strlen(home), n = 0;
	char *out = malloc(strlen(s) * 2 + 16), *w = out;
	const char *p = s;

	(void)n;
	while (*p) {
		if (hl && strncmp(p, home, hl) == 0) {
			w += sprintf(w, "<home>");
			p += hl;
		} else if (digits_at(p, "9999-99-99T99:99:99")) {
			size_t k = 19;

			if (p[k] == '.')
				for (k++; p[k] >= '0' && p[k] <= '9'; k++)
					;
			if (p[k] == 'Z') {
				w += sprintf(w, "<time>");
				p += k + 1;
			} else {
				*w++ = *p++;
			}
		} else if (digits_at(p, "9999-99-99 99:99")) {
			w += sprintf(w, "<date>");
			p += 16;
		} else if (digits_at(p, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")) {
			w += sprintf(w, "<uuid>");
			p += 36;
		} else if (digits_at(p, "99:99:99.999")) {
			w += sprintf(w, "<clock>");
			p += 12;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
	return out;
}

typedef struct run_state {
	const golden *g;
	char *home;
	char *env[5];
	FILE *rewrite; /* when updating: the new case file */
} run_state;

static void emit(run_state *rs, const char *fmt, ...) ROZ_PRINTF(2, 3);

static void emit(run_state *rs, const char *fmt, ...)
{
	va_list ap;

	if (!rs->rewrite)
		return;
	va_start(ap, fmt);
	vfprintf(rs->rewrite, fmt, ap);
	va_end(ap);
	fputc('\n', rs->rewrite);
}

/* Emit text as repeated "<prefix><line>" lines. */
static void emit_lines(run_state *rs, const char *prefix, const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		emit(rs, "%s%.*s", prefix, (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* The indented lines after line i, joined with newlines; returns the next index. */
static size_t block(const golden *g, size_t i, char **text)
{
	char *acc = strdup(""), *tmp;
	size_t j = i + 1;

	for (; j < g->n && strncmp(g->lines[j], "  ", 2) == 0; j++) {
		tmp = t_sprintf("%s%s\n", acc, g->lines[j] + 2);
		free(acc);
		acc = tmp;
	}
	*text = acc;
	return j;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* `text` with each <home> replaced by the home directory (caller frees). */
static char *unmask_home(const char *text, const char *home)
{
	char *out = strdup(""), *tmp;
	const char *p = text, *at;

	while ((at = strstr(p, "<home>"))) {
		tmp = t_sprintf("%s%.*s%s", out, (int)(at - p), p, home);
		free(out);
		out = tmp;
		p = at + 6;
	}
	tmp = t_sprintf("%s%s", out, p);
	free(out);
	return tmp;
}

/* A `step:` and the expectation lines that follow it. Returns the next index. */
static size_t run_step(run_state *rs, size_t i)
{
	const golden *g = rs->g;
	char *want_out = strdup(""), *tmp, **argv;
	const char *in = NULL;
	int argc, want_status = 0;
	size_t step_line = i + 1;
	t_run r;

	emit(rs, "%s", g->lines[i]);
	argv = split_args(g->lines[i] + 6, &argc);
	argv[argc] = NULL;
	if (++i < g->n && starts(g->lines[i], "in: ")) {
		in = g->lines[i] + 4;
		emit(rs, "%s", g->lines[i++]);
	}
	{
		char *real = in ? unmask_home(in, rs->home) : NULL;

		t_run_roz(&r, real, (const char *const *)rs->env, (const char *const *)argv);
		free(real);
	}
	{
		char *o = mask(r.out, rs->home), *e = mask(r.err, rs->home);

		free(r.out);
		free(r.err);
		r.out = o;
		r.err = e;
	}
	for (; i < g->n; i++) {
		const char *e = g->lines[i];

		if (starts(e, "out:")) {
			tmp = t_sprintf("%s%s\n", want_out, e[4] ? e + 5 : "");
			free(want_out);
			want_out = tmp;
		} else if (starts(e, "status: ")) {
			want_status = atoi(e + 8);
		} else if (starts(e, "err~ ")) {
			if (!updating() && !strstr(r.err, e + 5))
				fail_msg("%s:%zu: stderr lacks \"%s\"; it was:\n%s", g->path, i + 1, e + 5, r.err);
			emit(rs, "%s", e);
		} else if (strcmp(e, "err: none") == 0) {
			if (!updating() && r.err[0])
				fail_msg("%s:%zu: expected no stderr, got:\n%s", g->path, i + 1, r.err);
			emit(rs, "%s", e);
		} else {
			break;
		}
	}
	if (!updating() && strcmp(r.out, want_out) != 0)
		fail_msg("%s:%zu: stdout differs\n--- expected\n%s--- actual\n%s", g->path, step_line,
			 want_out, r.out);
	if (!updating() && r.status != want_status)
		fail_msg("%s:%zu: exit status %d, expected %d; stderr:\n%s", g->path, step_line, r.status,
			 want_status, r.err);
	emit_lines(rs, "out: ", r.out);
	if (r.status)
		emit(rs, "status: %d", r.status);
	for (int k = 0; k < argc; k++)
		free(argv[k]);
	free(argv);
	free(want_out);
	t_run_dispose(&r);
	return i;
}

static size_t check_state(run_state *rs, size_t i)
{
	const golden *g = rs->g;
	const char *l = g->lines[i];
	char *id = strndup(l + 6, strcspn(l + 6, ":")), *actual = stored_state(rs->home, id), *want;
	size_t next = i + 1;

	if (strstr(l, ": none")) {
		if (!updating() && actual)
			fail_msg("%s:%zu: session %s should not exist:\n%s", g->path, i + 1, id, actual);
		emit(rs, "%s", l);
	} else {
		char *got = actual ? t_sprintf("%s\n", actual) : strdup("(none)\n");

		next = block(g, i, &want);
		if (!updating() && strcmp(want, got) != 0)
			fail_msg("%s:%zu: stored session %s differs\n--- expected\n%s--- actual\n%s", g->path,
				 i + 1, id, want, got);
		emit(rs, "state %s:", id);
		emit_lines(rs, "  ", got);
		free(want);
		free(got);
	}
	free(actual);
	free(id);
	return next;
}

static size_t check_listing(run_state *rs, size_t i)
{
	const char *l = rs->g->lines[i], *want = strchr(l, ':') + 1;
	char *rel = strndup(l + 3, strcspn(l + 3, ":")), *dir = t_sprintf("%s/%s", rs->home, rel);
	char *got = listing(dir);

	while (*want == ' ')
		want++;
	if (!updating() && strcmp(want, got) != 0)
		fail_msg("%s:%zu: %s holds \"%s\", expected \"%s\"", rs->g->path, i + 1, rel, got, want);
	emit(rs, "ls %s: %s", rel, got);
	free(rel);
	free(dir);
	free(got);
	return i + 1;
}

static size_t write_file(run_state *rs, size_t i)
{
	const golden *g = rs->g;
	const char *l = g->lines[i];
	char *rel = starts(l, "config:") ? strdup("config.toml") : strndup(l + 5, strlen(l + 5) - 1);
	char *path = t_sprintf("%s/%s", rs->home, rel), *text;
	size_t next = block(g, i, &text);

	t_write_file(path, text);
	for (size_t k = i; k < next; k++)
		emit(rs, "%s", g->lines[k]);
	free(path);
	free(rel);
	free(text);
	return next;
}

static void run_case(void **state)
{
	run_state rs;
	char *rewrite_path = NULL;
	size_t i = 0;

	memset(&rs, 0, sizeof(rs));
	rs.g = *state;
	rs.home = t_mkdtemp();
	rs.env[0] = t_sprintf("ROZ_HOME=%s", rs.home);
	rs.env[1] = t_sprintf("HOME=%s/user-home", rs.home);
	rs.env[2] = strdup("TZ=UTC");
	if (updating()) {
		rewrite_path = t_sprintf("%s.new", rs.g->path);
		rs.rewrite = fopen(rewrite_path, "w");
	}
	while (i < rs.g->n) {
		const char *l = rs.g->lines[i];

		if (starts(l, "config:") || starts(l, "file "))
			i = write_file(&rs, i);
		else if (starts(l, "step: "))
			i = run_step(&rs, i);
		else if (starts(l, "state "))
			i = check_state(&rs, i);
		else if (starts(l, "ls "))
			i = check_listing(&rs, i);
		else if (starts(l, "env: ")) {
			free(rs.env[3]);
			rs.env[3] = strcmp(l + 5, "-") == 0 ? NULL : unmask_home(l + 5, rs.home);
			emit(&rs, "%s", rs.g->lines[i++]);
		}
		else
			emit(&rs, "%s", rs.g->lines[i++]);
	}
	if (rs.rewrite) {
		fclose(rs.rewrite);
		rename(rewrite_path, rs.g->path);
	}
	free(rewrite_path);
	for (int k = 0; k < 4; k++)
		free(rs.env[k]);
	t_rmtree(rs.home);
	free(rs.home);
}

int main(void)
{
	glob_t gl;
	struct CMUnitTest *tests;
	golden *cases;
	char **names;
	int rc;

	if (glob(ROZ_SOURCE_DIR "/tests/golden/*.case", 0, NULL, &gl) != 0) {
		fprintf(stderr, "no golden cases found\n");
		return 1;
	}
	tests = calloc(gl.gl_pathc, sizeof(*tests));
	names = calloc(gl.gl_pathc, sizeof(*names));
	cases = calloc(gl.gl_pathc, sizeof(*cases));
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		char *text = t_read_file(gl.gl_pathv[i], NULL);
		const char *base = strrchr(gl.gl_pathv[i], '/') + 1;

		cases[i].path = strdup(gl.gl_pathv[i]);
		cases[i].lines = split_lines(text, &cases[i].n);
		free(text);
		tests[i].name = names[i] = strdup(base);
		tests[i].test_func = run_case;
		tests[i].initial_state = &cases[i];
	}
	rc = _cmocka_run_group_tests("golden", tests, gl.gl_pathc, NULL, NULL);
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		for (size_t k = 0; k < cases[i].n; k++)
			free(cases[i].lines[k]);
		free(cases[i].lines);
		free(cases[i].path);
		free(names[i]);
	}
	free(cases);
	free(tests);
	free(names);
	globfree(&gl);
	return rc;
}
