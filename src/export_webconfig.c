/* export_webconfig.c: reads --web-config (export_webconfig.h) with libyaml
 * and checks basic authentication against its bcrypt hashes.
 *
 * Anything the file says that pmctop does not do (an unknown key, a
 * sequence where a name is expected, a header exporter-toolkit refuses) is
 * an error naming the file, line and field, never ignored: a security
 * setting that is silently dropped would leave the exporter more open than
 * its operator wrote. Passwords are checked with crypt_r() from libcrypt,
 * which implements bcrypt. */
#include "config.h"
#include "crypt_dl.h"
#include "export_webconfig.h"
#include "util.h"

#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

void web_config_free(struct web_config *wc)
{
	if (!wc)
		return;
	free(wc->cert_pem);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->ca_pem);
	free(wc->ciphers);
	free(wc->curves);
	for (int i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	for (int i = 0; i < wc->nheaders; i++) {
		free(wc->headers[i].name);
		free(wc->headers[i].value);
	}
	free(wc->headers);
	free(wc->path);
	free(wc->fixed);
	free(wc);
}

/* A file named in the configuration, relative to its directory. */
static char *read_named(const char *conf, int line, const char *field, const char *name, char **cause)
{
	char *dircopy = xstrdup(conf);
	char *path = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", dirname(dircopy), name);
	free(dircopy);
	char *text = read_text_file(path);
	if (!text)
		set_cause(cause, "%s:%d: %s: cannot read %s: %s", conf, line, field, path, strerror(errno));
	free(path);
	return text;
}

static bool is_bcrypt(const char *h)
{
	return strlen(h) == 60 && h[0] == '$' && h[1] == '2' && strchr("aby", h[2]) && h[3] == '$';
}

/* What one load reads, with the line of each setting for the errors that
 * are found only once the whole file is read. */
struct reading {
	const char *path;
	yaml_document_t *doc;
	struct web_config *wc;
	char *cert, *key, *ca;
	int cert_line, key_line, ca_line, tls_line, users_line, min_line, max_line, auth_line;
	bool auth_set;
};

static int line_of(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

/* YAML's null: nothing, ~ or null, unquoted. */
static bool is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* A scalar's text, or NULL (with *cause) for anything else or null. */
static const char *text_of(struct reading *r, const yaml_node_t *n, const char *where, char **cause)
{
	if (n->type == YAML_SCALAR_NODE && !is_null(n))
		return (const char *)n->data.scalar.value;
	set_cause(cause, "%s:%d: %s: expected a value%s", r->path, line_of(n), where,
		  n->type == YAML_SCALAR_NODE ? "" : ", not a list or mapping");
	return NULL;
}

/* true/false as YAML 1.1 (and so exporter-toolkit's parser) writes them. */
static int bool_of(struct reading *r, const yaml_node_t *n, const char *where, bool *out, char **cause)
{
	static const char *const yes[] = { "true", "yes", "on", "y" }, *const no[] = { "false", "no", "off", "n" };
	const char *v = text_of(r, n, where, cause);
	if (!v)
		return -1;
	for (int i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(v, no[i]))
			return *out = false, 0;
	}
	return set_cause(cause, "%s:%d: %s: expected true or false, not '%s'", r->path, line_of(n), where, v);
}

/* Walks a mapping: calls each(r, key, key node, value node) for its pairs,
 * refusing keys that are not names and keys given twice. */
typedef int (*pair_fn)(struct reading *r, const char *key, const yaml_node_t *k, const yaml_node_t *v,
		       char **cause);

static int each_pair(struct reading *r, const yaml_node_t *map, const char *where, pair_fn each, char **cause)
{
	if (map->type != YAML_MAPPING_NODE)
		return set_cause(cause, "%s:%d: %s: expected a mapping under it, not %s", r->path, line_of(map), where,
				 map->type == YAML_SEQUENCE_NODE ? "a list" : "a value");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		if (k->type != YAML_SCALAR_NODE)
			return set_cause(cause, "%s:%d: %s: expected a name as key, not a list or mapping", r->path,
					 line_of(k), where);
		const char *key = (const char *)k->data.scalar.value;
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			const yaml_node_t *qk = yaml_document_get_node(r->doc, q->key);
			if (qk->type == YAML_SCALAR_NODE && !strcmp((const char *)qk->data.scalar.value, key))
				return set_cause(cause, "%s:%d: %s: repeated key '%s'", r->path, line_of(k), where, key);
		}
		if (each(r, key, k, v, cause) < 0)
			return -1;
	}
	return 0;
}

