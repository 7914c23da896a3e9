/*
 * test_effect.c - roz_effect_*: which tools write files, and for a Bash
 * line whether it is read-only, which files it writes (and how), whether
 * it changes things it does not show, and when its targets are known only
 * at run time. Each table row is a line as an agent would type it.
 */
#include "support.h"

#include "roz/effect.h"

#include <string.h>

/* Parse and judge `line`; fails the test when either step fails. */
static void judge(const char *line, roz_effect *e)
{
	roz_shell_result sh;

	memset(&sh, 0, sizeof sh);
	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	assert_int_equal(roz_effect_of_bash(&sh, e), ROZ_OK);
	roz_shell_result_dispose(&sh);
}

static void test_tool_kinds(void **state)
{
	(void)state;
	static const char *const reads[] = {"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch",
					    "TodoWrite", "Agent", "Task", "ExitPlanMode",
					    "BashOutput", "KillShell", "KillBash",
					    "ListMcpResourcesTool", "mcp__github__create_issue",
					    "SomethingNew", "", "write", "bash", NULL};
	for (size_t i = 0; reads[i]; i++) {
		if (roz_effect_tool_kind(reads[i]) != ROZ_TOOL_READS)
			fail_msg("%s should be a reading tool", reads[i]);
		assert_null(roz_effect_path_field(reads[i]));
	}
	assert_int_equal(roz_effect_tool_kind(NULL), ROZ_TOOL_READS);
	assert_null(roz_effect_path_field(NULL));
	assert_int_equal(roz_effect_tool_kind("Bash"), ROZ_TOOL_BASH);
	assert_null(roz_effect_path_field("Bash"));
	assert_int_equal(roz_effect_tool_kind("Write"), ROZ_TOOL_WRITES_FILE);
	assert_int_equal(roz_effect_tool_kind("Edit"), ROZ_TOOL_WRITES_FILE);
	assert_int_equal(roz_effect_tool_kind("MultiEdit"), ROZ_TOOL_WRITES_FILE);
	assert_int_equal(roz_effect_tool_kind("NotebookEdit"), ROZ_TOOL_WRITES_FILE);
	assert_string_equal(roz_effect_path_field("Write"), "file_path");
	assert_string_equal(roz_effect_path_field("Edit"), "file_path");
	assert_string_equal(roz_effect_path_field("MultiEdit"), "file_path");
	assert_string_equal(roz_effect_path_field("NotebookEdit"), "notebook_path");
}

static void test_read_only_lines(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"ls -la", "cat README.md", "head -n 20 src/a.c", "tail -f log.txt",
		"grep -rn TODO src", "rg -n 'fn main' --type rust", "egrep 'a|b' f", "wc -l *.c",
		"find . -name '*.c'", "find src -type f -newer x -print", "find . -name -delete",
		"find . -name '*.c' -exec grep -l x {} +", "sort -u names.txt", "sort -k2 -t, f",
		"uniq -c counts", "cut -d: -f1 /etc/passwd", "tr a-z A-Z < f", "diff -u a b",
		"cmp a b", "comm -12 a b", "stat f", "file a.out", "du -sh .", "df -h", "tree -L 2",
		"pwd", "echo hello", "printf '%s\\n' x", "true", "false", "test -f x && echo y",
		"[ -d build ]", "which gcc", "type ls", "command -v ls", "date +%s",
		"date -d yesterday", "env", "printenv PATH", "whoami", "id -u", "uname -a",
		"hostname", "hostname -f", "basename a/b.c", "dirname a/b.c", "realpath x",
		"readlink -f x", "jq .name package.json", "yq '.a' f.yaml", "sed -n 1p f",
		"sed -n '/start/,/end/p' f", "sed 's/a/b/g' f", "sed -e 's/x/y/' -e 'p' f",
		"awk '{print $1}' f", "awk -F: '{print $1}' /etc/passwd", "xxd a.bin", "od -c f",
		"hexdump -C f", "md5sum f", "sha256sum -c sums", "git status",
		"git log --oneline | head", "git diff HEAD~1", "git show HEAD:a.c",
		"git blame a.c", "git grep foo", "git rev-parse HEAD", "git ls-files",
		"git ls-tree HEAD", "git cat-file -p HEAD", "git describe --tags",
		"git shortlog -sn", "git reflog", "git reflog show", "git merge-base a b",
		"git branch", "git branch -a", "git branch -r", "git branch -vv",
		"git branch --list 'f*'", "git stash list", "git stash show -p",
		"git remote -v", "git remote show origin", "git tag", "git tag -l 'v*'",
		"git config --get user.name", "git config --list", "git config user.email",
		"git -C sub status", "git --no-pager log -p", "cat a > /dev/null",
		"cat a 2>/dev/null >/dev/stderr", "ls >&2", "echo x > /dev/fd/3",
		"cat <<EOF\n> not a file\nEOF", "roz intent list", "roz context",
		"sudo ls /root", "timeout 5 cat f", "env X=1 ls", "xargs grep x < list",
		"find . -type f | xargs wc -l", "bash -c 'ls && pwd'", "cd src && ls",
		"export A=1; echo $A", "less README", "git log --oneline | head -20 | wc -l",
		NULL};
	for (size_t i = 0; lines[i]; i++) {
		roz_effect e;

		judge(lines[i], &e);
		if (!e.read_only || e.opaque || e.unknown_target || e.ntargets || e.why)
			fail_msg("'%s' should be read-only (why: %s)", lines[i], e.why ? e.why : "-");
		roz_effect_dispose(&e);
	}
}

