/*
 * gate.c - turning a tool call into the key gates are matched against, and
 * finding the first gate pattern that matches it.
 */
#include "roz/gate.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <string.h>

#include "roz/glob.h"
#include "roz/utf8.h"

/* Characters a key is cut to before matching, as the reference does. */
#define KEY_CHARS 80

void roz_gate_match_clear(roz_gate_match *m)
{
	roz_free(m->tool_key);
	roz_free(m->pattern);
	memset(m, 0, sizeof(*m));
}

static const char *skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* The text after the last '|' outside quotes that does not follow another '|'. */
static const char *after_last_pipe(const char *s)
{
	bool sq = false, dq = false;
	const char *last = NULL;
	char prev = 0;

	for (const char *p = s; *p; prev = *p++) {
		/* inside single quotes a backslash is an ordinary character */
		if (*p == '\'' && !dq && (sq || prev != '\\'))
			sq = !sq;
		else if (*p == '"' && !sq && prev != '\\')
			dq = !dq;
		else if (*p == '|' && !sq && !dq && prev != '|')
			last = p;
	}
	return last ? skip_space(last + 1) : s;
}

/* Skip one value: a quoted string (to its closing quote) or a bare word, which may be empty. */
static const char *skip_value(const char *s)
{
	if (*s == '"') {
		for (const char *p = s + 1; *p; p++)
			if (*p == '"' && p[-1] != '\\')
				return p + 1;
		return s;
	}
	if (*s == '\'') {
		const char *end = strchr(s + 1, '\'');

		return end ? end + 1 : s;
	}
	while (*s && !isspace((unsigned char)*s))
		s++;
	return s;
}

/* Leading NAME=value words. */
static const char *skip_assignments(const char *s)
{
	for (;;) {
		const char *p = s;

		while (is_name_char(*p))
			p++;
		if (p == s || *p != '=')
			return s;
		s = skip_space(skip_value(p + 1));
	}
}

/* `env NAME=value ... cmd`: everything up to the command. */
static const char *skip_env(const char *s)
{
	const char *eq;

	s = skip_space(s);
	while ((eq = strchr(s, '=')) != NULL) {
		const char *p = s;

		while (p < eq && is_name_char(*p))
			p++;
		if (p != eq)
			break;
		s = skip_space(skip_value(eq + 1));
	}
	return s;
}

char *roz_bash_normalize(const char *command)
{
	static const char *const shells[] = {"bash -c ", "sh -c ", "/bin/bash -c ", "/bin/sh -c "};
	char *copy, *out;
	const char *s, *end;
	size_t len;

	/* work on the command trimmed at both ends */
	command = skip_space(command);
	len = strlen(command);
	while (len && isspace((unsigned char)command[len - 1]))
		len--;
	copy = roz_strndup(command, len);
	if (!copy)
		return NULL;
	s = after_last_pipe(copy);
	if (strncmp(s, "env ", 4) == 0)
		s = skip_env(s + 4);
	s = skip_assignments(s);
	end = s + strlen(s);
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		size_t n = strlen(shells[i]);

		if (strncmp(s, shells[i], n) != 0)
			continue;
		s = skip_space(s + n);
		end = s + strlen(s);
		if (*s == '"' || *s == '\'') {
			const char *close = strchr(s + 1, *s);

			s++;
			if (close)
				end = close;
		}
		break;
	}
	len = roz_utf8_offset(s, (size_t)(end - s), KEY_CHARS);
	out = roz_strndup(s, len);
	roz_free(copy);
	return out;
}

static char *tool_key(const char *tool_name, const cJSON *tool_input)
{
	const cJSON *cmd;

	if (!tool_name)
		return roz_strdup("unknown");
	cmd = cJSON_IsObject(tool_input) ? cJSON_GetObjectItemCaseSensitive(tool_input, "command") : NULL;
	if (strcmp(tool_name, "Bash") == 0 && cJSON_IsString(cmd)) {
		char *norm = roz_bash_normalize(cmd->valuestring), *key;

		if (!norm)
			return NULL;
		key = roz_asprintf("Bash:%s", norm);
		roz_free(norm);
		return key;
	}
	return roz_strdup(tool_name);
}

int roz_gate_match_tool(const roz_config *config, const char *tool_name, const cJSON *tool_input,
			roz_gate_match *m)
{
	char *key;

	memset(m, 0, sizeof(*m));
	if (!config->n_gate_tools)
		return ROZ_OK;
	key = tool_key(tool_name, tool_input);
	if (!key)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < config->n_gate_tools; i++) {
		if (!roz_glob_match(config->gate_tools[i], key))
			continue;
		m->pattern = roz_strdup(config->gate_tools[i]);
		if (!m->pattern) {
			roz_free(key);
			return ROZ_ENOMEM;
		}
		m->matched = true;
		m->tool_key = key;
		return ROZ_OK;
	}
	roz_free(key);
	return ROZ_OK;
}
