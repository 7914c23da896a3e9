/*
 * template.c - which block message a stop gets: the template chosen from
 * config (weighted at random when asked), its text from the hook's loader or
 * the built-in one, and the session id filled in.
 */
#include "roz/template.h"

#include <string.h>

char *roz_template_select(const roz_config *config, const roz_env *env)
{
	uint64_t total = 0, roll;

	if (strcmp(config->template_active, "random") != 0)
		return roz_strdup(config->template_active);
	if (!config->n_weights)
		return roz_strdup("default");
	for (size_t i = 0; i < config->n_weights; i++)
		total += config->weights[i].weight;
	if (!total)
		return roz_strdup(config->weights[0].id);
	roll = env->random(env->ud, total);
	for (size_t i = 0; i < config->n_weights; i++) {
		if (roll < config->weights[i].weight)
			return roz_strdup(config->weights[i].id);
		roll -= config->weights[i].weight;
	}
	return roz_strdup(config->weights[config->n_weights - 1].id);
}

char *roz_template_block_message(const roz_session *s, const roz_env *env, char **template_id)
{
	char *id = roz_template_select(env->config, env), *text;
	roz_buf b = ROZ_BUF_INIT;

	*template_id = id;
	if (!id)
		return NULL;
	text = env->load_template ? env->load_template(env->ud, id) : NULL;
	roz_buf_add_replaced(&b, text ? text : roz_template_default, "{{session_id}}", s->session_id);
	roz_free(text);
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}