struct with_targets {
	const char *line;
	const char *targets[5]; /* "path how", NULL path written as "? how" */
	bool opaque;
};

static void check_targets(const struct with_targets *t)
{
	roz_effect e;
	size_t n = 0;

	judge(t->line, &e);
	while (n < 5 && t->targets[n])
		n++;
	if (e.read_only || !e.why)
		fail_msg("'%s' is not read-only", t->line);
	if (e.opaque != t->opaque)
		fail_msg("'%s': opaque %d, want %d (why: %s)", t->line, e.opaque, t->opaque, e.why);
	if (e.ntargets != n) {
		for (size_t i = 0; i < e.ntargets; i++)
			print_message("  got %s %s\n", e.targets[i].path ? e.targets[i].path : "?",
				      e.targets[i].how);
		fail_msg("'%s': %zu targets, want %zu", t->line, e.ntargets, n);
	}
	for (size_t i = 0; i < n; i++) {
		char *got = t_sprintf("%s %s", e.targets[i].path ? e.targets[i].path : "?",
				      e.targets[i].how);

		if (strcmp(got, t->targets[i]))
			fail_msg("'%s': target %zu is '%s', want '%s'", t->line, i, got, t->targets[i]);
		roz_free(got);
	}
	roz_effect_dispose(&e);
}

