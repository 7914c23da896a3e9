/*
 * test_destructive.c - roz_destructive_*: every built-in rule in the
 * spellings an agent (or a wrapper) can give it, the look-alikes each must
 * let through, recursive rm inside and outside the tmp dirs, rules turned
 * off by name, and the extra globs from the config.
 */
#include "support.h"

#include "roz/destructive.h"

#include <string.h>

static char *tmps[] = {"/tmp", "/var/tmp/"};

static roz_destructive_opts opts(void)
{
	roz_destructive_opts o = {.cwd = "/work/repo", .home = "/home/u", .tmp_dirs = tmps, .ntmp = 2};

	return o;
}

/* The rule that fires for `line`, or NULL; the hit is checked for its parts. */
static const char *find_with(const char *line, const roz_destructive_opts *o)
{
	roz_shell_result sh;
	roz_destructive_hit hit;
	const char *rule;

	memset(&sh, 0, sizeof sh);
	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	assert_int_equal(roz_destructive_find(&sh, o, &hit), ROZ_OK);
	rule = hit.rule;
	if (rule) {
		assert_non_null(hit.command);
		assert_non_null(hit.reason);
		assert_non_null(strstr(hit.reason, hit.command));
	} else {
		assert_null(hit.command);
	}
	roz_destructive_hit_dispose(&hit);
	roz_shell_result_dispose(&sh);
	return rule;
}

static void expect(const char *rule, const char *const *lines)
{
	roz_destructive_opts o = opts();

	for (size_t i = 0; lines[i]; i++) {
		const char *got = find_with(lines[i], &o);

		if (rule && (!got || strcmp(got, rule)))
			fail_msg("'%s' should hit %s, got %s", lines[i], rule, got ? got : "none");
		if (!rule && got)
			fail_msg("'%s' should be let through, hit %s", lines[i], got);
	}
}

static void test_rule_names(void **state)
{
	(void)state;
	size_t n = 0;
	const char *const *names = roz_destructive_rule_names(&n);

	assert_int_equal(n, 19);
	assert_string_equal(names[0], "rm-recursive");
	assert_string_equal(names[13], "sql-drop");
	assert_string_equal(names[14], "git-switch-discard");
	assert_string_equal(names[18], "blkdiscard");
	assert_null(names[n]);
}

static void test_rm_recursive(void **state)
{
	(void)state;
	expect("rm-recursive", (const char *const[]){
		"rm -rf x", "rm -r -f x", "rm -R x", "rm --recursive --force x", "rm --recur x",
		"rm -fr x", "rm -vrf x", "rm x -rf", "command rm -rf x", "\\rm -rf x",
		"/bin/rm -rf x", "sudo rm -rf x", "xargs rm -rf", "find . -exec rm -rf {} +",
		"bash -c 'rm -rf x'", "timeout 5 rm -rf x", "env X=1 rm -rf x", "echo $(rm -rf x)",
		"ls && rm -rf ~", "rm -rf /", "rm -rf /tmp/x/../../etc", "rm -rf /tmp",
		"rm -rf /tmp/ok build", "rm -rf \"$TMPDIR/x\"", "rm -rf /tmp/$x",
		"rm -rf /tmp/../*", "rm -rf /var/tmpx/y", NULL});
	expect(NULL, (const char *const[]){
		"rm file", "rm -f file.o", "rm -- -r", "rm -rf /tmp/build-123",
		"rm -rf /tmp/a /var/tmp/b", "rm -rf /tmp/build-*", "rm -rf ../../tmp/x",
		"echo \"rm -rf /\"", "grep -r \"rm -rf\" .", "rm -rf", NULL});
}

static void test_rm_relative_to_cwd(void **state)
{
	(void)state;
	roz_destructive_opts o = opts();

	o.cwd = "/tmp/work";
	assert_null(find_with("rm -rf sub", &o));
	assert_string_equal(find_with("rm -rf ..", &o), "rm-recursive");
	assert_string_equal(find_with("rm -rf ../../home", &o), "rm-recursive");
	o.ntmp = 0;
	assert_string_equal(find_with("rm -rf sub", &o), "rm-recursive");
}

