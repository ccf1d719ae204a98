/* export_webconfig.c: reads --web-config (export_webconfig.h) and checks
 * basic authentication against its bcrypt hashes.
 *
 * Only the YAML the format uses is read: two top-level mappings of plain
 * or quoted scalars, with comments and blank lines. Anything else (an
 * unknown key, a sequence, a key this exporter does not implement such as
 * client_ca_file) is an error naming the line and the field, never ignored:
 * a security setting that is silently dropped would leave the exporter
 * more open than its operator wrote. Passwords are checked with crypt_r()
 * from libcrypt, which implements bcrypt. */
#include "config.h"
#include "export_webconfig.h"
#include "util.h"

#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void web_config_free(struct web_config *wc)
{
	if (!wc)
		return;
	free(wc->cert_pem);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	for (int i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	free(wc->path);
	free(wc);
}

/* A scalar: plain (up to a " #" comment, trimmed) or quoted ('' or ""
 * with \" and \\ in double quotes). NULL when a quote is not closed or
 * text follows it. */
static char *scalar(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"' || *s == '\'') {
		char q = *s++;
		char *out = xmalloc(strlen(s) + 1), *o = out;
		for (; *s && *s != q; s++) {
			if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
				s++;
			*o++ = *s;
		}
		*o = '\0';
		const char *rest = *s ? s + 1 : s;
		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (!*s || (*rest && *rest != '#')) {
			free(out);
			return NULL;
		}
		return out;
	}
	size_t n = strlen(s);
	const char *hash = strstr(s, " #");
	if (hash)
		n = (size_t)(hash - s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return xstrndup(s, n);
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

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

/* A TLS version by exporter-toolkit's name; 0 when it is none. */
static int tls_version(const char *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i]))
			return WEB_TLS10 + i;
	return 0;
}

char *web_config_tls_priorities(const struct web_config *wc)
{
	char *p = xstrdup("NORMAL:-VERS-ALL");
	for (int v = wc->tls_min; v <= (int)wc->tls_max; v++) {
		char *n = xasprintf("%s:+VERS-TLS1.%d", p, v - WEB_TLS10);
		free(p);
		p = n;
	}
	return p;
}

