/* fleet_http.c: the fleet's HTTP client: every request of a refresh at
 * once (libcurl's multi interface, so that 1,000 exporters cost one
 * timeout, not a thousand), with the client config of --fleet-config
 * (YAML like a Prometheus scrape config's client side):
 *
 *     tls_config:
 *       ca_file: ca.crt          # relative to the file's directory
 *       cert_file: client.crt    # a client certificate (mTLS)
 *       key_file: client.key
 *       server_name: host1       # the name the certificate must hold
 *       insecure_skip_verify: false
 *     basic_auth:
 *       username: prometheus
 *       password_file: secret   # or password: ...
 *     timeout: 5s               # each request's limit (default 10s)
 *
 * Built without libcurl, fleet_supported() is false and --fleet says so. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>
#ifdef HAVE_LIBCURL
#include <curl/curl.h>
#endif

#include "fleet.h"
#include "util.h"

/* An answer larger than this is cut off and said: a 1,000-host vector
 * is a few hundred kB; a runaway or hostile server must not fill memory. */
#define FLEET_MAX_BODY (256u << 20)

void fleet_config_free(struct fleet_client_config *c)
{
	if (!c)
		return;
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	free(c->server_name);
	free(c->username);
	free(c->password);
	free(c);
}

void fleet_reply_done(struct fleet_reply *r)
{
	free(r->body);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

struct reading {
	yaml_document_t doc;
	const char *path;
	char *dir;
};

static int at(struct reading *r, const yaml_node_t *n, char **cause, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int at(struct reading *r, const yaml_node_t *n, char **cause, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	set_cause(cause, "%s:%d: %s", r->path, n ? (int)n->start_mark.line + 1 : 0, msg);
	free(msg);
	return -1;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A path relative to the config file's directory. */
static char *path_in(struct reading *r, const char *p)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", r->dir, p);
}

static int string_field(struct reading *r, const yaml_node_t *v, const char *key, char **out, bool is_path,
			char **cause)
{
	const char *s = scalar(v);
	if (!s || !*s)
		return at(r, v, cause, "%s expects a string", key);
	free(*out);
	*out = is_path ? path_in(r, s) : xstrdup(s);
	return 0;
}

static int tls_pair(struct reading *r, const char *k, const yaml_node_t *v, struct fleet_client_config *c,
		    char **cause)
{
	if (!strcmp(k, "ca_file"))
		return string_field(r, v, k, &c->ca_file, true, cause);
	if (!strcmp(k, "cert_file"))
		return string_field(r, v, k, &c->cert_file, true, cause);
	if (!strcmp(k, "key_file"))
		return string_field(r, v, k, &c->key_file, true, cause);
	if (!strcmp(k, "server_name"))
		return string_field(r, v, k, &c->server_name, false, cause);
	if (!strcmp(k, "insecure_skip_verify")) {
		const char *s = scalar(v);
		if (s && (!strcmp(s, "true") || !strcmp(s, "false"))) {
			c->insecure_skip_verify = !strcmp(s, "true");
			return 0;
		}
		return at(r, v, cause, "%s expects true or false", k);
	}
	return at(r, v, cause, "unknown tls_config key '%s' (ca_file, cert_file, key_file, server_name, "
		  "insecure_skip_verify)", k);
}

static int auth_pair(struct reading *r, const char *k, const yaml_node_t *v, struct fleet_client_config *c,
		     char **cause)
{
	if (!strcmp(k, "username"))
		return string_field(r, v, k, &c->username, false, cause);
	if (!strcmp(k, "password"))
		return string_field(r, v, k, &c->password, false, cause);
	if (!strcmp(k, "password_file")) {
		char *p = NULL;
		if (string_field(r, v, k, &p, true, cause) < 0)
			return -1;
		char *text = read_text_file(p);
		if (!text) {
			int rc = at(r, v, cause, "cannot read password_file %s", p);
			free(p);
			return rc;
		}
		free(p);
		text[strcspn(text, "\r\n")] = 0;
		free(c->password);
		c->password = text;
		return 0;
	}
	return at(r, v, cause, "unknown basic_auth key '%s' (username, password, password_file)", k);
}

typedef int (*pair_fn)(struct reading *r, const char *k, const yaml_node_t *v, struct fleet_client_config *c,
		       char **cause);

static int each_pair(struct reading *r, const yaml_node_t *map, const char *where, pair_fn fn,
		     struct fleet_client_config *c, char **cause)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return at(r, map, cause, "%s expects a mapping", where);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&r->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&r->doc, p->value);
		const char *ks = scalar(k);
		if (!ks)
			return at(r, k, cause, "%s: a key must be a string", where);
		if (fn(r, ks, v, c, cause) < 0)
			return -1;
	}
	return 0;
}

