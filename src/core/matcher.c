/*
 * matcher.c - hook matchers read as Claude Code reads them, and the gates a
 * matcher would leave without a hook: a gate on a tool Claude Code never
 * starts roz for can never hold.
 */
#include "roz/matcher.h"

#include <regex.h>
#include <string.h>

#include "roz/glob.h"

/*
 * Claude Code's own tools across the releases roz is tested with, the names
 * a wildcard gate (`Web*`, `*`) is tried against. MCP tools are named
 * `mcp__<server>__<tool>` and are represented by the example a pattern gives.
 */
static const char *const known_tools[] = {
	"Agent",       "AskUserQuestion", "Bash",          "BashOutput",   "CronCreate",   "CronDelete",
	"CronList",    "Edit",            "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree",
	"Glob",        "Grep",            "KillShell",     "LS",           "ListAgents",   "LSP",
	"Monitor",     "MultiEdit",       "NotebookEdit",  "NotebookRead", "Read",         "ReportFindings",
	"ScheduleWakeup", "SendMessage",  "Skill",         "SlashCommand", "Task",         "TaskCreate",
	"TaskGet",     "TaskList",        "TaskOutput",    "TaskStop",     "TaskUpdate",   "TodoRead",
	"TodoWrite",   "ToolSearch",      "WebFetch",      "WebSearch",    "Workflow",     "Write",
};

static bool all_of(const char *s, const char *set)
{
	return *s && s[strspn(s, set)] == '\0';
}

/* Is `name` one of the names of `list`, separated by any of `seps`, spaces around them ignored? */
static bool listed(const char *list, const char *seps, const char *name)
{
	size_t want = strlen(name);

	for (const char *p = list; *p; p += *p != '\0') {
		size_t n = strcspn(p, seps), lead = strspn(p, " "), end = n;

		while (end > lead && p[end - 1] == ' ')
			end--;
		if (end - lead == want && memcmp(p + lead, name, want) == 0)
			return true;
		p += n;
	}
	return false;
}

int roz_matcher_selects(const char *matcher, bool pre_tool, const char *name)
{
	regex_t re;
	int rc;

	if (!matcher || !*matcher || strcmp(matcher, "*") == 0)
		return 1;
	if (all_of(matcher, pre_tool ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_|, -"
				     : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_|"))
		return listed(matcher, pre_tool ? "|," : "|", name);
	if ((rc = regcomp(&re, matcher, REG_EXTENDED | REG_NOSUB)) != 0) {
		char why[128];

		regerror(rc, &re, why, sizeof why);
		roz_error_set("the matcher \"%s\" is not a pattern roz can read (%s)", matcher, why);
		return ROZ_EINVALID;
	}
	rc = regexec(&re, name, 0, NULL, 0) == 0;
	regfree(&re);
	return rc;
}

/* Could the gate hold some call of `tool`? A Bash gate is held against "Bash:<line>". */
static bool gate_names(const char *gate, const char *tool)
{
	if (strcmp(tool, "Bash") == 0)
		return roz_glob_could_match(gate, "Bash:", 5) || roz_glob_match(gate, "Bash");
	return roz_glob_match(gate, tool);
}

/*
 * What a wildcard pattern names at the least, as a tool: `*` and `?` stand
 * for nothing and `x`, a set for its first character; a key's tool is what
 * comes before its `:`. NULL when the pattern has no such example.
 */
static char *example_of(const char *gate)
{
	roz_buf b = ROZ_BUF_INIT;
	char *out;

	for (const char *p = gate; *p; p++) {
		if (*p == '*')
			continue;
		if (*p == '?') {
			roz_buf_addc(&b, 'x');
		} else if (*p == '[') {
			const char *set = p + 1 + (p[1] == '!'), *end = strchr(set + (*set == ']'), ']');

			if (!end)
				break;
			roz_buf_addc(&b, p[1] == '!' ? '\x01' : *set);
			p = end;
		} else {
			roz_buf_addc(&b, *p);
		}
	}
	out = roz_buf_detach(&b, NULL);
	if (out)
		out[strcspn(out, ":")] = '\0';
	if (out && (!*out || !gate_names(gate, out) || strchr(out, '\x01'))) {
		roz_free(out);
		out = NULL;
	}
	return out;
}

/* 1 when `tool` was added to the gaps, 0 when a matcher selects it or it is listed already. */
static int add_gap(const char *const *matchers, size_t n, const char *tool, roz_buf *gaps)
{
	for (size_t i = 0; i < n; i++) {
		int rc = roz_matcher_selects(matchers[i], true, tool);

		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	if (listed(roz_buf_cstr(gaps), ",", tool))
		return 0;
	if (gaps->len)
		roz_buf_adds(gaps, ", ");
	roz_buf_adds(gaps, tool);
	return roz_buf_failed(gaps) < 0 ? ROZ_ENOMEM : 1;
}

int roz_matcher_gate_gaps(const char *const *matchers, size_t n, const char *gate, roz_buf *gaps)
{
	char *example = example_of(gate);
	int rc = 0, added = 0, named = 0;

	for (size_t i = 0; i < sizeof known_tools / sizeof known_tools[0] && rc >= 0; i++) {
		if (!gate_names(gate, known_tools[i]))
			continue;
		named++;
		if ((rc = add_gap(matchers, n, known_tools[i], gaps)) > 0)
			added += rc;
	}
	/* a tool named outright, or what a wildcard that names no tool of Claude Code's stands for */
	if (rc >= 0 && example && (!strpbrk(gate, "*?[") || !named) &&
	    (rc = add_gap(matchers, n, example, gaps)) > 0)
		added += rc;
	roz_free(example);
	return rc < 0 ? rc : added;
}

char *roz_matcher_of_names(const char *names)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_adds(&b, "^(");
	for (const char *p = names; *p;) {
		size_t n = strcspn(p, ",");

		if (b.len > 2)
			roz_buf_addc(&b, '|');
		for (size_t i = 0; i < n; i++) {
			if (strchr(".^$*+?()[]{}|\\", p[i]))
				roz_buf_addc(&b, '\\');
			roz_buf_addc(&b, p[i]);
		}
		p += n;
		p += strspn(p, ", ");
	}
	roz_buf_adds(&b, ")$");
	if (roz_buf_failed(&b) < 0) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}
