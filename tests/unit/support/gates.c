/*
 * gates.c - see gates.h.
 */
#include "gates.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/gate.h"
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