static void test_lines_with_targets(void **state)
{
	(void)state;
	static const struct with_targets rows[] = {
		{"echo hi > out.txt", {"out.txt redirection"}, false},
		{"echo hi >> logs/a.log 2>&1", {"logs/a.log redirection"}, false},
		{"cat a &> both", {"both redirection"}, false},
		{"cat <<EOF > gen.c\nint x;\nEOF", {"gen.c redirection"}, false},
		{"echo x > ~/notes", {"~/notes redirection"}, false},
		{"echo x > \"$HOME/notes\"", {"$HOME/notes redirection"}, false},
		{"ls | tee list.txt", {"list.txt tee"}, false},
		{"echo x | tee -a a b /dev/null", {"a tee", "b tee"}, false},
		{"sed -i 's/a/b/' src/a.c src/b.c", {"src/a.c sed -i", "src/b.c sed -i"}, false},
		{"sed -i.bak -e 's/a/b/' f", {"f sed -i"}, false},
		{"sed --in-place=.orig 's/x/y/' f", {"f sed -i"}, false},
		{"sed -Ei 's/x/y/' f", {"f sed -i"}, false},
		{"sed -n 'w out.txt' f", {"out.txt sed w"}, false},
		{"sed 's/a/b/w changed.txt' f", {"changed.txt sed w"}, false},
		{"cp a.c b.c", {"b.c cp"}, false},
		{"cp -r src/ dest/", {"dest/ cp"}, false},
		{"cp -t dir a b", {"dir cp"}, false},
		{"cp --target-directory=dir a b", {"dir cp"}, false},
		{"cp -S .bak a b", {"b cp"}, false},
		{"mv a b", {"b mv", "a mv"}, false},
		{"mv -f x y dir/", {"dir/ mv", "x mv", "y mv"}, false},
		{"mv -t dir x", {"dir mv", "x mv"}, false},
		{"install -m 755 tool /usr/local/bin/tool", {"/usr/local/bin/tool install"}, false},
		{"install -d a b", {"a install", "b install"}, false},
		{"ln -sf ../lib/x.so lib.so", {"lib.so ln"}, false},
		{"ln -s /opt/tool/bin/tool", {"tool ln"}, false},
		{"rm a.o", {"a.o rm"}, false},
		{"rm -rf build dist", {"build rm", "dist rm"}, false},
		{"rm -- -weird", {"-weird rm"}, false},
		{"rmdir empty", {"empty rmdir"}, false},
		{"rmdir -p a/b/c", {"a/b/c rmdir", "a/b rmdir", "a rmdir"}, false},
		{"unlink x", {"x unlink"}, false},
		{"shred -n 3 -u secret", {"secret shred"}, false},
		{"touch a b", {"a touch", "b touch"}, false},
		{"touch -r ref.txt new.txt", {"new.txt touch"}, false},
		{"mkdir -p a/b", {"a/b mkdir"}, false},
		{"mkdir -m 700 priv", {"priv mkdir"}, false},
		{"truncate -s 0 log", {"log truncate"}, false},
		{"chmod +x run.sh", {"run.sh chmod"}, false},
		{"chmod -R u+w build", {"build chmod"}, false},
		{"chmod -w ro.txt", {"ro.txt chmod"}, false},
		{"chmod --reference=a b", {"b chmod"}, false},
		{"chown -R me:me dir", {"dir chown"}, false},
		{"chgrp staff f", {"f chgrp"}, false},
		{"dd if=/dev/zero of=disk.img bs=1M count=1", {"disk.img dd"}, false},
		{"git checkout -- a.c b.c", {"a.c git checkout", "b.c git checkout"}, false},
		{"git checkout HEAD~1 -- a.c", {"a.c git checkout"}, false},
		{"git checkout .", {". git checkout"}, false},
		{"git restore a.c", {"a.c git restore"}, false},
		{"git restore --staged --worktree a.c", {"a.c git restore"}, false},
		{"git restore -s HEAD~2 a.c", {"a.c git restore"}, false},
		{"git rm -r old", {"old git rm"}, false},
		{"git mv a b", {"a git mv", "b git mv"}, false},
		{"git clean -fdx", {". git clean"}, false},
		{"git clean -f build/", {"build/ git clean"}, false},
		{"git -C sub clean -f", {". git clean"}, false},
		{"git log --output=log.txt", {"log.txt git --output"}, false},
		{"sort -o sorted.txt in.txt", {"sorted.txt sort -o"}, false},
		{"sort in --output out", {"out sort -o"}, false},
		{"uniq in out", {"out uniq"}, false},
		{"xxd a.bin a.hex", {"a.hex xxd"}, false},
		{"yq -i '.a = 1' conf.yaml", {"conf.yaml yq -i"}, false},
		{"tree -o tree.txt", {"tree.txt tree -o"}, false},
		{"ss -D dump.bin", {"dump.bin ss -D"}, false},
		{"ss --diag=dump.bin -t", {"dump.bin ss -D"}, false},
		{"find build -name '*.o' -delete", {"build find -delete"}, false},
		{"find -delete", {". find -delete"}, false},
		{"find . -fprint list.txt", {"list.txt find -fprint"}, false},
		{"sudo rm /etc/x", {"/etc/x rm"}, false},
		{"bash -c 'touch made'", {"made touch"}, false},
		{"echo $(rm gone)", {"gone rm"}, false},
		{"cp a b; cp a b", {"b cp"}, false},
		{"git checkout main", {NULL}, true},
		{"git checkout -b feature", {NULL}, true},
		{"git restore --staged a.c", {NULL}, true},
		{"git rm --cached a", {NULL}, true},
		{"make > build.log", {"build.log redirection"}, true},
		{"patch -p1 < fix.diff", {NULL}, true},
		{"sed 'e ls' f", {NULL}, true},
		{"sort --compress-program=gzip f", {NULL}, true},
		{"awk '{print > \"out\"}' f", {NULL}, true},
		{"awk -f prog.awk f", {NULL}, true},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check_targets(&rows[i]);
}

static void test_opaque_lines(void **state)
{
	(void)state;
	static const char *const lines[][2] = {
		{"make", "make may write files"},
		{"make -j4 all", "make may write files"},
		{"npm i", "npm may write files"},
		{"npm install left-pad", "npm may write files"},
		{"python x.py", "python may write files"},
		{"python3 -m pytest", "python3 may write files"},
		{"git commit -m x", "git commit may change files"},
		{"git push", "git push may change files"},
		{"git stash", "git stash may change files"},
		{"git branch -D old", "git branch may change files"},
		{"git tag v1", "git tag may change files"},
		{"git config user.name me", "git config may change files"},
		{"cargo build --release", "cargo may write files"},
		{"./configure --prefix=/usr", "configure may write files"},
		{"git log $opts", "git log with arguments computed when the line runs may write files"},
		{"sort $args", "sort with arguments computed when the line runs may write files"},
		{"find \"$dir\" -name x", "find with arguments computed when the line runs may delete or write files"},
		{"date -s 2020-01-01", "date -s sets the clock"},
		{"hostname newname", "hostname with arguments may set the host name"},
		{"rg --pre ./conv x", "rg --pre runs a program"},
		{"alias ls=rm; ls x", "an alias defined on this line"},
		{"git -c alias.p=push p", "git p may change files"},
		{"git -c alias.p=push p; ls", "git p may change files"},
		{"strace -o t.log ls", "strace may write a log file"},
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		roz_effect e;

		judge(lines[i][0], &e);
		if (e.read_only || !e.opaque || !e.why || strcmp(e.why, lines[i][1]))
			fail_msg("'%s' should be opaque with '%s' (got %s)", lines[i][0], lines[i][1],
				 e.why ? e.why : "-");
		roz_effect_dispose(&e);
	}
}

/* Ordinary lines that look at the system, the tools or the repository change nothing. */
static void test_read_only_programs(void **state)
{
	(void)state;
	static const char *const lines[] = {
		/* the system */
		"ps aux", "ps -ef | grep node", "uptime", "free -h", "top -bn1", "lsof -i :80",
		"ss -ltn", "ss -tanp state established", "pgrep -a node", "netstat -tlnp",
		"lsblk", "df -h", "du -sh .", "id", "whoami", "hostname", "uname -a", "env",
		"printenv", "date", "which x", "type x", "command -v x", "who",
		/* versions and help of known programs */
		"python3 --version", "python --version", "python3 -V", "node --version", "node -v",
		"cargo --version", "cargo -V", "cargo version", "rustc --version", "gcc --version",
		"make --version", "make --help", "go version", "go env", "go env GOPATH",
		"go env -json", "npm --version", "npm -v", "java -version", "terraform version",
		"docker --version", "kubectl --help", "gh --version", "bash --version",
		"pip --version", "pip3 -V", "tar --help", "unzip",
		/* `SUB --help` prints what SUB would do */
		"docker rm --help", "kubectl delete --help", "gh pr merge --help",
		"npm install --help", "pip install --help", "cargo build --help", "go build --help",
		"git commit --help", "git push --help",
		/* containers and clusters */
		"docker ps", "docker ps -a", "docker images", "docker logs x", "docker logs -f x",
		"docker inspect x", "docker image ls", "docker container ls -a",
		"docker compose ps", "docker compose -f dev.yml logs web", "docker compose config",
		"docker --context prod ps", "docker stats --no-stream",
		"kubectl get pods", "kubectl get pods -o wide -n kube-system",
		"kubectl -n prod get deploy", "kubectl describe pod x", "kubectl logs x",
		"kubectl logs -f x -c app", "kubectl config view", "kubectl auth can-i get pods",
		"kubectl rollout status deploy/x", "kubectl top pods",
		/* forges */
		"gh pr view 1", "gh pr view 1 --comments", "gh pr list", "gh pr list --state merged",
		"gh pr diff 3", "gh pr checks 3", "gh issue view 2", "gh issue list", "gh run list",
		"gh run view 9 --log", "gh repo view", "gh api repos/o/r/pulls", "gh auth status",
		/* archives */
		"tar -tzf a.tgz", "tar --list -f a.tar", "tar tzf a.tgz", "tar -tvf a.tar --exclude x",
		"tar -dzf a.tgz", "unzip -l a.zip", "unzip -v a.zip", "unzip -t a.zip",
		"unzip -p a.zip f", "unzip -l a.zip -x junk", "zipinfo a.zip",
		/* packages */
		"npm ls", "npm ls --depth=0", "npm list -g", "npm view x", "npm view x versions --json",
		"npm outdated", "npm config get registry", "npm version", "npm audit",
		"pip list", "pip list --local", "pip list --outdated", "pip show x", "pip freeze",
		"pip3 show -f x", "helm list -n x",
		/* git */
		"git worktree list", "git worktree list --porcelain", "git stash list",
		"git remote -v", "git config --get x", "git config --list", "git ls-remote origin",
		"git -c color.ui=always log", "git -c core.quotepath=off status",
		"git -c diff.noprefix=true diff", "git -c core.pager=cat log",
		"git -c pager.log=false log", "git --exec-path",
		/* files */
		"jq . f.json", "sort f", "diff a b", "cmp a b", "file x", "stat x", "wc -l x",
		"head -n 5 x", "tail -n 5 x", "sha256sum f", "md5sum f", "base64 f", "tac f",
		"strings a.out", "zcat a.gz",
		/* a variable that hands no program */
		"LC_ALL=C sort f", "TZ=UTC date", "env LANG=C ls",
		NULL};
	for (size_t i = 0; lines[i]; i++) {
		roz_effect e;

		judge(lines[i], &e);
		if (!e.read_only || e.opaque || e.unknown_target || e.ntargets || e.why)
			fail_msg("'%s' should be read-only (why: %s)", lines[i], e.why ? e.why : "-");
		roz_effect_dispose(&e);
	}
}

/* The same programs with a subcommand or an option that writes, runs a program or changes state. */
static void test_writing_forms_of_reading_programs(void **state)
{
	(void)state;
	static const char *const lines[][2] = {
		{"docker rm x", "docker may write files"},
		{"docker run -it ubuntu", "docker may write files"},
		{"docker compose up -d", "docker may write files"},
		{"docker rm x --help", "docker may write files"},
		{"docker compose config -o out.yml", "docker compose config -o may write files or run a program"},
		{"docker --config ./d ps", "docker ps --config may write files or run a program"},
		{"docker --someflag ps", "docker may write files"},
		{"kubectl delete pod x", "kubectl may write files"},
		{"kubectl apply -f x.yaml", "kubectl may write files"},
		{"kubectl --kubeconfig ./k get pods", "kubectl get --kubeconfig may write files or run a program"},
		{"kubectl get pods --kubeconfig=./k", "kubectl get --kubeconfig may write files or run a program"},
		{"kubectl get pods -o wide --cache-dir=c", "kubectl get --cache-dir may write files or run a program"},
		{"kubectl cluster-info dump --output-directory=d",
		 "kubectl cluster-info dump --output-directory may write files or run a program"},
		{"gh pr merge 1", "gh may write files"},
		{"gh pr checkout 3", "gh may write files"},
		{"gh issue close 2", "gh may write files"},
		{"gh api -X DELETE repos/o/r", "gh api -X may write files or run a program"},
		{"gh api repos/o/r/issues -f title=x", "gh api -f may write files or run a program"},
		{"gh extension-name", "gh may write files"},
		{"gh pr list $opts", "gh with arguments computed when the line runs may write files"},
		{"tar -xzf a.tgz", "tar may write files"},
		{"tar xzf a.tgz", "tar may write files"},
		{"tar -czf a.tgz src", "tar may write files"},
		{"tar -tf a.tar --to-command=sh", "tar --to-command runs a program or writes a file of its own"},
		{"tar -t -I ./unpack -f a", "tar -I runs a program or writes a file of its own"},
		{"tar -tf a.tar --checkpoint-action=exec=sh",
		 "tar --checkpoint-action runs a program or writes a file of its own"},
		{"tar -tf host:/a.tar", "tar -f host:/a.tar reaches the archive through a remote shell"},
		{"unzip a.zip", "unzip may write files"},
		{"unzip -o a.zip -d out", "unzip may write files"},
		{"unzip -lT a.zip", "unzip may write files"},
		{"npm install", "npm may write files"},
		{"npm version patch", "npm may write files"},
		{"npm audit fix", "npm may write files"},
		{"npm ls --cache ./c", "npm ls --cache may write files or run a program"},
		{"npm ls --cach ./c", "npm ls --cach may write files or run a program"},
		{"pip install x", "pip may write files"},
		{"pip --log l.txt list", "pip list --log may write files or run a program"},
		{"pip list --python ./py", "pip list --python may write files or run a program"},
		{"pip list --lo l.txt", "pip list --lo may write files or run a program"},
		{"go env -w GOFLAGS=-x", "go env -w may write files or run a program"},
		{"go build ./...", "go may write files"},
		{"go vet --help extra", "go may write files"},
		{"cargo build", "cargo may write files"},
		{"python3 --version x.py", "python3 may write files"},
		{"python3 x.py --help", "python3 may write files"},
		{"node -e 1", "node may write files"},
		{"make -n", "make may write files"},
		{"make --help all", "make may write files"},
		{"git worktree add ../w", "git worktree may change files"},
		{"git worktree remove w", "git worktree may change files"},
		{"git stash push", "git stash may change files"},
		{"git stash pop", "git stash may change files"},
		{"git stash drop", "git stash may change files"},
		{"git config x y", "git config may change files"},
		{"lsof -D b", "lsof -D may write its device cache"},
		{"ss -K dst 10.0.0.1", "ss -K closes sockets"},
		{"terraform apply", "terraform may write files"},
		{"somethingnew --help", "somethingnew may write files"},
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		roz_effect e;

		judge(lines[i][0], &e);
		if (e.read_only || !e.opaque || !e.why || strcmp(e.why, lines[i][1]))
			fail_msg("'%s' should be opaque with '%s' (got %s)", lines[i][0], lines[i][1],
				 e.why ? e.why : "-");
		roz_effect_dispose(&e);
	}
}

/*
 * A line that hands a program to what it runs - through git's configuration,
 * its options or a variable - is never read-only, however harmless its
 * commands look: it runs under the selected intent, like a script.
 */
static void test_handed_programs_are_opaque(void **state)
{
	(void)state;
	static const char *const lines[][2] = {
		{"git -c core.fsmonitor=./x status", "git -c core.fsmonitor may run a program it names"},
		{"git -c diff.external=./x diff", "git -c diff.external may run a program it names"},
		{"git -c diff.md.textconv=./x diff", "git -c diff.md.textconv may run a program it names"},
		{"git -c core.sshCommand=./x ls-remote o", "git -c core.sshCommand may run a program it names"},
		{"git -c core.pager=./x log", "git -c core.pager may run a program it names"},
		{"git -c core.editor=./x status", "git -c core.editor may run a program it names"},
		{"git -c alias.st=!./x status", "git -c alias.st may run a program it names"},
		{"git -c include.path=./cfg status", "git -c include.path may run a program it names"},
		{"git -c includeIf.onbranch:x.path=./cfg log", "git -c includeIf.onbranch:x.path may run a program it names"},
		{"git -c core.hooksPath=./h status", "git -c core.hooksPath may run a program it names"},
		{"git -c 'safe.directory=*' status", "git -c safe.directory may run a program it names"},
		{"git -c pager.log=./x log", "git -c pager.log may run a program it names"},
		{"git -c \"$k=v\" status", "git with a subcommand known only when the line runs may change files"},
		{"git -C sub -c core.pager=./x log", "git -c core.pager may run a program it names"},
		{"git --config-env=core.pager=P log", "git --config-env may run a program the configuration names"},
		{"git --config-env core.pager=P log", "git --config-env may run a program the configuration names"},
		{"git --exec-path=./bin status", "git --exec-path runs git's programs from the directory it names"},
		{"git ls-remote --upload-pack=./x origin", "git ls-remote --upload-pack runs the program it names"},
		{"git ls-remote -u ./x origin", "git ls-remote --upload-pack runs the program it names"},
		{"git ls-remote 'ext::sh -c x' ", "git ls-remote ext::sh -c x runs the remote helper git-remote-ext"},
		{"GIT_EXTERNAL_DIFF=./x git diff", "GIT_EXTERNAL_DIFF set on this line hands a program to what runs"},
		{"GIT_SSH_COMMAND=./x git ls-remote o", "GIT_SSH_COMMAND set on this line hands a program to what runs"},
		{"GIT_SSH=./x git ls-remote o", "GIT_SSH set on this line hands a program to what runs"},
		{"GIT_PAGER=./x git log", "GIT_PAGER set on this line hands a program to what runs"},
		{"PAGER=./x git log", "PAGER set on this line hands a program to what runs"},
		{"GIT_EDITOR=./x git status", "GIT_EDITOR set on this line hands a program to what runs"},
		{"EDITOR=./x git status", "EDITOR set on this line hands a program to what runs"},
		{"LESSOPEN='|./x %s' less f", "LESSOPEN set on this line hands a program to what runs"},
		{"BASH_ENV=./x bash -c ls", "BASH_ENV set on this line hands a program to what runs"},
		{"ENV=./x sh -c ls", "ENV set on this line hands a program to what runs"},
		/* the shell reader already reads git as unknown from its subcommand on */
		{"GIT_CONFIG_GLOBAL=./cfg git log", "git with a subcommand known only when the line runs may change files"},
		{"GIT_CONFIG_PARAMETERS=x git log", "git with a subcommand known only when the line runs may change files"},
		{"export GIT_CONFIG_GLOBAL=./cfg; ls", "GIT_CONFIG_GLOBAL set on this line hands a program to what runs"},
		{"LD_PRELOAD=./x.so ls", "LD_PRELOAD set on this line hands a program to what runs"},
		{"PATH=./bin:$PATH ls", "PATH set on this line hands a program to what runs"},
		/* a value the line shows is read as the command git runs with it */
		{"export GIT_PAGER=./x; git log", "x may write files"},
		{"export PAGER; git log", "PAGER set on this line hands a program to what runs"},
		{"env GIT_PAGER=./x git log", "x may write files"},
		{"sudo PAGER=./x ls", "PAGER set on this line hands a program to what runs"},
		{"env -S 'PAGER=./x git log'", "PAGER set on this line hands a program to what runs"},
		{"KUBECONFIG=./k kubectl get pods", "KUBECONFIG set on this line hands a program to what runs"},
		/* a command's own reason comes first */
		{"git -c a.b=c push", "git push may change files"},
		{"PATH=/bin git push", "git push may change files"},
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		roz_effect e;

		judge(lines[i][0], &e);
		if (e.read_only || !e.opaque || !e.why || strcmp(e.why, lines[i][1]))
			fail_msg("'%s' should be opaque with '%s' (got %s)", lines[i][0], lines[i][1],
				 e.why ? e.why : "-");
		roz_effect_dispose(&e);
	}
}

/* A line that sets HOME moves `~`: targets under it are known only when it runs. */
static void test_home_set_on_the_line(void **state)
{
	(void)state;
	static const char *const lines[] = {"HOME=/tmp/h; echo x > ~/a", "HOME=src touch ~/a",
					    "export HOME=x; rm \"$HOME/a\"", "env HOME=x touch ~",
					    NULL};
	roz_effect e;

	for (size_t i = 0; lines[i]; i++) {
		judge(lines[i], &e);
		if (e.read_only || !e.unknown_target)
			fail_msg("'%s': a target under a HOME the line sets is unknown", lines[i]);
		roz_effect_dispose(&e);
	}
	judge("HOME=/tmp/h; echo x > ~/a", &e);
	assert_string_equal(e.why, "writes ~/a (redirection) under a HOME the line sets");
	roz_effect_dispose(&e);
	/* ~user and other targets stay known */
	judge("HOME=x; touch ~bob/a b", &e);
	assert_false(e.unknown_target);
	assert_int_equal(e.ntargets, 2);
	roz_effect_dispose(&e);
}

static void test_unknown_targets(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"echo x > $f", "echo x >> \"$d/x\"", "cp a \"$d\"", "mv $(ls) dir2 x", "rm -rf \"$tmp\"",
		"xargs rm", "find . -name '*.o' | xargs rm -f", "find . -exec rm {} +",
		"touch file-$(date +%s)", "tee \"$log\"", "dd if=a of=$out", "rm *.o",
		"git checkout -- $f", "sort -o \"$o\" f", "git restore --pathspec-from-file=list",
		NULL};
	for (size_t i = 0; lines[i]; i++) {
		roz_effect e;
		bool null_path = false;

		judge(lines[i], &e);
		for (size_t k = 0; k < e.ntargets; k++)
			null_path = null_path || !e.targets[k].path;
		if (e.read_only || !e.unknown_target || !null_path || !e.why)
			fail_msg("'%s' should have an unknown target (why %s)", lines[i],
				 e.why ? e.why : "-");
		roz_effect_dispose(&e);
	}
}