/* /tmp/into-repo leads into the project: a link there is not scratch space. */
static int tmp_link(void *ud, const char *path, char **target)
{
	(void)ud;
	if (strcmp(path, "/tmp/into-repo") == 0)
		return (*target = strdup("/tmp/work/src")) ? ROZ_OK : ROZ_ENOMEM;
	return ROZ_ENOTFOUND;
}

static void test_rm_in_tmp_judged_against_the_repository(void **state)
{
	roz_destructive_opts o = opts();
	roz_path_fs fs = {"/home/u", tmp_link, NULL};

	(void)state;
	/* the repository itself lives under /tmp: its own trees are not scratch, /tmp's others are */
	o.cwd = "/tmp/work";
	o.repo = "/tmp/work";
	o.paths = &fs;
	assert_string_equal(find_with("rm -rf sub", &o), "rm-recursive");
	assert_string_equal(find_with("rm -rf /tmp/work", &o), "rm-recursive");
	assert_string_equal(find_with("rm -rf /tmp/*", &o), "rm-recursive"); /* holds the repository */
	assert_null(find_with("rm -rf /tmp/scratch-1", &o));
	assert_null(find_with("rm -rf /var/tmp/build", &o));
	/* a path in /tmp that is a link into the project */
	assert_string_equal(find_with("rm -rf /tmp/into-repo/x", &o), "rm-recursive");
	assert_null(find_with("rm -rf /tmp/other/x", &o));
}

static void test_git_push_force(void **state)
{
	(void)state;
	expect("git-push-force", (const char *const[]){
		"git push -f", "git push --force origin main", "git push -uf origin x",
		"git push --force-with-lease", "git push --force-with-lease=main:abc",
		"git push --force-if-includes", "git push --mirror", "git push --delete origin x",
		"git push -d origin x", "git push origin +main", "git push origin :old",
		"git -C repo push -f", "git --git-dir=x push --force", "git push --forc",
		"/usr/lib/git-core/git-push -f", "sudo git push -f", NULL});
	expect(NULL, (const char *const[]){
		"git push", "git push origin main", "git push -u origin x", "git push --tags",
		"git push -o ci.skip origin main", "echo git push -f", "git push origin \"$b\"",
		NULL});
}

static void test_git_rules(void **state)
{
	(void)state;
	expect("git-reset-hard", (const char *const[]){
		"git reset --hard", "git reset --hard HEAD~1", "git -C r reset --merge",
		"bash -c 'git reset --hard'", NULL});
	expect(NULL, (const char *const[]){"git reset --soft HEAD~1", "git reset HEAD file",
					   "git reset --keep x", "git reset -- --hard", NULL});
	expect("git-checkout-discard", (const char *const[]){
		"git checkout -- a.c", "git checkout .", "git checkout HEAD~1 -- a.c",
		"git checkout -f", "git checkout main a.c", "git checkout -f main", NULL});
	expect(NULL, (const char *const[]){"git checkout main", "git checkout -b x",
					   "git checkout -b x origin/x", "git checkout --", NULL});
	expect("git-restore-worktree", (const char *const[]){
		"git restore a.c", "git restore .", "git restore -s HEAD~1 a.c",
		"git restore --staged --worktree a.c", "git restore -SW a.c", NULL});
	expect(NULL, (const char *const[]){"git restore --staged f", "git restore -S f", NULL});
	expect("git-clean-force", (const char *const[]){
		"git clean -f", "git clean -fdx", "git clean -d --force", "git clean -xdf build", NULL});
	expect(NULL, (const char *const[]){"git clean -n", "git clean -fn", "git clean --dry-run -f",
					   "git clean -e f", NULL});
	expect("git-branch-force-delete", (const char *const[]){
		"git branch -D old", "git branch -df old", "git branch --delete --force old",
		"git branch -d -f old", NULL});
	expect(NULL, (const char *const[]){"git branch -d merged", "git branch -f x main",
					   "git branch", NULL});
	expect("git-stash-drop", (const char *const[]){"git stash drop", "git stash drop stash@{1}",
						       "git stash clear", NULL});
	expect(NULL, (const char *const[]){"git stash pop", "git stash", "git stash list", NULL});
}

