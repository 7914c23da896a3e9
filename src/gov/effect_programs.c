/*
 * effect_programs.c - the tables of what programs do, and their lookups:
 *
 *   - commands that change nothing whatever their arguments (ls, ps, ...);
 *   - readers whose options can write or run programs, each with its judge
 *     (sort -o, sed -i, tar -x, ...);
 *   - programs with subcommands, the subcommands that only read (docker ps,
 *     kubectl get, gh pr view, npm ls, pip show, go env) and the options
 *     that make them write or run a program (go env -w, gh api -X,
 *     kubectl --kubeconfig);
 *   - the words that only print a program's help or version
 *     (python3 --version, cargo -V, docker rm --help);
 *   - what hands a program to what runs: variables (PAGER, GIT_SSH_COMMAND,
 *     LD_PRELOAD, ...) and the git configuration keys that cannot (color.ui).
 *
 * A program on none of these lists is opaque (effect.c): a command roz has
 * never heard of needs an intent rather than passing as harmless.
 */
#include <string.h>

#include "effect_int.h"

/* `len` bytes of `w` are one of the words of `list`, separated by single spaces. */
static bool listed(const char *list, const char *w, size_t len)
{
	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n == len && !memcmp(list, w, len))
			return true;
		list += n;
		while (*list == ' ')
			list++;
	}
	return false;
}

/* ---- programs that only read -------------------------------------------- */

static const char *const plain_readers[] = {
	"ls", "cat", "head", "tail", "more", "grep", "egrep", "fgrep", "ag", "wc", "cut", "tr",
	"diff", "cmp", "comm", "stat", "du", "df", "pwd", "echo", "printf", "true", "false",
	"test", "[", "which", "type", "whoami", "id", "uname", "basename", "dirname", "realpath",
	"readlink", "jq", "od", "hexdump", "md5sum", "sha1sum", "sha224sum", "sha256sum",
	"sha384sum", "sha512sum", "b2sum", "cksum", "nl", "rev", "seq", "sleep", "printenv",
	"cd", "pushd", "popd", ":", "dirs", "tty", "nproc", "groups", "locale", "column",
	/* text that is only printed */
	"tac", "paste", "join", "fold", "fmt", "expand", "unexpand", "strings", "base32",
	"base64", "basenc", "numfmt", "expr", "factor", "sum", "zcat", "bzcat", "xzcat",
	"zipinfo", "whereis", "cal",
	/* the system as it is: processes, memory, users, hardware */
	"ps", "pgrep", "pidof", "uptime", "free", "top", "vmstat", "iostat", "mpstat",
	"netstat", "w", "who", "users", "last", "logname", "arch", "getconf", "getent",
	"lscpu", "lsblk", "lspci", "lsusb",
	/* builtins that change only the shell's own state */
	"export", "unset", "set", "shopt", "local", "declare", "typeset", "readonly", "read",
	"exit", "return", "shift", "wait", "break", "continue", "alias", "unalias", "hash",
	NULL};

bool effect_plain_reader(const char *name)
{
	return effect_in_list(plain_readers, name);
}

/* ---- readers with options that write or run programs --------------------- */

/* Judged only on static words (git and find excepted: they judge computed words themselves). */
struct reader {
	const char *name;
	effect_judge_fn judge;
};

static const struct reader readers[] = {
	{"find", effect_judge_find},   {"sort", effect_judge_sort},   {"uniq", effect_judge_uniq},
	{"sed", effect_judge_sed},     {"awk", effect_judge_awk},     {"gawk", effect_judge_awk},
	{"mawk", effect_judge_awk},    {"nawk", effect_judge_awk},    {"yq", effect_judge_yq},
	{"xxd", effect_judge_xxd},     {"tree", effect_judge_tree},   {"less", effect_judge_less},
	{"rg", effect_judge_rg},       {"file", effect_judge_file},   {"date", effect_judge_date},
	{"hostname", effect_judge_hostname}, {"git", effect_judge_git},
	{"tar", effect_judge_tar},     {"unzip", effect_judge_unzip}, {"lsof", effect_judge_lsof},
	{"ss", effect_judge_ss},       {NULL, NULL}};

