/*
 * roz/destructive.h - commands that destroy work, for the person to confirm.
 *
 * A destructive command is answered `ask` whether governance is on or off.
 * Each simple command the shell reader finds is judged, so every spelling
 * the reader normalizes is caught: `sudo rm -rf x`, `command rm`, `\rm`,
 * `/bin/rm`, `xargs rm -rf`, `find . -exec rm -rf {} +`, `bash -c '...'`,
 * `$(...)`, `git -C repo push -f`. Arguments are data: `echo "rm -rf /"` and
 * `grep -r "rm -rf" .` are not commands. Options are read as the tool reads
 * them: `-rf`, `-r -f`, options after operands, `--` ending them, values
 * (`-o x`, `--exclude x`, `--opt=x`), and long options by any prefix the
 * program itself takes. Each program's long options are listed (git's per
 * subcommand, GNU rm's, chmod's), and a prefix is that option when it begins
 * no other (`git reset --ha`, `rm --r`, `git clean --fo`). A prefix that
 * begins several is refused by the program, so it is let through (`git push
 * --fo`: --force-if-includes or --follow-tags) - unless every option it
 * begins means the same to the rule (`git push --forc`). git's `--no-<opt>`
 * takes back an option that makes a command safe (`git clean -n --no-dry
 * -f` asks). An option whose name is computed when the line runs counts as
 * every option it could become (`rm -$flags dir`, `git push --$opt` ask).
 *
 * The built-in rules, by name:
 *
 *   rm-recursive       rm with -r, -R or --recursive, unless every operand is
 *                      known before the line runs and lies strictly inside a
 *                      tmp dir after folding `..` (`rm -rf /tmp/x/../../etc`
 *                      is caught; a glob inside a tmp dir is fine). A computed
 *                      operand or arguments xargs appends count as outside.
 *                      `rm -f file` alone is not recursive and is let through.
 *   git-push-force     git push with --force/-f (also `-uf`), --force-with-lease,
 *                      --force-if-includes, --mirror, --delete/-d, --prune, or
 *                      a refspec starting with `+` or `:`, unless -n/--dry-run.
 *                      A refspec computed when the line runs is let through.
 *   git-reset-hard     git reset --hard or --merge (both can throw away
 *                      uncommitted changes); --keep refuses instead of losing
 *                      them and is let through, as are --soft and --mixed.
 *   git-checkout-discard  git checkout -- <path>, <rev> -- <path>, `.`, -f, or
 *                      two or more operands (a revision and paths), --ours or
 *                      --theirs with paths, --pathspec-from-file. A single
 *                      operand is read as a branch, which git will not switch
 *                      to over local changes; `-b`/`-B` create branches.
 *   git-restore-worktree  git restore without --staged, or with --worktree.
 *   git-clean-force    git clean with -f/--force in any combination, unless
 *                      -n/--dry-run.
 *   git-branch-force-delete  git branch -D, -df/-fd, --delete --force.
 *   git-stash-drop     git stash drop, git stash clear.
 *   find-delete        find with -delete, or rm or unlink run by find's -exec,
 *                      -execdir, -ok or -okdir on what it finds (`find . -exec
 *                      rm {} +`, also through a wrapper such as sudo);
 *                      `-exec rm -r` is caught by rm-recursive first. Paths find
 *                      feeds through a pipe (`| xargs rm`) are not followed.
 *   dd-output          dd with of= (not of=/dev/null); `dd if=a` only reads.
 *   mkfs               mkfs, mkfs.*, mke2fs, mkswap, wipefs.
 *   shred              shred.
 *   chmod-recursive-root  chmod/chown/chgrp -R on /, ~, $HOME, /home, /etc,
 *                      /usr, /var, /bin, /sbin, /lib, /boot, /root or /opt
 *                      (after folding), or on an operand computed when the
 *                      line runs. `chmod -R u+w build` is let through.
 *   sql-drop           DROP [TEMPORARY|MATERIALIZED|FOREIGN] TABLE|DATABASE|
 *                      SCHEMA|VIEW|INDEX or TRUNCATE, as whole words in any
 *                      case, in any argument of psql, mysql, mariadb, sqlite3,
 *                      duckdb, clickhouse-client or `cockroach sql`, also as
 *                      a value stuck to a short option (`mysql -e"DROP ..."`).
 *                      Between DROP and the object, comments are skipped as
 *                      every one of those dialects could read them (`--` and
 *                      `#` to the line's end, block comments closed at the
 *                      first close or nested as PostgreSQL nests them, MySQL's
 *                      executable `!` comments read as code), and any
 *                      reading that finds an object asks. Quotes inside
 *                      the SQL are not read: `select 'drop table'` asks too,
 *                      because a wrong ask costs a click and a missed drop
 *                      costs the data. SQL fed through a here-document or a
 *                      file is not seen.
 *   git-switch-discard git switch -f/--force or --discard-changes.
 *   git-rm-force       git rm -f/--force (`-rf`, `-r -f`), unless --cached
 *                      (the index only) or -n/--dry-run. Plain `git rm f`
 *                      refuses a file whose changes git has not recorded, so
 *                      it is let through (what it deletes is in HEAD).
 *   git-checkout-index-force  git checkout-index -f/--force with -a/--all,
 *                      --stdin or paths, unless --temp.
 *   dropdb             dropdb, and mysqladmin's drop command (any case,
 *                      `dr` and longer prefixes), unless --help/--version.
 *   blkdiscard         blkdiscard, unless --help/--version.
 *
 * Extra rules from the config are globs (roz/glob.h) over each command's
 * normalized line; when part of the line is computed, a glob that could
 * match some completion of the known start counts as a match.
 *
 * Ownership: a roz_destructive_hit owns `command` and `reason`; release it
 * with roz_destructive_hit_dispose().
 */
#ifndef ROZ_DESTRUCTIVE_H
#define ROZ_DESTRUCTIVE_H

#include "roz/common.h"
#include "roz/path.h"
#include "roz/shell.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in rules, by name (stable: users disable them by name in config). */
const char *const *roz_destructive_rule_names(size_t *n);

typedef struct roz_destructive_opts {
	const char *cwd;                  /* absolute; relative operands are judged from here */
	const char *home;                 /* may be NULL */
	char *const *tmp_dirs; size_t ntmp;        /* e.g. /tmp, /var/tmp, $TMPDIR: recursive rm inside is fine, */
	const char *repo;                          /* unless it holds this repository or lies in it (may be NULL) */
	const roz_path_fs *paths;                  /* where links lead, so a link into the project counts (may be NULL) */
	char *const *disabled; size_t ndisabled;   /* rule names turned off */
	char *const *extra; size_t nextra;         /* more rules: globs over a command's normalized line
	                                              (roz/glob.h semantics, e.g. "terraform destroy*") */
} roz_destructive_opts;

typedef struct roz_destructive_hit {
	const char *rule;   /* static rule name, or "extra" for a configured glob; NULL when none */
	char *command;      /* the normalized command line that matched */
	char *reason;       /* one sentence for the person: what it would destroy */
} roz_destructive_hit;

/* Find the first destructive command of the line. ROZ_OK (hit->rule NULL when none) / ROZ_ENOMEM. */
int roz_destructive_find(const roz_shell_result *sh, const roz_destructive_opts *o,
			 roz_destructive_hit *hit);

/* Free what `hit` holds and leave it empty; NULL is a no-op. */
void roz_destructive_hit_dispose(roz_destructive_hit *hit);

#ifdef __cplusplus
}
#endif

#endif