static void test_other_rules(void **state)
{
	(void)state;
	expect("find-delete", (const char *const[]){
		"find . -name '*.o' -delete", "find -delete", "sudo find / -delete",
		"find . -name x -exec echo {} \\; -delete", NULL});
	expect(NULL, (const char *const[]){"find . -name x", "find . -name -delete",
					   "find . -exec echo -delete \\;", NULL});
	expect("dd-output", (const char *const[]){"dd if=/dev/zero of=/dev/sda",
						  "sudo dd of=disk.img if=x", "dd of=$f", NULL});
	expect(NULL, (const char *const[]){"dd if=a", "dd if=a of=/dev/null", "echo of=x", NULL});
	expect("mkfs", (const char *const[]){"mkfs -t ext4 /dev/sdb1", "mkfs.ext4 /dev/sdb1",
					     "sudo mke2fs /dev/sdb", "wipefs -a /dev/sdb", NULL});
	expect(NULL, (const char *const[]){"echo mkfs", "mkdir fs", NULL});
	expect("shred", (const char *const[]){"shred secret", "shred -u -n 3 f", "xargs shred", NULL});
	expect("chmod-recursive-root", (const char *const[]){
		"chmod -R 777 /", "sudo chown -R me /etc", "chmod -R u+w ~", "chmod --recursive 700 $HOME",
		"chgrp -R staff /usr", "chmod -Rv 755 /home", "chown -R me /home/u/..",
		"chmod -R 777 \"$dir\"", "chmod -R 755 /etc/../usr", NULL});
	expect(NULL, (const char *const[]){"chmod -R u+w build", "chmod 755 /", "chown me /etc",
					   "chmod -R 700 ~/project", "chmod -r /", NULL});
}

static void test_sql(void **state)
{
	(void)state;
	expect("sql-drop", (const char *const[]){
		"psql -c 'DROP TABLE users'", "psql -c 'drop  table users'", "mysql -e 'drop database x'",
		"mariadb --execute='DROP SCHEMA s'", "sqlite3 app.db 'drop view v'",
		"duckdb x.db -c 'DROP INDEX i'", "clickhouse-client -q 'TRUNCATE TABLE t'",
		"cockroach sql -e 'truncate t'", "psql -c \"select 'drop table'\"", NULL});
	expect(NULL, (const char *const[]){
		"psql -c 'select 1'", "psql -c 'select dropped_table from x'", "echo DROP TABLE x",
		"mysql -e 'select * from drop_tables'", "cockroach start", "psql -c 'drop user x'",
		NULL});
}

