/*
 * gates.c - see gates.h.
 */
#include "gates.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/gate.h"
#include "roz/glob.h"
#include "roz/shell.h"

void t_gates(roz_config *c, const char *const *patterns, size_t n)
{
	assert_int_equal(roz_config_init(c), ROZ_OK);
	c->gate_tools = roz_calloc(n + 1, sizeof(char *));
	assert_non_null(c->gate_tools);
	for (size_t i = 0; i < n; i++) {
		c->gate_tools[i] = roz_strdup(patterns[i]);
		assert_non_null(c->gate_tools[i]);
	}
	c->n_gate_tools = n;
}

bool t_gate_holds(const char *pattern, const char *command)
{
	roz_config c;
	roz_gate_match m;
	cJSON *in = cJSON_CreateObject();
	bool hit;

	t_gates(&c, &pattern, 1);
	cJSON_AddStringToObject(in, "command", command);
	assert_int_equal(roz_gate_check(&c, "Bash", in, "/w", &m), ROZ_OK);
	hit = m.matched || m.unsure;
	roz_gate_match_dispose(&m);
	cJSON_Delete(in);
	roz_config_dispose(&c);
	return hit;
}

void t_shell_parse_oom_sweep(const char *line, size_t min_cmds)
{
	roz_shell_result r;
	long n;
	int rc = ROZ_ENOMEM;

	for (n = 0; rc != ROZ_OK; n++) {
		roz_alloc_fail_after(n);
		rc = roz_shell_parse(line, strlen(line), &r);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_ENOMEM) {
			assert_int_equal(r.ncmds, 0);
			assert_null(r.cmds);
			assert_null(r.reason);
		} else {
			assert_int_equal(rc, ROZ_OK);
			assert_true(r.ncmds > min_cmds);
		}
		roz_shell_result_dispose(&r);
		assert_true(n < 100000);
	}
	assert_true(n > 10);
}

roz_shell_result t_shell_parse_ok(const char *line)
{
	roz_shell_result r;

	assert_int_equal(roz_shell_parse(line, strlen(line), &r), ROZ_OK);
	return r;
}

const roz_shell_cmd *t_shell_find_line(const roz_shell_result *r, const char *line)
{
	for (size_t i = 0; i < r->ncmds; i++)
		if (!strcmp(r->cmds[i].line, line))
			return &r->cmds[i];
	return NULL;
}

bool t_shell_held(const char *line, const char *pattern)
{
	roz_shell_result r = t_shell_parse_ok(line);
	bool hit = r.flags != 0;

	if (!strncmp(pattern, "Bash:", 5))
		pattern += 5;
	for (size_t i = 0; i < r.ncmds && !hit; i++) {
		const roz_shell_cmd *c = &r.cmds[i];

		hit = roz_glob_match(pattern, c->line) ||
		      ((c->known < strlen(c->line) || c->more_args) &&
		       roz_glob_could_match(pattern, c->line, c->known));
	}
	roz_shell_result_dispose(&r);
	return hit;
}