static int top_pair(struct reading *r, const char *k, const yaml_node_t *v, struct fleet_client_config *c,
		    char **cause)
{
	if (!strcmp(k, "tls_config"))
		return each_pair(r, v, k, tls_pair, c, cause);
	if (!strcmp(k, "basic_auth"))
		return each_pair(r, v, k, auth_pair, c, cause);
	if (!strcmp(k, "timeout")) {
		const char *s = scalar(v);
		char *t = s ? xstrdup(s) : NULL;
		size_t n = t ? strlen(t) : 0;
		if (n && t[n - 1] == 's')
			t[n - 1] = 0;
		bool ok = t && parse_double_c(t, &c->timeout_s) && c->timeout_s > 0 && c->timeout_s <= 3600;
		free(t);
		return ok ? 0 : at(r, v, cause, "%s expects seconds such as 5s (at most 3600)", k);
	}
	return at(r, v, cause, "unknown key '%s' (tls_config, basic_auth, timeout)", k);
}

struct fleet_client_config *fleet_config_load(const char *path, char **cause)
{
	struct fleet_client_config *c = xcalloc(1, sizeof(*c));
	struct reading r = { .path = path };
	char *text = read_text_file(path);
	if (!text) {
		set_cause(cause, "cannot read %s: %s", path, strerror(errno));
		free(c);
		return NULL;
	}
	char *pc = xstrdup(path);
	r.dir = xstrdup(dirname(pc));
	free(pc);
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	int rc = -1;
	if (!yaml_parser_load(&p, &r.doc)) {
		set_cause(cause, "%s:%d: %s", path, (int)p.problem_mark.line + 1, p.problem ? p.problem : "bad YAML");
		yaml_parser_delete(&p);
		free(text);
		free(r.dir);
		free(c);
		return NULL;
	}
	yaml_node_t *root = yaml_document_get_root_node(&r.doc);
	if (!root)
		rc = 0;   /* an empty file: no TLS, no user */
	else
		rc = each_pair(&r, root, "the file", top_pair, c, cause);
	if (rc == 0 && ((c->cert_file != NULL) != (c->key_file != NULL)))
		rc = set_cause(cause, "%s: tls_config needs both cert_file and key_file, or neither", path);
	if (rc == 0 && c->password && !c->username)
		rc = set_cause(cause, "%s: basic_auth has a password but no username", path);
	yaml_document_delete(&r.doc);
	yaml_parser_delete(&p);
	free(text);
	free(r.dir);
	if (rc < 0) {
		fleet_config_free(c);
		return NULL;
	}
	return c;
}

#ifdef HAVE_LIBCURL
bool fleet_supported(void)
{
	return true;
}

struct transfer {
	CURL *h;
	struct fleet_reply *reply;
	char errbuf[CURL_ERROR_SIZE];
	bool too_big;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t n = size * nmemb;
	struct fleet_reply *r = t->reply;
	if (r->len + n > FLEET_MAX_BODY) {
		t->too_big = true;
		return 0;   /* libcurl ends the transfer with a write error */
	}
	r->body = xrealloc(r->body, r->len + n + 1);
	memcpy(r->body + r->len, ptr, n);
	r->len += n;
	r->body[r->len] = 0;
	return n;
}

static void setup(CURL *h, const struct fleet_client_config *cfg, struct transfer *t, const char *url)
{
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_USERAGENT, "pmctop/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	double to = cfg && cfg->timeout_s > 0 ? cfg->timeout_s : 10;
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(to * 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(to * 1000));
	if (!cfg)
		return;
	if (cfg->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, cfg->ca_file);
	if (cfg->cert_file) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, cfg->cert_file);
		curl_easy_setopt(h, CURLOPT_SSLKEY, cfg->key_file);
	}
	if (cfg->insecure_skip_verify) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (cfg->username) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, cfg->username);
		curl_easy_setopt(h, CURLOPT_PASSWORD, cfg->password ? cfg->password : "");
	}
}