/* A long option is taken by any prefix the program would take: one that names it alone. */
static void test_abbreviated_long_options(void **state)
{
	(void)state;
	expect("git-reset-hard", (const char *const[]){
		"git reset --h", "git reset --ha", "git reset --har HEAD~1", "git reset --me",
		"git reset HEAD~1 --ha", NULL});
	expect("git-push-force", (const char *const[]){
		"git push --force-w", "git push --force-w=main:abc origin main", "git push --force-i",
		"git push --mi", "git push --del origin x", "git push --pru origin",
		"git push origin main --force-w", NULL});
	expect("git-clean-force", (const char *const[]){
		"git clean --fo -d", "git clean --f", "git clean -n --no-dry -f",
		"git clean --no-dry-run --dry-run --no-d -f", NULL});
	expect("rm-recursive", (const char *const[]){
		"rm --r -f x", "rm --recursive --fo x", "rm --re x", "rm -f x --recu", NULL});
	expect("git-checkout-discard", (const char *const[]){
		"git checkout --fo", "git checkout --f main", "git checkout --ou a.c",
		"git checkout --theirs a.c", "git checkout --pathspec-fr=list", NULL});
	expect("git-restore-worktree", (const char *const[]){
		"git restore --st --wo a.c", "git restore -S --wor a.c", NULL});
	expect("git-branch-force-delete", (const char *const[]){
		"git branch --de --forc x", "git branch --d -f x", NULL});
	expect("chmod-recursive-root", (const char *const[]){
		"chmod --rec 777 /", "chown --recu me /etc", "chmod -R --reference f /etc", NULL});
	/* several options begin so: git and getopt refuse the line, and nothing runs */
	expect(NULL, (const char *const[]){
		"git push --fo", "git push --d origin x", "git push --pr origin", "git push --p",
		"git reset --m", "git switch --d x", "git switch --f x", "git switch --fo x",
		"git branch -d --fo x", "chmod --re 777 /", "git restore --s HEAD a.c --st",
		"git checkout --pathspec-f=list", NULL});
	/* a prefix of a harmless option, or a harmless one spelled out */
	expect(NULL, (const char *const[]){
		"git reset --so HEAD~1", "git reset --mi", "git reset --k x", "git clean --dry -f",
		"git clean --fo --dr", "git clean --dry-run --force", "git push --dry -f",
		"git push --follow-t", "git push --force-wi -n", "git restore --st a.c",
		"git switch --force-c x main", "git checkout --de main", "rm --dir x", "rm --fo x",
		"rm --verbose x", "git rm --ca -f x", "git push --force-with-lease --dry-run", NULL});
}

/* An option whose name is computed when the line runs could be any it completes to. */
static void test_computed_options(void **state)
{
	(void)state;
	expect("git-push-force", (const char *const[]){"git push --$opt", "git push --fo$x",
						       "git push -$flags origin x", NULL});
	expect("rm-recursive", (const char *const[]){"rm -$flags dir", "rm --r$x dir",
						     "rm -f$x dir", NULL});
	expect("git-clean-force", (const char *const[]){"git clean -n --$x -f", NULL});
	expect(NULL, (const char *const[]){"git push --follow-tags=$x", "rm --verb$x f",
					   "git push -o$x origin main", "git reset --so$x", NULL});
}

static void test_git_switch_rm_checkout_index(void **state)
{
	(void)state;
	expect("git-switch-discard", (const char *const[]){
		"git switch -f main", "git switch --force main", "git switch --discard-changes main",
		"git switch --di main", "git switch -qf main", "git -C r switch -f main",
		"git switch -c x -f", "sudo git switch --discard main", NULL});
	expect(NULL, (const char *const[]){
		"git switch main", "git switch -c feature", "git switch -C x origin/x",
		"git switch --detach HEAD~1", "git switch -m main", "git switch -", NULL});
	expect("git-rm-force", (const char *const[]){
		"git rm -f a.c", "git rm -r -f dir", "git rm -rf dir", "git rm --force a.c",
		"git rm --fo a.c", "git rm -fr --quiet dir", "git rm -f --cached a.c --no-cached", NULL});
	/* plain `git rm f` refuses a file with changes git has not recorded, so it is let through */
	expect(NULL, (const char *const[]){
		"git rm --cached f", "git rm f", "git rm -r dir", "git rm --cached -rf dir",
		"git rm -n -f f", "git rm -f --dry-run f", "git rm -- -f", NULL});
	expect("git-checkout-index-force", (const char *const[]){
		"git checkout-index -f -a", "git checkout-index -af", "git checkout-index --force --all",
		"git checkout-index -f a.c b.c", "git checkout-index --fo --al",
		"git checkout-index -f --stdin", "git checkout-index -a -f --prefix=out/", NULL});
	expect(NULL, (const char *const[]){
		"git checkout-index -a", "git checkout-index a.c", "git checkout-index -f",
		"git checkout-index -f --temp a.c", "git checkout-index -a -f --te", NULL});
}