effect_judge_fn effect_reader(const char *name)
{
	for (size_t i = 0; readers[i].name; i++)
		if (!strcmp(readers[i].name, name))
			return readers[i].judge;
	return NULL;
}

/* ---- programs with subcommands ------------------------------------------- */

/* A subcommand that only reads. */
struct sub {
	const char *path; /* its words after the program, one space between: "image ls", "pr view" */
	const char *deny; /* its options that write or run a program, space-separated; NULL: none */
	int ops;          /* most operands it may take and still only read; -1: any */
};

/*
 * A program whose subcommands are known. Options before the subcommand (or
 * between its words) must be on `flags` or `valued`: an option roz does not
 * know may take the next word as its value, and then the subcommand is not
 * the word it seems. `deny` options make any subcommand write or run a
 * program. Option lists are space-separated; a long option is written with
 * its dashes, a short one as `-x` (then it counts inside a cluster `-ax`).
 */
struct program {
	const char *name;
	const char *help;       /* words that, alone after the name, print help or a version */
	const char *flags;      /* options before the subcommand that take no value */
	const char *valued;     /* options before the subcommand that take the next word (or `=v`) */
	const char *deny;       /* options anywhere that write or run a program */
	const char *exact;      /* with `abbrev`: options that are not abbreviations of a denied one */
	const struct sub *reads;     /* subcommands that only read, {NULL}-terminated; NULL: none */
	const char *const *others;   /* subcommands that change things (`SUB --help` only prints) */
	bool abbrev;            /* long options may be abbreviated (optparse, nopt) */
};

static const struct sub docker_reads[] = {
	{"ps", NULL, -1}, {"images", NULL, -1}, {"logs", NULL, -1}, {"inspect", NULL, -1},
	{"version", NULL, -1}, {"info", NULL, -1}, {"top", NULL, -1}, {"stats", NULL, -1},
	{"history", NULL, -1}, {"port", NULL, -1}, {"diff", NULL, -1}, {"events", NULL, -1},
	{"search", NULL, -1},
	{"image ls", NULL, -1}, {"image list", NULL, -1}, {"image inspect", NULL, -1},
	{"image history", NULL, -1},
	{"container ls", NULL, -1}, {"container list", NULL, -1}, {"container ps", NULL, -1},
	{"container inspect", NULL, -1}, {"container logs", NULL, -1},
	{"container top", NULL, -1}, {"container port", NULL, -1}, {"container diff", NULL, -1},
	{"container stats", NULL, -1},
	{"volume ls", NULL, -1}, {"volume list", NULL, -1}, {"volume inspect", NULL, -1},
	{"network ls", NULL, -1}, {"network list", NULL, -1}, {"network inspect", NULL, -1},
	{"context ls", NULL, -1}, {"context list", NULL, -1}, {"context inspect", NULL, -1},
	{"context show", NULL, -1},
	{"system df", NULL, -1}, {"system info", NULL, -1}, {"system events", NULL, -1},
	{"compose ps", NULL, -1}, {"compose ls", NULL, -1}, {"compose logs", NULL, -1},
	{"compose images", NULL, -1}, {"compose top", NULL, -1}, {"compose version", NULL, -1},
	{"compose config", "-o --output", -1},
	{"buildx ls", NULL, -1}, {"buildx version", NULL, -1},
	{"buildx inspect", "--bootstrap", -1},
	{"manifest inspect", NULL, -1},
	{"node ls", NULL, -1}, {"node inspect", NULL, -1}, {"node ps", NULL, -1},
	{"service ls", NULL, -1}, {"service ps", NULL, -1}, {"service inspect", NULL, -1},
	{"service logs", NULL, -1},
	{"stack ls", NULL, -1}, {"stack ps", NULL, -1}, {"stack services", NULL, -1},
	{"plugin ls", NULL, -1}, {"plugin inspect", NULL, -1},
	{"secret ls", NULL, -1}, {"secret inspect", NULL, -1},
	{"config ls", NULL, -1}, {"config inspect", NULL, -1},
	{NULL, NULL, 0}};

