/*
 * gate.c - turning a tool call into the keys gates are matched against
 * (every command of a Bash line, via the shell lexer), finding the first
 * gate pattern that matches, and spotting calls that reach for roz itself.
 */
#include "roz/gate.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/glob.h"
#include "roz/interp.h"
#include "roz/shell.h"
#include "roz/utf8.h"

void roz_gate_match_clear(roz_gate_match *m)
{
	roz_free(m->tool_key);
	roz_free(m->pattern);
	roz_free(m->unsure);
	memset(m, 0, sizeof(*m));
}

/* Could this pattern ever match a `Bash:...` key? */
static bool pattern_covers_bash(const char *p)
{
	return strncmp(p, "Bash", 4) == 0 || p[0] == '*' || p[0] == '?' || p[0] == '[';
}

static const char *input_string(const cJSON *input, const char *name)
{
	const cJSON *v = cJSON_IsObject(input) ? cJSON_GetObjectItemCaseSensitive(input, name) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int set_match(roz_gate_match *m, const char *key, size_t key_len, const char *pattern)
{
	size_t cut = roz_utf8_cut(key, key_len, ROZ_MAX_KEY_DISPLAY);

	m->tool_key = roz_strndup(key, cut);
	m->pattern = roz_strdup(pattern);
	if (!m->tool_key || !m->pattern)
		return ROZ_ENOMEM;
	m->matched = true;
	return ROZ_OK;
}

static int check_bash(const roz_config *config, const char *command, roz_gate_match *m)
{
	roz_shell_result sh;
	roz_buf key = ROZ_BUF_INIT;
	bool bash_gates = false;
	int rc;

	if ((rc = roz_shell_parse(command, strlen(command), &sh)) < 0)
		return rc;
	for (size_t i = 0; i < sh.ncmds; i++) {
		const roz_shell_cmd *c = &sh.cmds[i];

		/* `roz`, by any path or wrapper: the lexer has reduced it to its basename */
		if (c->nwords >= 2 && strcmp(c->words[0], "roz") == 0) {
			if (strcmp(c->words[1], "decide") == 0)
				m->roz_runs |= ROZ_RUNS_DECIDE;
			else if (strcmp(c->words[1], "hook") == 0)
				m->roz_runs |= ROZ_RUNS_HOOK;
		}
		if (roz_interp_runs_decide(c, command))
			m->roz_runs |= ROZ_RUNS_DECIDE; /* a script interpreter's inline program */
	}
	for (size_t p = 0; p < config->n_gate_tools && !m->matched; p++) {
		const char *pattern = config->gate_tools[p];

		bash_gates |= pattern_covers_bash(pattern);
		for (size_t i = 0; i < sh.ncmds && !m->matched; i++) {
			/* roz's own commands are never gated: the review itself runs on them */
			if (strcmp(sh.cmds[i].words[0], "roz") == 0)
				continue;
			roz_buf_reset(&key);
			roz_buf_adds(&key, "Bash:");
			roz_buf_adds(&key, sh.cmds[i].line);
			if ((rc = roz_buf_failed(&key)) < 0)
				goto out;
			if (roz_glob_match(pattern, key.ptr) && (rc = set_match(m, key.ptr, key.len, pattern)) < 0)
				goto out;
		}
	}
	for (size_t p = 0; p < config->n_gate_tools && !bash_gates; p++)
		bash_gates = pattern_covers_bash(config->gate_tools[p]);
	if (!m->matched && bash_gates && (sh.flags & (ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED))) {
		m->unsure = roz_strdup(sh.reason ? sh.reason : "the command line could not be read");
		if (!m->unsure)
			rc = ROZ_ENOMEM;
	}
out:
	roz_buf_free(&key);
	roz_shell_result_free(&sh);
	return rc;
}

/* A file tool writing under the storage directory could forge a verdict. */
static bool aims_at_store(const roz_config *config, const char *tool_name, const cJSON *input)
{
	static const char *const writers[] = {"Write", "Edit", "MultiEdit", "NotebookEdit"};
	const char *path = NULL;
	size_t n;

	if (!config->storage_path)
		return false;
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]) && !path; i++)
		if (strcmp(tool_name, writers[i]) == 0)
			path = input_string(input, "file_path") ? input_string(input, "file_path")
								 : input_string(input, "notebook_path");
	if (!path)
		return false;
	n = strlen(config->storage_path);
	while (n > 1 && config->storage_path[n - 1] == '/')
		n--;
	return strncmp(path, config->storage_path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int roz_gate_check(const roz_config *config, const char *tool_name, const cJSON *tool_input,
		   roz_gate_match *m)
{
	const char *command;

	memset(m, 0, sizeof(*m));
	if (!tool_name)
		tool_name = "unknown";
	command = strcmp(tool_name, "Bash") == 0 ? input_string(tool_input, "command") : NULL;
	if (command)
		return check_bash(config, command, m);
	m->touches_store = aims_at_store(config, tool_name, tool_input);
	for (size_t p = 0; p < config->n_gate_tools; p++)
		if (roz_glob_match(config->gate_tools[p], tool_name))
			return set_match(m, tool_name, strlen(tool_name), config->gate_tools[p]);
	return ROZ_OK;
}