static void test_find_exec_rm(void **state)
{
	(void)state;
	expect("find-delete", (const char *const[]){
		"find . -name '*.o' -exec rm {} \\;", "find . -exec rm -f {} +", "find . -execdir rm {} \\;",
		"find . -exec /bin/rm -- {} +", "find . -exec sudo rm {} \\;", "find . -ok rm {} \\;",
		"find . -type f -exec unlink {} \\;", "find . -delete", "find . -type d -empty -delete",
		NULL});
	expect("rm-recursive", (const char *const[]){"find . -exec rm -rf {} +", NULL});
	expect(NULL, (const char *const[]){
		"find . -name x -print", "find . -exec grep -l rm {} +", "find . -exec echo rm {} \\;",
		"find . -name rm", "find . -exec ls {} \\;", "rm file.txt", NULL});
}

static void test_dropdb_blkdiscard(void **state)
{
	(void)state;
	expect("dropdb", (const char *const[]){
		"dropdb app", "dropdb -h db.local -U me app", "sudo -u postgres dropdb app",
		"mysqladmin drop app", "mysqladmin -u root -f DROP app", NULL});
	expect(NULL, (const char *const[]){"createdb app", "dropdb --help", "mysqladmin status",
					   "echo dropdb app", "mysqladmin -u root processlist", NULL});
	expect("blkdiscard", (const char *const[]){
		"blkdiscard /dev/sdb", "sudo blkdiscard -f /dev/nvme0n1", "blkdiscard -s /dev/sdb", NULL});
	expect(NULL, (const char *const[]){"blkdiscard --version", "lsblk", "echo blkdiscard", NULL});
}

static void test_sql_comments_and_options(void **state)
{
	(void)state;
	expect("sql-drop", (const char *const[]){
		"mysql -e\"DROP TABLE users\"", "mysql -e'drop database x'", "mysql --execute='DROP TABLE t'",
		"mysql --execute=\"TRUNCATE t\"", "mysql -e 'DROP TABLE t'", "mysql -vve'drop schema s'",
		"mysql db -e \"DROP VIEW v\"", "mariadb --exec='drop index i on t'",
		"psql -c 'DROP/**/TABLE x'", "psql -c 'DROP /* a */ /* b */ TABLE x'",
		"psql -c 'drop -- why\ntable x'", "psql -c $'DROP -- x\\nTABLE t'",
		"mysql -e 'DROP # c\nTABLE t'",
		"psql -c 'TRUNCATE /* c */ t'", "psql -c 'DROP /* a /* nested */ still */ TABLE x'",
		"mysql -e 'DROP /* a /* not nested */ TABLE x'", "mysql -e 'DROP /*!40000 TABLE */ x'",
		"mysql -e 'DROP /*M!100000 DATABASE */ x'", "psql -c 'DROP MATERIALIZED VIEW v'",
		"mysql -e 'DROP TEMPORARY /**/ TABLE t'", "sqlite3 a.db 'DROP/**/table t'",
		"psql -c 'select 1; DROP\tTABLE t'", NULL});
	expect(NULL, (const char *const[]){
		"mysql -e 'SELECT 1'", "mysql -e\"select 1\"", "psql -c \"select drop_count from t\"",
		"psql -c 'DROP /* TABLE */ USER x'", "psql -c 'DROP -- TABLE\nROLE r'",
		"mysql -Ddropbox -e 'select 1'", "psql -c 'select droptable from t'",
		"git commit -m 'DROP TABLE users'", "grep -rn 'DROP TABLE' sql/", NULL});
}