static const char *const docker_others[] = {
	"run", "exec", "rm", "rmi", "build", "pull", "push", "start", "stop", "restart", "kill",
	"create", "cp", "commit", "tag", "login", "logout", "save", "load", "import", "export",
	"rename", "update", "pause", "unpause", "attach", "wait", "init",
	"image rm", "image prune", "image build", "image pull", "image push", "image tag",
	"image save", "image load", "image import",
	"container rm", "container prune", "container run", "container exec", "container stop",
	"container start", "container kill", "container restart", "container create",
	"container cp", "container commit", "container update", "container rename",
	"volume rm", "volume create", "volume prune",
	"network rm", "network create", "network prune", "network connect", "network disconnect",
	"system prune", "builder prune", "context create", "context rm", "context use",
	"context update", "context import", "context export",
	"compose up", "compose down", "compose build", "compose run", "compose exec",
	"compose rm", "compose stop", "compose start", "compose restart", "compose pull",
	"compose push", "compose kill", "compose create", "compose cp", "compose pause",
	"compose unpause", "compose watch",
	"buildx build", "buildx bake", "buildx create", "buildx rm", "buildx use", "buildx prune",
	"manifest create", "manifest push", "manifest annotate",
	"plugin install", "plugin rm", "plugin enable", "plugin disable",
	"service create", "service rm", "service update", "service scale", "service rollback",
	"stack deploy", "stack rm", "swarm init", "swarm join", "swarm leave",
	"secret create", "secret rm", "config create", "config rm", "node rm", "node update",
	NULL};

static const struct sub kubectl_reads[] = {
	{"get", NULL, -1}, {"describe", NULL, -1}, {"logs", NULL, -1}, {"explain", NULL, -1},
	{"version", NULL, -1}, {"api-resources", NULL, -1}, {"api-versions", NULL, -1},
	{"cluster-info", NULL, -1}, {"cluster-info dump", "--output-directory", -1},
	{"top", NULL, -1}, {"events", NULL, -1},
	{"config view", NULL, -1}, {"config get-contexts", NULL, -1},
	{"config current-context", NULL, -1}, {"config get-clusters", NULL, -1},
	{"config get-users", NULL, -1},
	{"auth can-i", NULL, -1}, {"auth whoami", NULL, -1},
	{"rollout status", NULL, -1}, {"rollout history", NULL, -1},
	{"plugin list", NULL, -1}, {"options", NULL, -1}, {"completion", NULL, -1},
	{NULL, NULL, 0}};

static const char *const kubectl_others[] = {
	"apply", "delete", "create", "edit", "patch", "replace", "scale", "autoscale", "exec",
	"run", "expose", "label", "annotate", "set", "cp", "port-forward", "proxy", "drain",
	"cordon", "uncordon", "taint", "attach", "debug", "diff", "kustomize", "certificate",
	"wait",
	"rollout restart", "rollout undo", "rollout pause", "rollout resume",
	"config set", "config set-context", "config use-context", "config delete-context",
	"config set-cluster", "config set-credentials", "config unset", "config rename-context",
	"config delete-cluster", "config delete-user",
	NULL};

static const struct sub gh_reads[] = {
	{"pr view", NULL, -1}, {"pr list", NULL, -1}, {"pr status", NULL, -1},
	{"pr diff", NULL, -1}, {"pr checks", NULL, -1},
	{"issue view", NULL, -1}, {"issue list", NULL, -1}, {"issue status", NULL, -1},
	{"run list", NULL, -1}, {"run view", NULL, -1}, {"run watch", NULL, -1},
	{"repo view", NULL, -1}, {"repo list", NULL, -1},
	{"release list", NULL, -1}, {"release view", NULL, -1},
	{"workflow list", NULL, -1}, {"workflow view", NULL, -1},
	{"search repos", NULL, -1}, {"search issues", NULL, -1}, {"search prs", NULL, -1},
	{"search code", NULL, -1}, {"search commits", NULL, -1},
	{"status", NULL, -1}, {"auth status", NULL, -1},
	/* a request with a method, fields or a body may change what it names */
	{"api", "-X --method -f -F --field --raw-field --input", -1},
	{"label list", NULL, -1}, {"gist list", NULL, -1}, {"gist view", NULL, -1},
	{"secret list", NULL, -1}, {"variable list", NULL, -1}, {"variable get", NULL, -1},
	{"cache list", NULL, -1}, {"ruleset list", NULL, -1}, {"ruleset view", NULL, -1},
	{"org list", NULL, -1}, {"extension list", NULL, -1}, {"alias list", NULL, -1},
	{"config get", NULL, -1}, {"config list", NULL, -1},
	{NULL, NULL, 0}};