/* server_name: the certificate must name it whatever address the URL
 * has; libcurl checks the URL's host, so the URL's host is resolved to
 * its own address under that name (CURLOPT_CONNECT_TO). */
static struct curl_slist *connect_to(const struct fleet_client_config *cfg, CURL *h, char **url)
{
	if (!cfg || !cfg->server_name)
		return NULL;
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL;
	struct curl_slist *l = NULL;
	if (curl_url_set(u, CURLUPART_URL, *url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_HOST, cfg->server_name, 0) == CURLUE_OK) {
		char *nu = NULL;
		if (curl_url_get(u, CURLUPART_URL, &nu, 0) == CURLUE_OK) {
			char *line = xasprintf("%s:%s:%s:%s", cfg->server_name, port, host, port);
			l = curl_slist_append(NULL, line);
			free(line);
			free(*url);
			*url = xstrdup(nu);
			curl_free(nu);
			curl_easy_setopt(h, CURLOPT_CONNECT_TO, l);
		}
	}
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return l;
}

void fleet_http_get(const struct fleet_client_config *cfg, const atomic_bool *cancel, int n, char *const *urls,
		    struct fleet_reply *replies)
{
	static bool inited;
	if (!inited) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		inited = true;
	}
	CURLM *m = curl_multi_init();
	/* Not too many sockets at once: 1,000 exporters under ulimit -n 1024. */
	curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, 256L);
	struct transfer *t = xcalloc((size_t)(n ? n : 1), sizeof(*t));
	struct curl_slist **lists = xcalloc((size_t)(n ? n : 1), sizeof(*lists));
	double t0 = (double)now_ns() / 1e9;
	for (int i = 0; i < n; i++) {
		memset(&replies[i], 0, sizeof(replies[i]));
		t[i].reply = &replies[i];
		t[i].h = curl_easy_init();
		char *url = xstrdup(urls[i]);
		lists[i] = connect_to(cfg, t[i].h, &url);
		setup(t[i].h, cfg, &t[i], url);
		free(url);   /* libcurl copies the URL */
		curl_easy_setopt(t[i].h, CURLOPT_PRIVATE, &t[i]);
		curl_multi_add_handle(m, t[i].h);
	}
	int running = 1;
	/* A short poll, so that a cancel is seen within 0.1 s however long
	 * the server takes. */
	while (running && !(cancel && atomic_load(cancel))) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (running)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct transfer *x = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (!x)
			continue;
		x->reply->elapsed_s = (double)now_ns() / 1e9 - t0;
		CURLcode rc = msg->data.result;
		if (rc == CURLE_OK) {
			curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->reply->status);
			continue;
		}
		const char *why = x->too_big ? "the answer is too large" : x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
		x->reply->err = text_sanitize(why);
		/* One line: libcurl's text may end in a newline. */
		x->reply->err[strcspn(x->reply->err, "\n")] = 0;
	}
	for (int i = 0; i < n; i++) {
		if (!replies[i].status && !replies[i].err)
			replies[i].err = xstrdup(cancel && atomic_load(cancel) ? "cancelled" : "no answer");
		curl_multi_remove_handle(m, t[i].h);
		curl_easy_cleanup(t[i].h);
		curl_slist_free_all(lists[i]);
	}
	curl_multi_cleanup(m);
	free(lists);
	free(t);
}
#else
bool fleet_supported(void)
{
	return false;
}

void fleet_http_get(const struct fleet_client_config *cfg, const atomic_bool *cancel, int n, char *const *urls,
		    struct fleet_reply *replies)
{
	(void)cfg;
	(void)cancel;
	(void)urls;
	for (int i = 0; i < n; i++) {
		memset(&replies[i], 0, sizeof(replies[i]));
		replies[i].err = xstrdup("pmctop was built without libcurl");
	}
}
#endif
