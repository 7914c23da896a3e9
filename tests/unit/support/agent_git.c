/*
 * agent_git.c - the agent at work in real git repositories, through the
 * real roz hooks (agent_git.h).
 */
#include "agent_git.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void ag_world_make(ag_world *w)
{
	char *p;

	memset(w, 0, sizeof *w);
	w->dir = t_mkdtemp();
	w->home = t_sprintf("%s/home", w->dir);
	assert_int_equal(mkdir(w->home, 0700), 0);
	p = t_sprintf("%s/sessions", w->home);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = t_sprintf("%s/config.toml", w->home);
	t_write_file(p, "[review]\nrequire_reviewer = false\n");
	free(p);
	p = t_sprintf("%s/.gitconfig", w->home);
	t_write_file(p, "[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n"
			"[advice]\n\tdetachedHead = false\n[commit]\n\tgpgSign = false\n");
	free(p);
	/* git run by the test: only the world's configuration, the same identity each run */
	setenv("HOME", w->home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_CONFIG_GLOBAL");
	setenv("GIT_AUTHOR_NAME", "Pat Person", 1);
	setenv("GIT_AUTHOR_EMAIL", "pat@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Pat Person", 1);
	setenv("GIT_COMMITTER_EMAIL", "pat@example.com", 1);
	/* commits are dated when they are made, after the records they hold, as in any history */
	unsetenv("GIT_AUTHOR_DATE");
	unsetenv("GIT_COMMITTER_DATE");
	setenv("GIT_MERGE_AUTOEDIT", "no", 1);
	/* roz: the same home for its sessions and for the git it runs */
	w->env[0] = t_sprintf("HOME=%s", w->home);
	w->env[1] = t_sprintf("ROZ_HOME=%s", w->home);
	w->env[2] = t_sprintf("%s", "GIT_CONFIG_NOSYSTEM=1");
	w->env[3] = t_sprintf("%s", "NO_COLOR=1");
	w->env[4] = t_sprintf("%s", "USER=pat");
	w->env[5] = NULL;
}

void ag_world_dispose(ag_world *w)
{
	t_rmtree(w->dir);
	free(w->dir);
	free(w->home);
	for (size_t i = 0; w->env[i]; i++)
		free(w->env[i]);
	memset(w, 0, sizeof *w);
}

int ag_world_up(void **state)
{
	ag_world *w = calloc(1, sizeof *w);

	if (!w)
		return -1;
	ag_world_make(w);
	*state = w;
	return 0;
}

int ag_world_down(void **state)
{
	ag_world_dispose(*state);
	free(*state);
	/* a test that set one for git leaves none to the next */
	unsetenv("GIT_INDEX_FILE");
	return 0;
}

char *ag_at(const ag_world *w, const char *rel)
{
	return t_sprintf("%s/%s", w->dir, rel);
}

/* Run `line` in dir; its exit status, and what it printed (both streams) in *out. */
static int sh_run(const char *dir, const char *line, char **out)
{
	char *cmd = t_sprintf("cd '%s' && { %s\n} 2>&1 </dev/null", dir, line);
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int st;

	if (!p)
		fail_msg("popen: %s", cmd);
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (!(buf = realloc(buf, cap)))
				fail_msg("out of memory");
		}
		n = fread(buf + len, 1, cap - len - 1, p);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	st = pclose(p);
	free(cmd);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *vline(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		fail_msg("vasprintf failed");
	return s;
}

void ag_sh(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char *line, *out;
	int st;

	va_start(ap, fmt);
	line = vline(fmt, ap);
	va_end(ap);
	if ((st = sh_run(dir, line, &out)) != 0)
		fail_msg("in %s: `%s` exited %d:\n%s", dir, line, st, out);
	free(out);
	free(line);
}

char *ag_sh_line(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char *line, *out;
	int st;

	va_start(ap, fmt);
	line = vline(fmt, ap);
	va_end(ap);
	if ((st = sh_run(dir, line, &out)) != 0)
		fail_msg("in %s: `%s` exited %d:\n%s", dir, line, st, out);
	out[strcspn(out, "\n")] = '\0';
	free(line);
	return out;
}

char *ag_repo(const ag_world *w, const char *name, const char *scope)
{
	char *root = ag_at(w, name), *p;
	char *yaml = t_sprintf("active_intents:\n  - id: INT-001\n    name: The work\n    status: IN_PROGRESS\n"
			       "    owned_scope: %s\n",
			       scope);

	p = t_sprintf("%s/.orchestration/active_intents.yaml", root);
	t_write_file(p, yaml);
	free(p);
	p = t_sprintf("%s/README", root);
	t_write_file(p, "a governed repository\n");
	free(p);
	ag_sh(root, "git init -q && git add -A && git commit -qm base");
	free(yaml);
	return root;
}

void ag_roz(const ag_world *w, const char *dir, const char *in, const char *const *argv, t_run *out)
{
	char old[4096];

	assert_non_null(getcwd(old, sizeof old));
	if (chdir(dir) != 0)
		fail_msg("chdir %s", dir);
	t_run_roz(out, in, (const char *const *)w->env, argv);
	assert_int_equal(chdir(old), 0);
}

/* A hook's input: what Claude Code hands every tool hook. */
static cJSON *hook_input(const char *event, const char *sid, const char *cwd, const char *tool)
{
	cJSON *in = cJSON_CreateObject();

	assert_non_null(in);
	cJSON_AddStringToObject(in, "session_id", sid);
	cJSON_AddStringToObject(in, "transcript_path", "");
	cJSON_AddStringToObject(in, "cwd", cwd);
	cJSON_AddStringToObject(in, "permission_mode", "default");
	cJSON_AddStringToObject(in, "hook_event_name", event);
	cJSON_AddStringToObject(in, "tool_name", tool);
	return in;
}

/* roz hook <which> with `in` (consumed); fails the test unless it answers "{}". */
static void hook_ok(const ag_world *w, const char *cwd, const char *which, cJSON *in)
{
	const char *argv[] = {"hook", which, NULL};
	char *text = cJSON_PrintUnformatted(in);
	t_run r;

	assert_non_null(text);
	ag_roz(w, cwd, text, argv, &r);
	if (r.status != 0 || strcmp(r.out, "{}\n") != 0)
		fail_msg("roz hook %s answered (exit %d):\n%s\nstderr: %s\ninput: %s", which, r.status, r.out,
			 r.err, text);
	t_run_dispose(&r);
	cJSON_free(text);
	cJSON_Delete(in);
}

static cJSON *bash_input(const char *event, const char *sid, const char *cwd, const char *command)
{
	cJSON *in = hook_input(event, sid, cwd, "Bash"), *ti = cJSON_AddObjectToObject(in, "tool_input");

	cJSON_AddStringToObject(ti, "command", command);
	cJSON_AddStringToObject(ti, "description", "a step of the work");
	return in;
}

void ag_select(const ag_world *w, const char *cwd, const char *sid)
{
	hook_ok(w, cwd, "pre-tool-use", bash_input("PreToolUse", sid, cwd, "roz intent select INT-001"));
}

void ag_write(const ag_world *w, const char *cwd, const char *sid, const char *file, const char *text)
{
	char *path = file[0] == '/' ? t_sprintf("%s", file) : t_sprintf("%s/%s", cwd, file);
	bool existed = access(path, F_OK) == 0;
	cJSON *in, *ti, *tr;

	in = hook_input("PreToolUse", sid, cwd, "Write");
	ti = cJSON_AddObjectToObject(in, "tool_input");
	cJSON_AddStringToObject(ti, "file_path", path);
	cJSON_AddStringToObject(ti, "content", text);
	hook_ok(w, cwd, "pre-tool-use", in);
	t_write_file(path, text);
	in = hook_input("PostToolUse", sid, cwd, "Write");
	ti = cJSON_AddObjectToObject(in, "tool_input");
	cJSON_AddStringToObject(ti, "file_path", path);
	cJSON_AddStringToObject(ti, "content", text);
	tr = cJSON_AddObjectToObject(in, "tool_response");
	cJSON_AddStringToObject(tr, "type", existed ? "update" : "create");
	cJSON_AddStringToObject(tr, "filePath", path);
	cJSON_AddStringToObject(tr, "content", text);
	hook_ok(w, cwd, "post-tool-use", in);
	free(path);
}

void ag_bash(const ag_world *w, const char *cwd, const char *sid, const char *command)
{
	cJSON *in, *tr;
	char *out;
	int st;

	hook_ok(w, cwd, "pre-tool-use", bash_input("PreToolUse", sid, cwd, command));
	if ((st = sh_run(cwd, command, &out)) != 0)
		fail_msg("the agent's `%s` exited %d:\n%s", command, st, out);
	in = bash_input("PostToolUse", sid, cwd, command);
	tr = cJSON_AddObjectToObject(in, "tool_response");
	cJSON_AddStringToObject(tr, "stdout", out);
	cJSON_AddStringToObject(tr, "stderr", "");
	cJSON_AddFalseToObject(tr, "interrupted");
	cJSON_AddFalseToObject(tr, "isImage");
	hook_ok(w, cwd, "post-tool-use", in);
	free(out);
}

cJSON *ag_verify(const ag_world *w, const char *dir, int status, ...)
{
	const char *argv[16] = {"ledger", "verify", "--json"};
	size_t n = 3;
	const char *a;
	va_list ap;
	cJSON *doc;
	t_run r;

	va_start(ap, status);
	while ((a = va_arg(ap, const char *)) != NULL && n < 15)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	ag_roz(w, dir, NULL, argv, &r);
	doc = cJSON_Parse(r.out);
	if (r.status != status || !doc) {
		char *args = t_sprintf("%s", "");

		for (size_t i = 2; i < n; i++) {
			char *next = t_sprintf("%s %s", args, argv[i]);

			free(args);
			args = next;
		}
		fail_msg("roz ledger verify%s in %s exited %d (expected %d):\n%s\nstderr: %s", args, dir, r.status,
			 status, r.out, r.err);
	}
	t_run_dispose(&r);
	return doc;
}

int ag_summary(const cJSON *doc, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"), name);

	if (!cJSON_IsNumber(v)) {
		char *text = cJSON_PrintUnformatted(doc);

		fail_msg("the summary has no count '%s': %s", name, text);
	}
	return v->valueint;
}

static bool is_string(const cJSON *item, const char *name, const char *want)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, name);

	return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