static const char *const gh_others[] = {
	"pr create", "pr merge", "pr close", "pr reopen", "pr edit", "pr checkout", "pr comment",
	"pr review", "pr ready", "pr lock", "pr unlock",
	"issue create", "issue close", "issue reopen", "issue edit", "issue comment",
	"issue delete", "issue transfer", "issue pin", "issue unpin", "issue lock",
	"issue unlock", "issue develop",
	"repo clone", "repo create", "repo fork", "repo delete", "repo edit", "repo sync",
	"repo archive", "repo rename",
	"release create", "release delete", "release upload", "release download", "release edit",
	"run rerun", "run cancel", "run download", "run delete",
	"workflow run", "workflow enable", "workflow disable",
	"gist create", "gist edit", "gist delete", "gist clone",
	"secret set", "secret delete", "variable set", "variable delete",
	"auth login", "auth logout", "auth refresh", "auth setup-git",
	"extension install", "extension remove", "extension upgrade",
	"alias set", "alias delete", "config set", "label create", "label edit", "label delete",
	"cache delete", "browse",
	NULL};

static const struct sub npm_reads[] = {
	{"ls", NULL, -1}, {"list", NULL, -1}, {"ll", NULL, -1}, {"la", NULL, -1},
	{"view", NULL, -1}, {"info", NULL, -1}, {"show", NULL, -1}, {"v", NULL, -1},
	{"outdated", NULL, -1}, {"config get", NULL, -1}, {"config list", NULL, -1},
	{"config ls", NULL, -1}, {"get", NULL, -1}, {"prefix", NULL, 0}, {"root", NULL, 0},
	{"whoami", NULL, 0}, {"search", NULL, -1}, {"explain", NULL, -1}, {"why", NULL, -1},
	{"help", NULL, -1}, {"help-search", NULL, -1}, {"query", NULL, -1}, {"fund", NULL, -1},
	{"sbom", NULL, 0}, {"ping", NULL, 0}, {"pkg get", NULL, -1},
	/* `npm audit fix` and `npm version patch` write */
	{"audit", NULL, 0}, {"audit signatures", NULL, 0}, {"version", NULL, 0},
	{NULL, NULL, 0}};

static const char *const npm_others[] = {
	"install", "i", "add", "ci", "uninstall", "un", "remove", "rm", "update", "up", "run",
	"run-script", "exec", "x", "test", "t", "start", "stop", "restart", "publish",
	"unpublish", "link", "ln", "init", "create", "pack", "prune", "dedupe", "rebuild", "cache",
	"set", "deprecate", "dist-tag", "owner", "team", "token", "login", "logout", "adduser",
	"star", "unstar", "shrinkwrap", "edit", "explore", "diff", "org", "access", "hook",
	"profile", "bugs", "docs", "repo", "doctor", "audit fix", "config set", "config delete",
	"config edit", "pkg set", "pkg delete", "pkg fix",
	NULL};

static const struct sub pip_reads[] = {
	{"list", NULL, -1}, {"show", NULL, -1}, {"freeze", NULL, -1}, {"check", NULL, -1},
	{"config list", NULL, -1}, {"config get", NULL, -1}, {"config debug", NULL, -1},
	{"debug", NULL, -1}, {"inspect", NULL, -1}, {"help", NULL, -1}, {"hash", NULL, -1},
	{"index versions", NULL, -1}, {"cache dir", NULL, -1}, {"cache info", NULL, -1},
	{"cache list", NULL, -1}, {"search", NULL, -1},
	{NULL, NULL, 0}};