static void test_cd_makes_relative_targets_unknown(void **state)
{
	(void)state;
	roz_effect e;

	judge("cd x && echo > f", &e);
	assert_false(e.read_only);
	assert_true(e.unknown_target);
	assert_int_equal(e.ntargets, 1);
	assert_string_equal(e.targets[0].path, "f");
	assert_string_equal(e.why, "writes f (redirection) relative to a directory the line changes to");
	roz_effect_dispose(&e);

	static const char *const unknown[] = {
		"pushd sub; touch a; popd", "(cd sub; rm x)", "touch a; cd ..", "echo $(cd /; ls) > f",
		"git -C other checkout -- a.c", "bash -c 'cd /tmp' && rm y", NULL};
	for (size_t i = 0; unknown[i]; i++) {
		judge(unknown[i], &e);
		if (!e.unknown_target)
			fail_msg("'%s': a relative target after cd is unknown", unknown[i]);
		roz_effect_dispose(&e);
	}
	/* absolute and home targets stay known after a cd */
	static const char *const known[] = {"cd src && echo > /tmp/x", "cd src && touch ~/x",
					    "cd src && touch \"$HOME/x\"", NULL};
	for (size_t i = 0; known[i]; i++) {
		judge(known[i], &e);
		if (e.unknown_target || e.ntargets != 1)
			fail_msg("'%s': an absolute target stays known", known[i]);
		roz_effect_dispose(&e);
	}
}

