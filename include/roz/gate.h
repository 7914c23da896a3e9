/*
 * roz/gate.h - what a tool call is, as far as roz's gates are concerned.
 *
 * Gates are glob patterns (see roz/glob.h) over tool keys: the tool's name
 * (`Edit`, `mcp__tissue__close_issue`) or, for Bash, `Bash:<command>` for
 * every simple command the line would run, found by the shell lexer
 * (roz/shell.h). The first pattern that matches any of them wins.
 *
 * The same look at the call also tells whether it runs roz's own `decide`
 * or `hook` commands, whether it writes into roz's session store, and
 * whether a Bash line could not be read with certainty (a dynamic command
 * word, or text that does not parse) while Bash gates are configured.
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

/* Longest tool key kept for display; matching always uses the whole command. */
#define ROZ_MAX_KEY_DISPLAY 200

enum {
	ROZ_RUNS_DECIDE = 1u << 0, /* the call runs `roz decide` */
	ROZ_RUNS_HOOK = 1u << 1    /* the call runs `roz hook` */
};

typedef struct roz_gate_match {
	bool matched;
	char *tool_key;     /* the key that matched, shortened for display */
	char *pattern;      /* the pattern it matched */
	char *unsure;       /* why a Bash line could not be read, when Bash gates exist */
	unsigned roz_runs;  /* ROZ_RUNS_* */
	bool touches_store; /* a file tool aimed inside roz's session storage */
} roz_gate_match;

void roz_gate_match_clear(roz_gate_match *m);

/*
 * Look at a tool call. ROZ_OK (with m filled in) or ROZ_ENOMEM. Needs the
 * config for the gate patterns and the storage path.
 */
int roz_gate_check(const roz_config *config, const char *tool_name, const struct cJSON *tool_input,
		   roz_gate_match *m) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