static const char *const pip_others[] = {
	"install", "uninstall", "download", "wheel", "lock", "config set", "config unset",
	"config edit", "cache purge", "cache remove", NULL};

static const struct sub go_reads[] = {
	{"version", NULL, -1}, {"env", "-w -u --w --u", -1}, {"help", NULL, -1},
	{NULL, NULL, 0}};

static const char *const go_others[] = {
	"build", "run", "test", "install", "get", "mod", "generate", "vet", "fmt", "clean", "work",
	"tool", "list", "fix", "doc", "bug", "telemetry", NULL};

static const struct sub cargo_reads[] = {{"version", NULL, -1}, {"help", NULL, -1}, {NULL, NULL, 0}};

static const char *const cargo_others[] = {
	"build", "b", "check", "c", "run", "r", "test", "t", "bench", "doc", "d", "new", "init",
	"add", "remove", "update", "install", "uninstall", "publish", "clean", "fmt", "clippy",
	"fix", "fetch", "vendor", "package", "tree", "metadata", "search", "login",
	"generate-lockfile", NULL};

static const struct sub helm_reads[] = {
	{"version", NULL, -1}, {"list", NULL, -1}, {"ls", NULL, -1}, {"status", NULL, -1},
	{"history", NULL, -1}, {"env", NULL, -1}, {"repo list", NULL, -1},
	{"plugin list", NULL, -1}, {"search repo", NULL, -1}, {"search hub", NULL, -1},
	{"show chart", NULL, -1}, {"show values", NULL, -1}, {"get values", NULL, -1},
	{"get manifest", NULL, -1}, {"get all", NULL, -1},
	{NULL, NULL, 0}};

static const char *const helm_others[] = {
	"install", "upgrade", "uninstall", "delete", "rollback", "template", "package", "pull",
	"push", "create", "lint", "test", "repo add", "repo remove", "repo update",
	"dependency build", "dependency update", "plugin install", "plugin uninstall", NULL};

static const struct sub terraform_reads[] = {{"version", NULL, -1}, {NULL, NULL, 0}};
static const struct sub openssl_reads[] = {{"version", NULL, -1}, {NULL, NULL, 0}};

