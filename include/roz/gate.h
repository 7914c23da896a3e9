/*
 * roz/gate.h - deciding whether a tool call falls under a gate.
 *
 * Gates are glob patterns (see roz/glob.h) over tool keys: the tool's name
 * (`Edit`, `mcp__tissue__close_issue`) or, for Bash, `Bash:<command>`. The
 * first pattern that matches wins and is recorded with the key it matched.
 *
 * Ownership: a roz_gate_match owns its strings; roz_gate_match_clear()
 * releases them.
 */
#ifndef ROZ_GATE_H
#define ROZ_GATE_H

#include "roz/config.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

typedef struct roz_gate_match {
	bool matched;
	char *tool_key; /* the key that matched */
	char *pattern;  /* the pattern it matched */
} roz_gate_match;

void roz_gate_match_clear(roz_gate_match *m);

/*
 * Match a tool call against the configured gates. ROZ_OK (m->matched says
 * whether anything matched) or ROZ_ENOMEM.
 */
int roz_gate_match_tool(const roz_config *config, const char *tool_name,
			const struct cJSON *tool_input, roz_gate_match *m) ROZ_WARN_UNUSED;

/* The key a Bash command is matched as, without the "Bash:" prefix. Caller frees. */
char *roz_bash_normalize(const char *command);

#ifdef __cplusplus
}
#endif

#endif