/* A list of names, each appended by add (cipher_suites, curve_preferences). */
static int each_item(struct reading *r, const yaml_node_t *list, const char *where,
		     int (*add)(const char *, char **, char **), char **items, char **cause)
{
	if (list->type != YAML_SEQUENCE_NODE)
		return set_cause(cause, "%s:%d: %s: expected a list", r->path, line_of(list), where);
	if (list->data.sequence.items.start == list->data.sequence.items.top)
		return set_cause(cause, "%s:%d: %s: an empty list (remove the key for the defaults)", r->path,
				 line_of(list), where);
	for (yaml_node_item_t *i = list->data.sequence.items.start; i < list->data.sequence.items.top; i++) {
		const yaml_node_t *n = yaml_document_get_node(r->doc, *i);
		const char *v = text_of(r, n, where, cause);
		char *why = NULL;
		if (!v)
			return -1;
		if (add(v, items, &why) < 0) {
			set_cause(cause, "%s:%d: %s: %s", r->path, line_of(n), where, why);
			free(why);
			return -1;
		}
	}
	return 0;
}

static int tls_pair(struct reading *r, const char *key, const yaml_node_t *k, const yaml_node_t *v, char **cause)
{
	struct web_config *wc = r->wc;
	char where[80];
	snprintf(where, sizeof(where), "tls_server_config: %s", key);
	if (!strcmp(key, "cert_file") || !strcmp(key, "key_file") || !strcmp(key, "client_ca_file")) {
		const char *t = text_of(r, v, where, cause);
		if (!t)
			return -1;
		char **slot = key[0] == 'k' ? &r->key : key[1] == 'e' ? &r->cert : &r->ca;
		*slot = xstrdup(t);
		*(key[0] == 'k' ? &r->key_line : key[1] == 'e' ? &r->cert_line : &r->ca_line) = line_of(k);
		return 0;
	}
	if (!strcmp(key, "min_version") || !strcmp(key, "max_version")) {
		const char *t = text_of(r, v, where, cause);
		if (!t)
			return -1;
		int ver = web_tls_version(t);
		if (!ver)
			return set_cause(cause, "%s:%d: %s: expected TLS10, TLS11, TLS12 or TLS13, not '%s'", r->path,
					 line_of(v), where, t);
		if (key[1] == 'i') {
			wc->tls_min = (enum web_tls)ver;
			r->min_line = line_of(k);
		} else {
			wc->tls_max = (enum web_tls)ver;
			r->max_line = line_of(k);
		}
		return 0;
	}
	if (!strcmp(key, "client_auth_type")) {
		const char *t = v->type == YAML_SCALAR_NODE && is_null(v) ? "" : text_of(r, v, where, cause);
		char *why = NULL;
		if (!t)
			return -1;
		if (web_tls_client_auth(t, &wc->client_auth, &why) < 0) {
			set_cause(cause, "%s:%d: %s: %s", r->path, line_of(v), where, why);
			free(why);
			return -1;
		}
		r->auth_line = line_of(k);
		return 0;
	}
	if (!strcmp(key, "cipher_suites"))
		return each_item(r, v, where, web_tls_cipher, &wc->ciphers, cause);
	if (!strcmp(key, "curve_preferences"))
		return each_item(r, v, where, web_tls_curve, &wc->curves, cause);
	if (!strcmp(key, "prefer_server_cipher_suites"))
		return bool_of(r, v, where, &wc->server_order, cause);
	return set_cause(cause, "%s:%d: tls_server_config: unsupported key '%s' (pmctop reads cert_file, key_file, "
				"client_ca_file, client_auth_type, min_version, max_version, cipher_suites, "
				"curve_preferences and prefer_server_cipher_suites)", r->path, line_of(k), key);
}

