/* export_webconfig.h: --web-config FILE, the exporter's TLS and basic
 * authentication, in the format of the Prometheus exporters'
 * --web.config.file (a YAML subset):
 *
 *     tls_server_config:
 *       cert_file: /etc/pmctop/server.crt   # relative to the file's directory
 *       key_file: /etc/pmctop/server.key
 *       min_version: TLS12                  # TLS10..TLS13; TLS12 by default
 *       max_version: TLS13
 *     basic_auth_users:
 *       prometheus: $2y$10$...               # bcrypt hashes only
 *
 * The certificate and key are read when the file is loaded, before pmctop
 * gives up its privileges (a key is usually readable by root alone). */
#ifndef PMCTOP_EXPORT_WEBCONFIG_H
#define PMCTOP_EXPORT_WEBCONFIG_H

#include <stdbool.h>

struct web_user {
	char *name;
	char *hash;    /* bcrypt: $2a$, $2b$ or $2y$ */
};

/* TLS versions, as exporter-toolkit names them (TLS10 ... TLS13). */
enum web_tls { WEB_TLS10 = 10, WEB_TLS11, WEB_TLS12, WEB_TLS13 };

struct web_config {
	char *cert_pem, *key_pem;   /* NULL: plain HTTP */
	enum web_tls tls_min, tls_max;   /* TLS12 and TLS13 unless set */
	int nusers;
	struct web_user *users;     /* none: no authentication */
	char *path;                 /* the file, for a reload */
	bool tls;                   /* tls_server_config is there */
};

/* Loads path; NULL with *cause naming the file, line and field. */
struct web_config *web_config_load(const char *path, char **cause);
void web_config_free(struct web_config *wc);
/* The file of old read again for a reload (SIGHUP, or the file changed)
 * after pmctop has given up its privileges: its users and what else can
 * change while serving. The certificate and key are not read again (the
 * key is often root's alone); TLS turned on or off is refused, since the
 * server would have to start again, and so are users all removed (an
 * empty file must not open a protected server). NULL with *cause as
 * web_config_load. */
struct web_config *web_config_reload(const struct web_config *old, char **cause);

/* Whether an Authorization header (NULL when absent) names one of the
 * users with its password: "Basic base64(user:password)", checked against
 * the bcrypt hash. Always true when the configuration has no users. */
bool web_config_authorized(const struct web_config *wc, const char *authorization);
/* GnuTLS's priority string for wc's versions, such as
 * "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3" (caller frees). */
char *web_config_tls_priorities(const struct web_config *wc);

#endif