static const struct program programs[] = {
	{.name = "docker", .help = "--help -h --version -v",
	 .flags = "-D --debug --tls --tlsverify --all-resources --compatibility --dry-run",
	 .valued = "-c --context -H --host -l --log-level --tlscacert --tlscert --tlskey "
		   "-f --file -p --project-name --project-directory --env-file --profile --ansi "
		   "--progress --parallel",
	 /* the plugins of the directory it names run as docker's subcommands */
	 .deny = "--config",
	 .reads = docker_reads, .others = docker_others},
	{.name = "kubectl", .help = "--help -h",
	 .flags = "--insecure-skip-tls-verify --match-server-version --warnings-as-errors "
		  "--disable-compression",
	 .valued = "-n --namespace --context --cluster --user -s --server --token --as "
		   "--as-group --as-uid --request-timeout -v --v --vmodule "
		   "--certificate-authority --client-certificate --client-key --tls-server-name "
		   "--username --password",
	 /* a kubeconfig's credential plugins are programs; caches, profiles and logs are files */
	 .deny = "--kubeconfig --cache-dir --profile --profile-output --log-file --log_file "
		 "--log-dir --log_dir",
	 .reads = kubectl_reads, .others = kubectl_others},
	{.name = "gh", .help = "--help -h --version", .reads = gh_reads, .others = gh_others},
	{.name = "npm", .help = "--help -h --version -v",
	 .flags = "-g --global --json -l --long -p --parseable --all -a --prod --production --dev "
		  "--workspaces -ws --include-workspace-root --no-color -s --silent -q --quiet -d "
		  "--verbose --offline --prefer-offline --prefer-online",
	 .valued = "-w --workspace --loglevel --registry --prefix --depth --omit --include "
		   "--color --tag",
	 .deny = "--cache --logs-dir --userconfig --globalconfig",
	 .reads = npm_reads, .others = npm_others, .abbrev = true},
	{.name = "pip", .help = "--help -h --version -V",
	 .flags = "-v --verbose -q --quiet --isolated --no-input --no-color "
		  "--disable-pip-version-check --require-virtualenv --no-python-version-warning "
		  "--no-cache-dir",
	 .valued = "--proxy --retries --timeout --exists-action --trusted-host --cert "
		   "--client-cert --use-feature --use-deprecated --keyring-provider",
	 /* --python runs the interpreter it names */
	 .deny = "--log --log-file --local-log --cache-dir --python", .exact = "--local",
	 .reads = pip_reads, .others = pip_others, .abbrev = true},
	{.name = "pip3", .help = "--help -h --version -V",
	 .flags = "-v --verbose -q --quiet --isolated --no-input --no-color "
		  "--disable-pip-version-check --require-virtualenv --no-python-version-warning "
		  "--no-cache-dir",
	 .valued = "--proxy --retries --timeout --exists-action --trusted-host --cert "
		   "--client-cert --use-feature --use-deprecated --keyring-provider",
	 .deny = "--log --log-file --local-log --cache-dir --python", .exact = "--local",
	 .reads = pip_reads, .others = pip_others, .abbrev = true},
	{.name = "go", .help = "--help -h -help", .valued = "-C",
	 .reads = go_reads, .others = go_others},
	{.name = "cargo", .help = "--help -h --version -V --list",
	 .reads = cargo_reads, .others = cargo_others},
	{.name = "helm", .help = "--help -h",
	 .flags = "--debug", .valued = "-n --namespace --kube-context",
	 .deny = "--kubeconfig --registry-config --repository-config --repository-cache",
	 .reads = helm_reads, .others = helm_others},
	{.name = "terraform", .help = "--help -help -h --version -version -v",
	 .reads = terraform_reads},
	{.name = "openssl", .help = "--help -help", .reads = openssl_reads},
	/* only their help and version words are known: any other use may write files */
	{.name = "python", .help = "--version -V --help -h"},
	{.name = "python2", .help = "--version -V --help -h"},
	{.name = "python3", .help = "--version -V --help -h"},
	{.name = "node", .help = "--version -v --help -h"},
	{.name = "nodejs", .help = "--version -v --help -h"},
	{.name = "deno", .help = "--version -V --help -h"},
	{.name = "bun", .help = "--version -v --help -h"},
	{.name = "npx", .help = "--version -v --help -h"},
	{.name = "yarn", .help = "--version -v --help -h"},
	{.name = "pnpm", .help = "--version -v --help -h"},
	{.name = "ruby", .help = "--version --help -h"},
	{.name = "perl", .help = "--version -v --help -h"},
	{.name = "php", .help = "--version -v --help -h"},
	{.name = "java", .help = "--version -version --help -help"},
	{.name = "javac", .help = "--version -version --help -help"},
	{.name = "rustc", .help = "--version -V --help -h"},
	{.name = "rustup", .help = "--version -V --help -h"},
	{.name = "gcc", .help = "--version --help"},
	{.name = "g++", .help = "--version --help"},
	{.name = "cc", .help = "--version --help"},
	{.name = "c++", .help = "--version --help"},
	{.name = "clang", .help = "--version --help"},
	{.name = "clang++", .help = "--version --help"},
	{.name = "cmake", .help = "--version --help"},
	{.name = "make", .help = "--version -v --help -h"},
	{.name = "gmake", .help = "--version -v --help -h"},
	{.name = "ninja", .help = "--version --help -h"},
	{.name = "bash", .help = "--version --help"},
	{.name = "zsh", .help = "--version --help"},
	{.name = "curl", .help = "--version -V --help -h"},
	{.name = "wget", .help = "--version -V --help -h"},
	{.name = "ssh", .help = "-V"},
	{.name = "sqlite3", .help = "--version -version --help -help"},
	{.name = "psql", .help = "--version -V --help"},
	{.name = NULL}};

