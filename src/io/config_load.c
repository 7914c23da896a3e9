/*
 * config_load.c - where roz's config lives and reading it: the roz home
 * from the environment or the user database, the file itself, the storage
 * path. Everything the file says is applied by the core (config.c).
 */
#include "roz/config_load.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/file.h"

/* A config file is a page of settings; anything this large is a mistake. */
#define MAX_CONFIG_BYTES (1024u * 1024u)

const char *roz_config_load_process_env(void *ud, const char *name)
{
	(void)ud;
	return getenv(name);
}

static char *default_home(roz_getenv_fn get, void *env_ud)
{
	const char *home = get(env_ud, "HOME");
	struct passwd *pw;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	return home ? roz_asprintf("%s/.roz", home) : roz_strdup(".roz");
}

/* "~/x" against HOME, a relative path against the config file's directory. */
static char *resolve_path(const char *path, const char *config_path, roz_getenv_fn get, void *env_ud)
{
	const char *home = get(env_ud, "HOME");
	const char *slash;

	if (path[0] == '~' && (path[1] == '/' || !path[1]) && home && *home)
		return roz_asprintf("%s%s", home, path + 1);
	if (path[0] == '/' || !config_path || !(slash = strrchr(config_path, '/')))
		return roz_strdup(path);
	return roz_asprintf("%.*s/%s", (int)(slash - config_path), config_path, path);
}

static int read_whole(const char *path, char **text, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*text = NULL;
	if (fd < 0) {
		if (errno == ENOENT)
			return ROZ_ENOTFOUND;
		roz_error_set_errno(errno, "cannot read config '%s'", path);
		return ROZ_EIO;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		roz_error_set("cannot read config '%s': it is a directory", path);
		return ROZ_EIO;
	}
	rc = roz_file_read_fd(fd, 0, MAX_CONFIG_BYTES, text, len);
	if (rc == ROZ_EIO)
		roz_error_set_errno(errno, "cannot read config '%s'", path);
	else if (rc == ROZ_EINVALID)
		roz_error_set("cannot read config '%s': larger than 1 MiB", path);
	close(fd);
	return rc;
}

int roz_config_load(roz_config *c, roz_getenv_fn get, void *env_ud, roz_warn_fn warn, void *ud)
{
	const char *home_env = get(env_ud, "ROZ_HOME");
	const char *config_env = get(env_ud, "ROZ_CONFIG");
	const char *storage_env = get(env_ud, "ROZ_STORAGE_PATH");
	char *text = NULL, *path;
	size_t len = 0;
	int rc, file_rc = ROZ_OK;

	if ((rc = roz_config_init(c)) < 0)
		return rc;
	c->home = home_env && *home_env ? roz_strdup(home_env) : default_home(get, env_ud);
	if (!c->home)
		goto nomem;
	c->config_path = config_env && *config_env ? roz_strdup(config_env)
						   : roz_asprintf("%s/config.toml", c->home);
	if (!c->config_path)
		goto nomem;
	rc = read_whole(c->config_path, &text, &len);
	if (rc == ROZ_OK) {
		c->config_loaded = true;
		/* every setting that is right applies; each problem costs only what it touches */
		rc = roz_config_apply_toml(c, text, len, c->config_path, warn, ud);
		roz_free(text);
		if (rc == ROZ_ENOMEM)
			goto nomem;
		file_rc = rc;
	} else if (rc == ROZ_ENOMEM) {
		goto nomem;
	} else if (rc != ROZ_ENOTFOUND || (config_env && *config_env)) {
		/* a file that was asked for and cannot be read says nothing about the gates */
		if (rc == ROZ_ENOTFOUND)
			roz_error_set("cannot read config '%s': no such file", c->config_path);
		file_rc = rc == ROZ_ENOTFOUND ? ROZ_EIO : rc;
		if (roz_config_file_failed(c, roz_error_last(), warn, ud) < 0)
			goto nomem;
	}
	roz_config_apply_env(c, get, env_ud, warn, ud);
	if (storage_env && *storage_env)
		path = resolve_path(storage_env, NULL, get, env_ud);
	else if (c->storage_path && *c->storage_path)
		path = resolve_path(c->storage_path, c->config_path, get, env_ud);
	else
		path = roz_strdup(c->home);
	if (!path)
		goto nomem;
	roz_free(c->storage_path);
	c->storage_path = path;
	if (!c->hold)
		return ROZ_OK;
	roz_error_set("roz cannot tell from '%s' which tools are gated, so it asks before each tool "
		      "call that could be; fix the file (roz doctor lists every problem)",
		      c->config_path);
	return file_rc < 0 ? file_rc : ROZ_EINVALID;
nomem:
	roz_config_dispose(c);
	return ROZ_ENOMEM;
}