static struct web_config *load(const char *path, bool read_tls, char **cause)
{
	char *text = read_text_file(path);
	if (!text) {
		set_cause(cause, "--web-config %s: %s", path, strerror(errno));
		return NULL;
	}
	struct web_config *wc = xcalloc(1, sizeof(*wc));
	/* exporter-toolkit's default: TLS 1.0 and 1.1 have known weaknesses. */
	wc->tls_min = WEB_TLS12;
	wc->tls_max = WEB_TLS13;
	char *cert = NULL, *key = NULL;
	int cert_line = 0, key_line = 0, rc = 0, tls_line = 0, users_line = 0, min_line = 0, max_line = 0;
	enum section sec = SEC_NONE;
	int lineno = 0;
	char *save = NULL;
	for (char *l = text; rc == 0 && l; l = save) {
		save = strchr(l, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		size_t ind = strspn(l, " ");
		const char *body = l + ind;
		if (!*body || *body == '#' || !strcmp(body, "---"))
			continue;
		if (strchr(l, '\t')) {
			rc = set_cause(cause, "%s:%d: a tab: YAML indents with spaces", path, lineno);
			break;
		}
		/* A quoted key may hold ':' (a user name may not, which is
		 * checked below, with a clearer reason). */
		const char *kq = (body[0] == '"' || body[0] == '\'') ? strchr(body + 1, body[0]) : NULL;
		const char *colon = strchr(kq ? kq : body, ':');
		if (!colon || body[0] == '-') {
			rc = set_cause(cause, "%s:%d: expected 'key: value' (this exporter reads a mapping of mappings)",
				       path, lineno);
			break;
		}
		char *kraw = xstrndup(body, (size_t)(colon - body));
		char *k = scalar(kraw);
		free(kraw);
		if (!k)
			k = xstrdup("");
		char *v = scalar(colon + 1);
		if (!v)
			rc = set_cause(cause, "%s:%d: %s: a quoted value that is not closed, or text after it", path,
				       lineno, k);
		else if (ind == 0) {
			if (*v)
				rc = set_cause(cause, "%s:%d: %s: expected a mapping under it, not a value", path, lineno, k);
			else if (!strcmp(k, "tls_server_config") && !tls_line) {
				sec = SEC_TLS;
				tls_line = lineno;
			} else if (!strcmp(k, "basic_auth_users") && !users_line) {
				sec = SEC_USERS;
				users_line = lineno;
			} else if (!strcmp(k, "tls_server_config") || !strcmp(k, "basic_auth_users"))
				rc = set_cause(cause, "%s:%d: %s: repeated key", path, lineno, k);
			else
				rc = set_cause(cause, "%s:%d: unknown or unsupported key '%s' (pmctop reads "
						      "tls_server_config and basic_auth_users)", path, lineno, k);
		} else if (sec == SEC_NONE) {
			rc = set_cause(cause, "%s:%d: %s: indented, but under no section", path, lineno, k);
		} else if (!*v) {
			rc = set_cause(cause, "%s:%d: %s: expected a value", path, lineno, k);
		} else if (sec == SEC_TLS) {
			if (!strcmp(k, "cert_file") && !cert) {
				cert = xstrdup(v);
				cert_line = lineno;
			} else if (!strcmp(k, "key_file") && !key) {
				key = xstrdup(v);
				key_line = lineno;
			} else if ((!strcmp(k, "min_version") && !min_line) || (!strcmp(k, "max_version") && !max_line)) {
				int ver = tls_version(v);
				if (!ver)
					rc = set_cause(cause, "%s:%d: tls_server_config: %s: expected TLS10, TLS11, TLS12 or "
							      "TLS13, not '%s'", path, lineno, k, v);
				else if (k[1] == 'i') {
					wc->tls_min = (enum web_tls)ver;
					min_line = lineno;
				} else {
					wc->tls_max = (enum web_tls)ver;
					max_line = lineno;
				}
			} else {
				bool known = !strcmp(k, "cert_file") || !strcmp(k, "key_file") || !strcmp(k, "min_version") ||
					     !strcmp(k, "max_version");
				rc = set_cause(cause, "%s:%d: tls_server_config: %s '%s' (pmctop reads cert_file, "
						      "key_file, min_version and max_version, once each)", path, lineno,
					       known ? "repeated key" : "unsupported key", k);
			}
		} else {
			for (int i = 0; i < wc->nusers && rc == 0; i++)
				if (!strcmp(wc->users[i].name, k))
					rc = set_cause(cause, "%s:%d: basic_auth_users: user '%s' twice", path, lineno, k);
			if (rc == 0 && (!*k || strchr(k, ':')))
				rc = set_cause(cause, "%s:%d: basic_auth_users: a user name may not be empty or hold ':'",
					       path, lineno);
			if (rc == 0 && !is_bcrypt(v))
				rc = set_cause(cause, "%s:%d: basic_auth_users: %s: expected a bcrypt hash ($2y$...), "
						      "as htpasswd -nBC 10 USER prints it", path, lineno, k);
			if (rc == 0) {
				wc->users = xrealloc(wc->users, sizeof(*wc->users) * (size_t)(wc->nusers + 1));
				wc->users[wc->nusers++] = (struct web_user){ .name = xstrdup(k), .hash = xstrdup(v) };
			}
		}
		free(k);
		free(v);
	}
	if (rc == 0 && tls_line && !cert && !key)
		rc = set_cause(cause, "%s:%d: tls_server_config: no cert_file and key_file (without them pmctop "
				      "would serve plain HTTP; remove the section to mean that)", path, tls_line);
	if (rc == 0 && wc->tls_min > wc->tls_max)
		rc = set_cause(cause, "%s:%d: tls_server_config: min_version is above max_version", path,
			       min_line ? min_line : max_line);
	/* An empty list would serve everyone: refused, as a list whose users
	 * were all commented out most likely meant something else. */
	if (rc == 0 && users_line && wc->nusers == 0)
		rc = set_cause(cause, "%s:%d: basic_auth_users: no users (an empty list would serve without "
				      "authentication; remove the key to mean that)", path, users_line);
	if (rc == 0 && (!cert) != (!key))
		rc = set_cause(cause, "%s:%d: tls_server_config: %s without %s", path, cert ? cert_line : key_line,
			       cert ? "cert_file" : "key_file", cert ? "key_file" : "cert_file");
	if (rc == 0 && read_tls && cert && !(wc->cert_pem = read_named(path, cert_line, "cert_file", cert, cause)))
		rc = -1;
	if (rc == 0 && read_tls && key && !(wc->key_pem = read_named(path, key_line, "key_file", key, cause)))
		rc = -1;
	wc->tls = cert != NULL;
	wc->path = xstrdup(path);
	free(cert);
	free(key);
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
		const char *h = crypt_r(sep + 1, hash, cd);
		ok = who && h && h[0] == '$' && same(h, hash);
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
		explicit_bzero(plain, strlen(plain) + strlen(sep + 1) + 1);
	}
	free(plain);
	return ok;
}