/* Look-alikes of every destructive spelling: each must stay free. */
static void test_look_alikes_stay_free(void **state)
{
	(void)state;
	expect(NULL, (const char *const[]){
		"git reset --soft", "git reset --soft HEAD~1", "git switch main", "git rm --cached f",
		"git rm f", "find . -name x -print", "find . -exec grep x {} +", "rm file.txt",
		"rm -rf /tmp/build-1", "mysql -e 'SELECT 1'", "psql -c \"select drop_count from t\"",
		"git push", "git push origin main", "git clean -n", "git clean --dry-run",
		"git clean --dry", "git clean -fn", "git commit -m 'rm -rf / was close'",
		"git commit -m \"DROP TABLE users, then rm -rf /\"", "grep -r 'rm -rf /' .",
		"grep -rn 'git push --force' docs", "echo git reset --hard",
		"git log --grep='reset --hard'", NULL});
}

static void test_disabled_rules(void **state)
{
	(void)state;
	roz_destructive_opts o = opts();
	char *off[] = {"rm-recursive", "git-push-force"};

	o.disabled = off;
	o.ndisabled = 2;
	assert_null(find_with("rm -rf /", &o));
	assert_null(find_with("git push -f", &o));
	assert_string_equal(find_with("git reset --hard", &o), "git-reset-hard");
	assert_string_equal(find_with("rm -rf x; git clean -f", &o), "git-clean-force");
}

static void test_extra_globs(void **state)
{
	(void)state;
	roz_destructive_opts o = opts();
	char *extra[] = {"terraform destroy*", "kubectl delete *"};

	o.extra = extra;
	o.nextra = 2;
	assert_string_equal(find_with("terraform destroy -auto-approve", &o), "extra");
	assert_string_equal(find_with("cd infra && sudo terraform destroy", &o), "extra");
	assert_string_equal(find_with("kubectl delete pod x", &o), "extra");
	/* the computed part could complete the pattern */
	assert_string_equal(find_with("terraform $action", &o), "extra");
	assert_string_equal(find_with("kubectl $verb pod", &o), "extra");
	assert_null(find_with("terraform plan", &o));
	assert_null(find_with("echo terraform destroy", &o));
	assert_null(find_with("kubectl get pods", &o));
}

static void test_first_hit_in_line_order(void **state)
{
	(void)state;
	roz_destructive_opts o = opts();
	roz_shell_result sh;
	roz_destructive_hit hit;
	const char *line = "ls; git stash drop && rm -rf x";

	memset(&sh, 0, sizeof sh);
	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	assert_int_equal(roz_destructive_find(&sh, &o, &hit), ROZ_OK);
	assert_string_equal(hit.rule, "git-stash-drop");
	assert_string_equal(hit.command, "git stash drop");
	assert_string_equal(hit.reason, "git stash drop: it deletes stashed changes.");
	roz_destructive_hit_dispose(&hit);
	assert_null(hit.rule);
	roz_destructive_hit_dispose(NULL);

	for (int n = 0; n < 50; n++) {
		roz_alloc_fail_after(n);
		int rc = roz_destructive_find(&sh, &o, &hit);

		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			assert_string_equal(hit.rule, "git-stash-drop");
			roz_destructive_hit_dispose(&hit);
			break;
		}
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(hit.command);
	}
	roz_shell_result_dispose(&sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_names),
		cmocka_unit_test(test_rm_recursive),
		cmocka_unit_test(test_rm_relative_to_cwd),
		cmocka_unit_test(test_rm_in_tmp_judged_against_the_repository),
		cmocka_unit_test(test_git_push_force),
		cmocka_unit_test(test_git_rules),
		cmocka_unit_test(test_other_rules),
		cmocka_unit_test(test_sql),
		cmocka_unit_test(test_abbreviated_long_options),
		cmocka_unit_test(test_computed_options),
		cmocka_unit_test(test_git_switch_rm_checkout_index),
		cmocka_unit_test(test_find_exec_rm),
		cmocka_unit_test(test_dropdb_blkdiscard),
		cmocka_unit_test(test_sql_comments_and_options),
		cmocka_unit_test(test_look_alikes_stay_free),
		cmocka_unit_test(test_disabled_rules),
		cmocka_unit_test(test_extra_globs),
		cmocka_unit_test(test_first_hit_in_line_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