const cJSON *ag_item(const cJSON *doc, const char *state, const char *path)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(doc, "items"))
		if ((!state || is_string(item, "state", state)) && (!path || is_string(item, "path", path)))
			return item;
	return NULL;
}

int ag_items(const cJSON *doc, const char *path)
{
	const cJSON *item;
	int n = 0;

	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(doc, "items"))
		n += !path || is_string(item, "path", path);
	return n;
}

int ag_int(const cJSON *item, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, name);

	if (!cJSON_IsNumber(v)) {
		char *text = cJSON_PrintUnformatted(item);

		fail_msg("no number '%s' in %s", name, text);
	}
	return v->valueint;
}

bool ag_ledger_names(const char *root, const char *path)
{
	char *file = t_sprintf("%s/.orchestration/agent_trace.jsonl", root);
	char *text = t_read_file(file, NULL);
	bool found = false;

	free(file);
	if (!text)
		return false;
	for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n")) {
		cJSON *rec = cJSON_Parse(line);
		const cJSON *f;

		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(rec, "files"))
			found = found || is_string(f, "path", path);
		cJSON_Delete(rec);
	}
	free(text);
	return found;
}

void ag_config(const ag_world *w, const char *toml)
{
	char *p = t_sprintf("%s/config.toml", w->home);

	t_write_file(p, toml);
	free(p);
}