static int user_pair(struct reading *r, const char *key, const yaml_node_t *k, const yaml_node_t *v, char **cause)
{
	struct web_config *wc = r->wc;
	if (!*key || strchr(key, ':'))
		return set_cause(cause, "%s:%d: basic_auth_users: a user name may not be empty or hold ':'", r->path,
				 line_of(k));
	const char *hash = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
	if (!is_bcrypt(hash))
		return set_cause(cause, "%s:%d: basic_auth_users: %s: expected a bcrypt hash ($2y$...), as htpasswd "
				        "-nBC 10 USER prints it", r->path, line_of(k), key);
	wc->users = xrealloc(wc->users, sizeof(*wc->users) * (size_t)(wc->nusers + 1));
	wc->users[wc->nusers++] = (struct web_user){ .name = xstrdup(key), .hash = xstrdup(hash) };
	return 0;
}

static int header_pair(struct reading *r, const char *key, const yaml_node_t *k, const yaml_node_t *v,
		       char **cause)
{
	struct web_config *wc = r->wc;
	const char *t = text_of(r, v, "http_server_config: headers", cause);
	char *why = NULL;
	if (!t)
		return -1;
	if (web_header_allowed(key, t, &why) < 0 || strpbrk(t, "\r\n")) {
		set_cause(cause, "%s:%d: http_server_config: headers: %s", r->path, line_of(k),
			  why ? why : "a value may not hold a line break");
		free(why);
		return -1;
	}
	wc->headers = xrealloc(wc->headers, sizeof(*wc->headers) * (size_t)(wc->nheaders + 1));
	wc->headers[wc->nheaders++] = (struct web_header){ .name = xstrdup(key), .value = xstrdup(t) };
	return 0;
}

static int http_pair(struct reading *r, const char *key, const yaml_node_t *k, const yaml_node_t *v, char **cause)
{
	if (!strcmp(key, "headers"))
		return is_null(v) ? 0 : each_pair(r, v, "http_server_config: headers", header_pair, cause);
	/* libmicrohttpd speaks HTTP/1.1 alone; Prometheus scrapes with it. */
	if (!strcmp(key, "http2")) {
		bool ignored;
		return bool_of(r, v, "http_server_config: http2", &ignored, cause);
	}
	return set_cause(cause, "%s:%d: http_server_config: unsupported key '%s' (pmctop reads headers and http2)",
			 r->path, line_of(k), key);
}

static int top_pair(struct reading *r, const char *key, const yaml_node_t *k, const yaml_node_t *v, char **cause)
{
	if (!strcmp(key, "tls_server_config")) {
		r->tls_line = line_of(k);
		return is_null(v) ? 0 : each_pair(r, v, key, tls_pair, cause);
	}
	if (!strcmp(key, "basic_auth_users")) {
		r->users_line = line_of(k);
		return is_null(v) ? 0 : each_pair(r, v, key, user_pair, cause);
	}
	if (!strcmp(key, "http_server_config"))
		return is_null(v) ? 0 : each_pair(r, v, key, http_pair, cause);
	return set_cause(cause, "%s:%d: unknown or unsupported key '%s' (pmctop reads tls_server_config, "
				"basic_auth_users and http_server_config)", r->path, line_of(k), key);
}