static void test_select_id(void **state)
{
	(void)state;
	roz_effect e;

	judge("roz intent select INT-001", &e);
	assert_true(e.read_only);
	assert_string_equal(e.select_id, "INT-001");
	roz_effect_dispose(&e);

	judge("cd repo && roz intent select INT-002 && cat x", &e);
	assert_true(e.read_only);
	assert_string_equal(e.select_id, "INT-002");
	roz_effect_dispose(&e);

	judge("roz intent select \"$ID\"", &e);
	assert_null(e.select_id);
	roz_effect_dispose(&e);

	judge("roz intent show INT-001", &e);
	assert_true(e.read_only);
	assert_null(e.select_id);
	roz_effect_dispose(&e);

	judge("echo roz intent select INT-9", &e);
	assert_null(e.select_id);
	roz_effect_dispose(&e);
}

static void test_dynamic_and_unparsed_lines(void **state)
{
	(void)state;
	static const char *const lines[] = {"$cmd x", "eval \"$x\"", "echo 'unterminated",
					    "ls (", "$(echo rm) -rf x", NULL};
	for (size_t i = 0; lines[i]; i++) {
		roz_shell_result sh;
		roz_effect e;

		memset(&sh, 0, sizeof sh);
		assert_int_equal(roz_shell_parse(lines[i], strlen(lines[i]), &sh), ROZ_OK);
		assert_true(sh.flags != 0);
		assert_int_equal(roz_effect_of_bash(&sh, &e), ROZ_OK);
		if (e.read_only || !e.opaque || !e.why || strcmp(e.why, sh.reason))
			fail_msg("'%s' should be opaque with the reader's reason", lines[i]);
		roz_effect_dispose(&e);
		roz_shell_result_dispose(&sh);
	}
}