cJSON *ag_input(const char *event, const char *sid, const char *cwd, const char *tool)
{
	cJSON *in = cJSON_CreateObject();

	assert_non_null(in);
	cJSON_AddStringToObject(in, "session_id", sid);
	cJSON_AddStringToObject(in, "transcript_path", "");
	cJSON_AddStringToObject(in, "cwd", cwd);
	cJSON_AddStringToObject(in, "permission_mode", "default");
	cJSON_AddStringToObject(in, "hook_event_name", event);
	if (tool)
		cJSON_AddStringToObject(in, "tool_name", tool);
	return in;
}

void ag_hook(const ag_world *w, const char *cwd, const char *which, cJSON *in, t_run *out)
{
	const char *argv[] = {"hook", which, NULL};
	char *text = cJSON_PrintUnformatted(in);

	assert_non_null(text);
	ag_roz(w, cwd, text, argv, out);
	cJSON_free(text);
	cJSON_Delete(in);
}

void ag_edit(const ag_world *w, const char *cwd, const char *sid, const char *file, const char *old,
	     const char *new_text)
{
	char *path = file[0] == '/' ? t_sprintf("%s", file) : t_sprintf("%s/%s", cwd, file);
	char *was = t_read_file(path, NULL), *at, *now;
	cJSON *in, *ti, *tr;

	if (!was || !(at = strstr(was, old)))
		fail_msg("the agent's Edit: '%s' is not in %s", old, path);
	now = t_sprintf("%.*s%s%s", (int)(at - was), was, new_text, at + strlen(old));
	in = hook_input("PreToolUse", sid, cwd, "Edit");
	ti = cJSON_AddObjectToObject(in, "tool_input");
	cJSON_AddStringToObject(ti, "file_path", path);
	cJSON_AddStringToObject(ti, "old_string", old);
	cJSON_AddStringToObject(ti, "new_string", new_text);
	hook_ok(w, cwd, "pre-tool-use", in);
	t_write_file(path, now);
	in = hook_input("PostToolUse", sid, cwd, "Edit");
	ti = cJSON_AddObjectToObject(in, "tool_input");
	cJSON_AddStringToObject(ti, "file_path", path);
	cJSON_AddStringToObject(ti, "old_string", old);
	cJSON_AddStringToObject(ti, "new_string", new_text);
	tr = cJSON_AddObjectToObject(in, "tool_response");
	cJSON_AddStringToObject(tr, "filePath", path);
	cJSON_AddStringToObject(tr, "oldString", old);
	cJSON_AddStringToObject(tr, "newString", new_text);
	cJSON_AddStringToObject(tr, "originalFile", was);
	cJSON_AddFalseToObject(tr, "userModified");
	cJSON_AddFalseToObject(tr, "replaceAll");
	hook_ok(w, cwd, "post-tool-use", in);
	free(now);
	free(was);
	free(path);
}

cJSON *ag_session(const ag_world *w, const char *sid)
{
	char *p = t_sprintf("%s/sessions/%s.json", w->home, sid), *text = t_read_file(p, NULL);
	cJSON *doc;

	if (!text || !(doc = cJSON_Parse(text)))
		fail_msg("no session file %s that parses", p);
	free(text);
	free(p);
	return doc;
}

bool ag_tree_file(const ag_world *w, const char *sid, const char *suffix)
{
	char *p = t_sprintf("%s/trees/%s%s", w->home, sid, suffix);
	bool there = access(p, F_OK) == 0;

	free(p);
	return there;
}