/* The checks across keys, once the file is read. */
static int check_whole(struct reading *r, char **cause)
{
	struct web_config *wc = r->wc;
	const char *path = r->path;
	if (r->tls_line && !r->cert && !r->key)
		return set_cause(cause, "%s:%d: tls_server_config: no cert_file and key_file (without them pmctop "
					"would serve plain HTTP; remove the section to mean that)", path, r->tls_line);
	if (wc->tls_min > wc->tls_max)
		return set_cause(cause, "%s:%d: tls_server_config: min_version is above max_version", path,
				 r->min_line ? r->min_line : r->max_line);
	/* An empty list would serve everyone: refused, as a list whose users
	 * were all commented out most likely meant something else. */
	if (r->users_line && wc->nusers == 0)
		return set_cause(cause, "%s:%d: basic_auth_users: no users (an empty list would serve without "
					"authentication; remove the key to mean that)", path, r->users_line);
	if ((!r->cert) != (!r->key))
		return set_cause(cause, "%s:%d: tls_server_config: %s without %s", path,
				 r->cert ? r->cert_line : r->key_line, r->cert ? "cert_file" : "key_file",
				 r->cert ? "key_file" : "cert_file");
	/* As exporter-toolkit: a CA without a policy is most likely a policy
	 * forgotten, and verifying needs a CA to verify with. */
	if (r->ca && wc->client_auth == WEB_NO_CLIENT_CERT)
		return set_cause(cause, "%s:%d: tls_server_config: client_ca_file without client_auth_type (say "
					"RequireAndVerifyClientCert for mutual TLS)", path, r->ca_line);
	if (!r->ca && wc->client_auth >= WEB_VERIFY_CLIENT_CERT_IF_GIVEN)
		return set_cause(cause, "%s:%d: tls_server_config: client_auth_type %s needs client_ca_file", path,
				 r->auth_line, wc->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN ?
				 "VerifyClientCertIfGiven" : "RequireAndVerifyClientCert");
	if (wc->client_auth != WEB_NO_CLIENT_CERT && !r->cert)
		return set_cause(cause, "%s:%d: tls_server_config: client_auth_type without cert_file and key_file "
					"(client certificates need TLS)", path, r->auth_line);
	return 0;
}

static struct web_config *load(const char *path, bool read_tls, char **cause)
{
	char *text = read_text_file(path);
	if (!text) {
		set_cause(cause, "--web-config %s: %s", path, strerror(errno));
		return NULL;
	}
	struct web_config *wc = xcalloc(1, sizeof(*wc));
	/* exporter-toolkit's defaults: TLS 1.0 and 1.1 have known weaknesses. */
	wc->tls_min = WEB_TLS12;
	wc->tls_max = WEB_TLS13;
	wc->server_order = true;
	yaml_parser_t parser;
	yaml_document_t doc;
	struct reading r = { .path = path, .doc = &doc, .wc = wc };
	int rc = 0;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &doc)) {
		rc = set_cause(cause, "%s:%zu: not YAML: %s%s%s", path, parser.problem_mark.line + 1,
			       parser.context ? parser.context : "", parser.context ? ", " : "",
			       parser.problem ? parser.problem : "unreadable");
		yaml_parser_delete(&parser);
	} else {
		/* One document: a second one would be ignored by a reader
		 * that stops at the first. */
		yaml_document_t more;
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		if (!yaml_parser_load(&parser, &more))
			rc = set_cause(cause, "%s:%zu: not YAML: %s", path, parser.problem_mark.line + 1,
				       parser.problem ? parser.problem : "unreadable");
		else {
			if (yaml_document_get_root_node(&more))
				rc = set_cause(cause, "%s:%zu: a second YAML document (pmctop reads one)", path,
					       more.start_mark.line + 1);
			yaml_document_delete(&more);
		}
		yaml_parser_delete(&parser);
		/* An empty file: plain HTTP, no users. */
		if (rc == 0 && root && !is_null(root))
			rc = each_pair(&r, root, "the file", top_pair, cause);
		if (rc == 0)
			rc = check_whole(&r, cause);
		yaml_document_delete(&doc);
	}
	if (rc == 0 && read_tls && r.cert && !(wc->cert_pem = read_named(path, r.cert_line, "cert_file", r.cert, cause)))
		rc = -1;
	if (rc == 0 && read_tls && r.key && !(wc->key_pem = read_named(path, r.key_line, "key_file", r.key, cause)))
		rc = -1;
	if (rc == 0 && read_tls && r.ca && !(wc->ca_pem = read_named(path, r.ca_line, "client_ca_file", r.ca, cause)))
		rc = -1;
	wc->tls = r.cert != NULL;
	wc->path = xstrdup(path);
	if (rc == 0) {
		wc->fixed = xasprintf("%s\n%s\n%s\n%d %d %d %d\n%s\n%s", r.cert ? r.cert : "", r.key ? r.key : "",
				      r.ca ? r.ca : "", (int)wc->client_auth, (int)wc->tls_min, (int)wc->tls_max,
				      (int)wc->server_order, wc->ciphers ? wc->ciphers : "", wc->curves ? wc->curves : "");
		for (int i = 0; i < wc->nheaders; i++) {
			char *n = xasprintf("%s\n%s: %s", wc->fixed, wc->headers[i].name, wc->headers[i].value);
			free(wc->fixed);
			wc->fixed = n;
		}
	}
	free(r.cert);
	free(r.key);
	free(r.ca);
	free(text);
	if (rc < 0) {
		web_config_free(wc);
		return NULL;
	}
	return wc;
}

