/*
 * roz/template.h - the message a stop is blocked with when a review is
 * wanted: which template (an id from config, or "random" with weights), its
 * text (loaded through the hook's env, or the one built in), and the
 * session id filled in.
 *
 * Ownership: the strings returned belong to the caller.
 */
#ifndef ROZ_TEMPLATE_H
#define ROZ_TEMPLATE_H

#include "roz/config.h"
#include "roz/hooks.h"
#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in block message (templates/block-default.md, compiled in). */
extern const char roz_template_default[];

/* Choose a template id from config (an id, or "random" with weights). Caller frees; NULL if out of memory. */
char *roz_template_select(const roz_config *config, const roz_env *env);

/*
 * The block message for a stop: the selected template with {{session_id}}
 * filled in. *template_id is set to the id chosen (caller frees, also when
 * NULL is returned). NULL when out of memory.
 */
char *roz_template_block_message(const roz_session *s, const roz_env *env, char **template_id);

#ifdef __cplusplus
}
#endif

#endif
