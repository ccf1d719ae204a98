/* export_webconfig.h: --web-config FILE, the exporter's TLS, client
 * certificates, basic authentication and extra response headers, in the
 * format of the Prometheus exporters' --web.config.file (exporter-toolkit),
 * read with libyaml, so block and flow style both work:
 *
 *     tls_server_config:
 *       cert_file: /etc/pmctop/server.crt   # relative to the file's directory
 *       key_file: /etc/pmctop/server.key
 *       min_version: TLS12                  # TLS10..TLS13; TLS12 by default
 *       client_auth_type: RequireAndVerifyClientCert
 *       client_ca_file: /etc/pmctop/ca.crt
 *       cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
 *       curve_preferences: [X25519, CurveP256]
 *     basic_auth_users: {prometheus: $2y$10$...}   # bcrypt hashes only
 *     http_server_config:
 *       headers: {Strict-Transport-Security: max-age=31536000}
 *
 * The certificate, key and client CA are read when the file is loaded,
 * before pmctop gives up its privileges (a key is usually readable by root
 * alone). The TLS names are mapped to GnuTLS's (export_webconfig_tls.c). */
#ifndef PMCTOP_EXPORT_WEBCONFIG_H
#define PMCTOP_EXPORT_WEBCONFIG_H

#include <stdbool.h>

struct web_user {
	char *name;
	char *hash;    /* bcrypt: $2a$, $2b$ or $2y$ */
};

/* TLS versions, as exporter-toolkit names them (TLS10 ... TLS13). */
enum web_tls { WEB_TLS10 = 10, WEB_TLS11, WEB_TLS12, WEB_TLS13 };

/* client_auth_type, in exporter-toolkit's (Go's) order and meaning. */
enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_REQUEST_CLIENT_CERT,              /* asked for, not checked */
	WEB_REQUIRE_ANY_CLIENT_CERT,          /* needed, not checked */
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,      /* checked when sent */
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,   /* needed and checked: mTLS */
};

/* An extra response header (http_server_config.headers). */
struct web_header {
	char *name, *value;
};

struct web_config {
	char *cert_pem, *key_pem;   /* NULL: plain HTTP */
	enum web_tls tls_min, tls_max;   /* TLS12 and TLS13 unless set */
	enum web_client_auth client_auth;
	char *ca_pem;               /* client_ca_file's text, or NULL */
	char *ciphers;              /* GnuTLS priority items for cipher_suites, or NULL */
	char *curves;               /* and for curve_preferences, or NULL */
	bool server_order;          /* prefer_server_cipher_suites (true unless set) */
	int nheaders;
	struct web_header *headers;
	int nusers;
	struct web_user *users;     /* none: no authentication */
	char *path;                 /* the file, for a reload */
	char *fixed;                /* what a reload cannot change, as text */
	bool tls;                   /* tls_server_config is there */
};

/* Loads path; NULL with *cause naming the file, line and field. */
struct web_config *web_config_load(const char *path, char **cause);
void web_config_free(struct web_config *wc);
/* The file of old read again for a reload (SIGHUP, or the file changed)
 * after pmctop has given up its privileges: its users and what else can
 * change while serving. The certificate and key are not read again (the
 * key is often root's alone); TLS turned on or off, or any other TLS
 * setting or response header changed, is refused, since the server would
 * have to start again (a file that says more than is served would mislead),
 * and so are users all removed (an empty file must not open a protected
 * server). NULL with *cause as
 * web_config_load. */
struct web_config *web_config_reload(const struct web_config *old, char **cause);

/* Whether an Authorization header (NULL when absent) names one of the
 * users with its password: "Basic base64(user:password)", checked against
 * the bcrypt hash. Always true when the configuration has no users. */
bool web_config_authorized(const struct web_config *wc, const char *authorization);
/* GnuTLS's priority string for wc's versions, ciphers and curves, such as
 * "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3:%SERVER_PRECEDENCE" (caller
 * frees). */
char *web_config_tls_priorities(const struct web_config *wc);

/* export_webconfig_tls.c: exporter-toolkit's (Go's) TLS names. Each
 * returns 0, or -1 with *cause saying what is expected (the caller adds
 * the file and line). */
/* A TLS version (TLS10 ... TLS13); 0 when it is none. */
int web_tls_version(const char *name);
/* Appends the GnuTLS items of a cipher suite (TLS_ECDHE_RSA_WITH_...) to
 * *items (":+ECDHE-RSA:+AES-128-GCM:+AEAD"). */
int web_tls_cipher(const char *name, char **items, char **cause);
/* Appends the GnuTLS group of a curve (CurveP256, X25519, ...). */
int web_tls_curve(const char *name, char **items, char **cause);
/* The client_auth_type by name ("" is NoClientCert). */
int web_tls_client_auth(const char *name, enum web_client_auth *out, char **cause);
/* Whether exporter-toolkit lets a response header be set, and to this
 * value. */
int web_header_allowed(const char *name, const char *value, char **cause);

#endif