struct web_config *web_config_load(const char *path, char **cause)
{
	return load(path, true, cause);
}

struct web_config *web_config_reload(const struct web_config *old, char **cause)
{
	struct web_config *wc = load(old->path, false, cause);
	if (wc && wc->tls != old->tls) {
		set_cause(cause, "%s: tls_server_config %s: TLS is turned on or off only when pmctop starts", old->path,
			  wc->tls ? "added" : "removed");
		web_config_free(wc);
		return NULL;
	}
	if (wc && strcmp(wc->fixed, old->fixed)) {
		set_cause(cause, "%s: tls_server_config or http_server_config changed: they are read only when pmctop "
			  "starts (restart it to apply them)", old->path);
		web_config_free(wc);
		return NULL;
	}
	/* An empty or truncated file must not open a protected server. */
	if (wc && old->nusers > 0 && wc->nusers == 0) {
		set_cause(cause, "%s: basic_auth_users removed: authentication is turned off only when pmctop starts",
			  old->path);
		web_config_free(wc);
		return NULL;
	}
	return wc;
}

/* Decodes base64 (RFC 4648, with padding) into a NUL-terminated string;
 * NULL when it is not base64. */
static char *base64_decode(const char *s)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s);
	if (n % 4)
		return NULL;
	char *out = xmalloc(n / 4 * 3 + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i += 4) {
		unsigned v = 0;
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			const char *d = s[i + (size_t)k] ? strchr(digits, s[i + (size_t)k]) : NULL;
			if (s[i + (size_t)k] == '=' && i + 4 == n && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (!d || pad) {
				free(out);
				return NULL;
			}
			v = v << 6 | (unsigned)(d - digits);
		}
		out[o++] = (char)(v >> 16);
		if (pad < 2)
			out[o++] = (char)(v >> 8 & 0xff);
		if (pad < 1)
			out[o++] = (char)(v & 0xff);
	}
	out[o] = '\0';
	if (strlen(out) != o) {   /* a NUL inside: no user:password of ours */
		free(out);
		return NULL;
	}
	return out;
}

/* Compares without stopping at the first difference: the time taken says
 * nothing about how much of a hash matched. */
static bool same(const char *a, const char *b)
{
	size_t n = strlen(a);
	if (n != strlen(b))
		return false;
	unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

bool web_config_authorized(const struct web_config *wc, const char *authorization)
{
	if (!wc || wc->nusers == 0)
		return true;
	if (!authorization || strncasecmp(authorization, "Basic ", 6))
		return false;
	const char *b64 = authorization + 6;
	while (*b64 == ' ')
		b64++;
	char *plain = base64_decode(b64);
	char *sep = plain ? strchr(plain, ':') : NULL;
	bool ok = false;
	if (sep) {
		*sep = '\0';
		/* An unknown user is checked against the first hash all the
		 * same, so that the time taken does not tell which users exist. */
		int who = 0;
		for (int i = 0; i < wc->nusers; i++)
			if (!strcmp(wc->users[i].name, plain))
				who = i + 1;
		const char *hash = wc->users[who ? who - 1 : 0].hash;
		struct crypt_data *cd = xcalloc(1, sizeof(*cd));
		const char *h = pmctop_crypt_r(sep + 1, hash, cd);
		ok = who && h && h[0] == '$' && same(h, hash);
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
		explicit_bzero(plain, strlen(plain) + strlen(sep + 1) + 1);
	}
	free(plain);
	return ok;
}
