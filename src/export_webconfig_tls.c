/* export_webconfig_tls.c: exporter-toolkit's TLS names (Go's crypto/tls
 * constants) in the web config, mapped to GnuTLS's priority items, which
 * is what libmicrohttpd takes (MHD_OPTION_HTTPS_PRIORITIES).
 *
 * A Go cipher suite is one key exchange, cipher and MAC; GnuTLS's priority
 * string lists each of them apart, so a list of suites allows the
 * combinations of the parts it names (RSA and ECDHE-RSA with AES-128-GCM
 * and CHACHA20 allow all four). The suites Go calls insecure (RC4, 3DES)
 * are refused rather than quietly served or dropped. */
#include "config.h"
#include "export_webconfig.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int web_tls_version(const char *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i]))
			return WEB_TLS10 + i;
	return 0;
}

static void append(char **items, const char *more)
{
	char *n = xasprintf("%s%s", *items ? *items : "", more);
	free(*items);
	*items = n;
}

/* Go's names; kx is empty for TLS 1.3's suites, which leave the key
 * exchange to the groups. */
static const struct {
	const char *go, *kx, *cipher, *mac;
} suites[] = {
	{ "TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256" },
	{ "TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD" },
	{ "TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC", "SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC", "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA", "AES-128-CBC", "SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC", "SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD" },
	/* Go's older names of the two above. */
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_AES_128_GCM_SHA256", "", "AES-128-GCM", "AEAD" },
	{ "TLS_AES_256_GCM_SHA384", "", "AES-256-GCM", "AEAD" },
	{ "TLS_CHACHA20_POLY1305_SHA256", "", "CHACHA20-POLY1305", "AEAD" },
};

int web_tls_cipher(const char *name, char **items, char **cause)
{
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (!strcmp(name, suites[i].go)) {
			char *more = xasprintf("%s%s:+%s:+%s", *suites[i].kx ? ":+" : "", suites[i].kx,
					       suites[i].cipher, suites[i].mac);
			append(items, more);
			free(more);
			return 0;
		}
	if (strstr(name, "RC4") || strstr(name, "3DES"))
		return set_cause(cause, "'%s' is a weak suite (RC4 or 3DES) that pmctop does not serve", name);
	return set_cause(cause, "unknown cipher suite '%s' (expected Go's names, such as "
				"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", name);
}

int web_tls_curve(const char *name, char **items, char **cause)
{
	static const struct {
		const char *go, *gnutls;
	} curves[] = {
		{ "CurveP256", "GROUP-SECP256R1" },
		{ "CurveP384", "GROUP-SECP384R1" },
		{ "CurveP521", "GROUP-SECP521R1" },
		{ "X25519", "GROUP-X25519" },
	};
	for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
		if (!strcmp(name, curves[i].go)) {
			char *more = xasprintf(":+%s", curves[i].gnutls);
			append(items, more);
			free(more);
			return 0;
		}
	return set_cause(cause, "unknown curve '%s' (expected CurveP256, CurveP384, CurveP521 or X25519)", name);
}

int web_tls_client_auth(const char *name, enum web_client_auth *out, char **cause)
{
	static const char *const names[] = { "NoClientCert", "RequestClientCert", "RequireAnyClientCert",
					     "VerifyClientCertIfGiven", "RequireAndVerifyClientCert" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum web_client_auth)i;
			return 0;
		}
	if (!*name) {
		*out = WEB_NO_CLIENT_CERT;
		return 0;
	}
	return set_cause(cause, "unknown client_auth_type '%s' (expected NoClientCert, RequestClientCert, "
				"RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert)", name);
}

/* exporter-toolkit allows these headers alone, some of them with fixed
 * values: a header such as Authorization or Set-Cookie in every answer
 * would be a mistake or worse. */
int web_header_allowed(const char *name, const char *value, char **cause)
{
	static const struct {
		const char *name, *values[3];
	} allowed[] = {
		{ "Strict-Transport-Security", { NULL } },
		{ "X-Content-Type-Options", { "nosniff", NULL } },
		{ "X-Frame-Options", { "deny", "sameorigin", NULL } },
		{ "X-XSS-Protection", { NULL } },
		{ "Content-Security-Policy", { NULL } },
	};
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		if (strcasecmp(name, allowed[i].name))
			continue;
		if (!allowed[i].values[0])
			return 0;
		for (int v = 0; allowed[i].values[v]; v++)
			if (!strcasecmp(value, allowed[i].values[v]))
				return 0;
		return set_cause(cause, "%s: expected %s%s%s, not '%s'", allowed[i].name, allowed[i].values[0],
				 allowed[i].values[1] ? " or " : "", allowed[i].values[1] ? allowed[i].values[1] : "",
				 value);
	}
	return set_cause(cause, "header '%s' cannot be set (exporter-toolkit's: Strict-Transport-Security, "
				"X-Content-Type-Options, X-Frame-Options, X-XSS-Protection and Content-Security-Policy)",
			 name);
}

char *web_config_tls_priorities(const struct web_config *wc)
{
	char *p = xstrdup("NORMAL:-VERS-ALL");
	for (int v = wc->tls_min; v <= (int)wc->tls_max; v++) {
		char *n = xasprintf("%s:+VERS-TLS1.%d", p, v - WEB_TLS10);
		free(p);
		p = n;
	}
	if (wc->ciphers) {
		char *n = xasprintf("%s:-KX-ALL:-CIPHER-ALL:-MAC-ALL%s", p, wc->ciphers);
		free(p);
		p = n;
	}
	if (wc->curves) {
		char *n = xasprintf("%s:-GROUP-ALL%s", p, wc->curves);
		free(p);
		p = n;
	}
	if (wc->server_order)
		append(&p, ":%SERVER_PRECEDENCE");
	return p;
}
