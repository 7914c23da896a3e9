/*
 * roz/matcher.h - which tool calls Claude Code starts roz for.
 *
 * Claude Code starts a hook only for the tool calls its matcher selects, so
 * a tool left out of roz's PreToolUse matcher costs no process at all, and
 * roz never sees it. The plugin's matchers name the tools roz can act on:
 *
 *   PreToolUse   Bash (gates, governance, the storage guard, self-approval),
 *                Write/Edit/MultiEdit/NotebookEdit (governance, the storage
 *                guard), Agent/Task (starting the reviewer), mcp__* (gates
 *                name MCP tools more than any other kind)
 *   PostToolUse  Read (what the stale-file lock remembers) and the writers
 *                and Bash (the lock and the ledger)
 *
 * A gate can name any tool, so a gate on a tool the matcher leaves out would
 * never hold: roz_matcher_gate_gaps() finds such gates, and `roz doctor`
 * fails on them with a hook of the user's own that covers them.
 *
 * Matchers are read as Claude Code reads them: empty or "*" selects every
 * tool; a matcher of only letters, digits, `_` and `|` (PreToolUse also
 * allows `,`, `-` and spaces) is a list of exact names; anything else is a
 * regular expression searched in the tool name (read here as a POSIX
 * extended expression, which the usual `^(A|B|mcp__.*)$` forms are).
 */
#ifndef ROZ_MATCHER_H
#define ROZ_MATCHER_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matchers of roz's plugin (plugin/hooks/hooks.json says the same; a test holds them equal). */
#define ROZ_MATCHER_PRE_TOOL_USE "^(Bash|Write|Edit|MultiEdit|NotebookEdit|Agent|Task|mcp__.*)$"
#define ROZ_MATCHER_POST_TOOL_USE "^(Read|Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*)$"
#define ROZ_MATCHER_REVIEWER "^roz:roz$"

/*
 * Whether `matcher` selects `name` (a tool name, or an agent type for the
 * subagent events): 1 yes, 0 no, ROZ_EINVALID when the matcher is not a
 * pattern that can be read (the error message says why). `pre_tool` reads
 * it as PreToolUse's lists are read.
 */
int roz_matcher_selects(const char *matcher, bool pre_tool, const char *name);

/*
 * The tools a gate pattern (an entry of `review.gates.tools`) can hold that
 * none of the `n` matchers selects (a NULL matcher selects every tool; with
 * n == 0 nothing is selected), appended to `gaps` as a ", "-separated list;
 * a tool already listed there is not repeated. Returns how many were added,
 * or a negative error (an unreadable matcher: ROZ_EINVALID). The tools
 * looked at are Claude Code's own, the tool a pattern names outright, and,
 * for a wildcard that names none of Claude Code's tools, an example of what
 * it stands for (`mcp__github__*`: `mcp__github__`).
 */
int roz_matcher_gate_gaps(const char *const *matchers, size_t n, const char *gate, roz_buf *gaps);

/*
 * A matcher that selects exactly the tools named in `names` (a list as
 * roz_matcher_gate_gaps() writes it: "WebFetch, mcp__x"), for a hook of
 * one's own beside the plugin's: it selects nothing the plugin's matcher
 * selects when `names` are its gaps, so no call starts roz twice. Caller
 * frees; NULL when out of memory.
 */
char *roz_matcher_of_names(const char *names);

#ifdef __cplusplus
}
#endif

#endif