static void test_out_of_memory_leaves_nothing(void **state)
{
	(void)state;
	const char *line = "cp a b; mv c d; echo x > e; sed -i s/a/b/ f; make; roz intent select I";
	roz_shell_result sh;

	memset(&sh, 0, sizeof sh);
	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	for (int n = 0; n < 200; n++) {
		roz_effect e;

		roz_alloc_fail_after(n);
		int rc = roz_effect_of_bash(&sh, &e);

		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			assert_int_equal(e.ntargets, 5);
			roz_effect_dispose(&e);
			break;
		}
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(e.targets);
		assert_null(e.why);
		assert_null(e.select_id);
	}
	roz_shell_result_dispose(&sh);
	roz_effect_dispose(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tool_kinds),
		cmocka_unit_test(test_read_only_lines),
		cmocka_unit_test(test_lines_with_targets),
		cmocka_unit_test(test_opaque_lines),
		cmocka_unit_test(test_read_only_programs),
		cmocka_unit_test(test_writing_forms_of_reading_programs),
		cmocka_unit_test(test_handed_programs_are_opaque),
		cmocka_unit_test(test_home_set_on_the_line),
		cmocka_unit_test(test_unknown_targets),
		cmocka_unit_test(test_cd_makes_relative_targets_unknown),
		cmocka_unit_test(test_select_id),
		cmocka_unit_test(test_dynamic_and_unparsed_lines),
		cmocka_unit_test(test_out_of_memory_leaves_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