static const struct program *find_program(const char *name)
{
	for (size_t i = 0; programs[i].name; i++)
		if (!strcmp(programs[i].name, name))
			return &programs[i];
	return NULL;
}

/* Bytes of option word `s` before its `=value`. */
static size_t opt_len(const char *s)
{
	return strcspn(s, "=");
}

/* Option word `s` is one of `list`, as p reads options (see struct program). */
static bool opt_in(const struct program *p, const char *list, const char *s)
{
	size_t len = opt_len(s);

	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n == 2 && list[0] == '-' && list[1] != '-') {
			/* a short option, alone or in a cluster of them */
			if (s[0] == '-' && s[1] != '-' && memchr(s + 1, list[1], len - 1))
				return true;
		} else if (n == len && !memcmp(list, s, len)) {
			return true;
		} else if (p->abbrev && list[1] == '-' && s[1] == '-' && len > 2 && len < n &&
			   !memcmp(list, s, len) && !listed(p->exact, s, len)) {
			return true; /* an abbreviation of it */
		}
		list += n;
		while (*list == ' ')
			list++;
	}
	return false;
}

/* Where the subcommand's words are: up to 3, with the options before and between them known. */
struct found {
	size_t at[3];
	size_t n;
};

static void find_words(const struct program *p, const roz_shell_cmd *c, struct found *f)
{
	size_t i = 1;

	memset(f, 0, sizeof *f);
	while (i < c->nwords && f->n < 3) {
		const char *s = c->words[i];
		size_t len = opt_len(s);

		if (s[0] != '-' || !s[1]) {
			f->at[f->n++] = i++;
			continue;
		}
		if (listed(p->valued, s, len) || listed(p->deny, s, len))
			i += s[len] == '=' ? 1 : 2; /* the denied options all take a value */
		else if (!s[len] && listed(p->flags, s, len))
			i++;
		else
			return; /* an option roz does not know: it may take the next word */
	}
}

/* The subcommand path `path` is the words at f->at[0..): its length in words, or 0. */
static size_t path_match(const roz_shell_cmd *c, const struct found *f, const char *path)
{
	size_t k = 0;

	while (*path) {
		size_t n = strcspn(path, " ");

		if (k == f->n || strlen(c->words[f->at[k]]) != n || memcmp(c->words[f->at[k]], path, n))
			return 0;
		k++;
		path += n;
		while (*path == ' ')
			path++;
	}
	return k;
}

bool effect_judge_program(struct ctx *x, const roz_shell_cmd *c)
{
	const struct program *p = find_program(c->words[0]);
	const struct sub *best = NULL;
	size_t bestk = 0, end, ops = 0;
	bool reads = false;
	struct found f;

	if (!p)
		return false;
	if (c->nwords == 2 && effect_args_static(c) &&
	    listed(p->help, c->words[1], strlen(c->words[1])))
		return true;
	if (!p->reads) {
		OPAQUE(x, "%s may write files", p->name);
		return true;
	}
	find_words(p, c, &f);
	for (size_t i = 0; p->reads[i].path; i++) {
		size_t k = path_match(c, &f, p->reads[i].path);

		if (k > bestk) {
			best = &p->reads[i];
			bestk = k;
			reads = true;
		}
	}
	for (size_t i = 0; p->others && p->others[i]; i++) {
		size_t k = path_match(c, &f, p->others[i]);

		if (k > bestk) {
			bestk = k;
			reads = false;
		}
	}
	end = bestk ? f.at[bestk - 1] + 1 : c->nwords;
	if (bestk && !reads && end + 1 == c->nwords && !strcmp(c->words[end], "--help") &&
	    effect_args_static(c))
		return true; /* `docker rm --help` prints what rm would do */
	if (!effect_args_static(c) && (!bestk || reads)) {
		/* a computed word could be a subcommand or an option that writes */
		OPAQUE(x, "%s with arguments computed when the line runs may write files", p->name);
		return true;
	}
	if (!bestk || !reads) {
		OPAQUE(x, "%s may write files", p->name);
		return true;
	}
	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (s[0] != '-' || !s[1]) {
			ops += i >= end;
		} else if (opt_in(p, p->deny, s) || (i >= end && opt_in(p, best->deny, s))) {
			OPAQUE(x, "%s %s %.*s may write files or run a program", p->name, best->path,
			       (int)opt_len(s), s);
			return true;
		}
	}
	if (best->ops >= 0 && ops > (size_t)best->ops)
		OPAQUE(x, "%s may write files", p->name);
	return true;
}

