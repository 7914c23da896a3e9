/*
 * roz/config_load.h - finding roz's config and reading it: the roz home,
 * the config file and the storage directory, from the environment and the
 * user database. What the settings mean and what a problem costs is the
 * core's (roz/config.h); this is the part that touches the system.
 *
 * Where things are:
 *   roz home     $ROZ_HOME, else ~/.roz              (templates/, config.toml)
 *   config file  $ROZ_CONFIG, else <home>/config.toml (missing = defaults)
 *   storage      $ROZ_STORAGE_PATH, else [storage] path, else <home>
 *                (sessions live in <storage>/sessions/)
 *
 * "~" in a path means $HOME; a relative [storage] path is taken from the
 * config file's directory. With HOME unset or empty the home comes from
 * the user database (getpwuid).
 */
#ifndef ROZ_CONFIG_LOAD_H
#define ROZ_CONFIG_LOAD_H

#include "roz/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The whole load: resolve home and config path, read the file if present,
 * apply environment overrides, resolve storage. Problems with single
 * settings are in c->diags and the load returns ROZ_OK. When the gates are
 * unknown (c->hold) it returns ROZ_EIO (unreadable file) or ROZ_EPARSE /
 * ROZ_EINVALID with the reason in roz_error_last(); `c` still holds every
 * setting that could be read, with paths and environment applied, so a
 * hook can carry on (holding gated tools) while a command stops. On
 * ROZ_ENOMEM `c` is left empty. Release with roz_config_dispose().
 */
int roz_config_load(roz_config *c, roz_getenv_fn getenv_fn, void *env_ud, roz_warn_fn warn,
		    void *ud) ROZ_WARN_UNUSED;

/* A getenv_fn over the process environment. */
const char *roz_config_load_process_env(void *ud, const char *name);

#ifdef __cplusplus
}
#endif

#endif