/* ---- what hands a program to what runs ------------------------------------- */

/*
 * Variables through which a command runs a program, loads code or reads a
 * configuration the line names: set on the line, they make what it runs do
 * more than its words say.
 */
static const char *const program_vars[] = {
	"GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "PAGER", "MANPAGER",
	"GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "SSH_ASKPASS",
	"GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "LESSOPEN", "LESSCLOSE", "LESS", "BASH_ENV", "ENV",
	"SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "PATH", "HOME", "XDG_CONFIG_HOME",
	"BROWSER", "GH_BROWSER", "GH_PAGER", "GH_EDITOR", "KUBE_EDITOR", "KUBECONFIG",
	"KUBECTL_EXTERNAL_DIFF", "DOCKER_CONFIG", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
	"NODE_OPTIONS", "PERL5OPT", "PERL5LIB", "RUBYOPT", "TAR_OPTIONS", "TAPE", NULL};

/* ... and the families of them: git's configuration and traces, the dynamic loader's. */
static const char *const program_var_prefixes[] = {
	"GIT_CONFIG", "GIT_TRACE", "LD_", "DYLD_", "BASH_FUNC_", "npm_config_", "NPM_CONFIG_",
	"PIP_", NULL};

bool effect_variable_runs(const char *name, size_t len)
{
	for (size_t i = 0; program_vars[i]; i++)
		if (strlen(program_vars[i]) == len && !memcmp(program_vars[i], name, len))
			return true;
	for (size_t i = 0; program_var_prefixes[i]; i++) {
		size_t n = strlen(program_var_prefixes[i]);

		if (len >= n && !memcmp(program_var_prefixes[i], name, n))
			return true;
	}
	return false;
}

/*
 * git configuration that only changes how git shows what it reads. Any
 * other key given with `git -c` may name a program git runs (core.pager,
 * core.fsmonitor, diff.external, diff.<driver>.textconv, alias.*,
 * include.path, ...), so the line is not read-only.
 */
static const char *const harmless_sections[] = {
	"color", "column", "advice", "i18n", "status", "grep", "blame", "log", "pretty",
	"versionsort", "user", "init", "tag", "branch", NULL};

static const char *const harmless_keys[] = {
	"core.quotepath", "core.abbrev", "core.autocrlf", "core.safecrlf", "core.eol",
	"core.ignorecase", "core.precomposeunicode", "core.filemode", "core.longpaths",
	"core.commentchar", "core.commentstring", "core.whitespace", "core.untrackedcache",
	"core.preloadindex", "core.checkstat", "core.trustctime", "core.symlinks",
	"core.warnambiguousrefs", "protocol.version", "merge.conflictstyle", NULL};

static bool same_fold(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ca = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];

		if (ca != b[i])
			return false;
	}
	return true;
}

bool effect_git_key_harmless(const char *key, size_t len)
{
	const char *dot = memchr(key, '.', len), *last;
	size_t sec;

	if (!dot)
		return false;
	sec = (size_t)(dot - key);
	for (size_t i = 0; harmless_sections[i]; i++)
		if (strlen(harmless_sections[i]) == sec && same_fold(key, harmless_sections[i], sec))
			return true;
	for (size_t i = 0; harmless_keys[i]; i++)
		if (strlen(harmless_keys[i]) == len && same_fold(key, harmless_keys[i], len))
			return true;
	/* diff.<name>: how diffs look, but diff.external and diff.<driver>.* run programs */
	last = key + len;
	while (last > dot + 1 && last[-1] != '.')
		last--;
	return sec == 4 && same_fold(key, "diff", 4) && last == dot + 1 &&
	       !(len - sec - 1 == 8 && same_fold(dot + 1, "external", 8));
}
