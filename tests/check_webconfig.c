/* check_webconfig.c: --web-config files (export_webconfig.c): the
 * node_exporter layout is read, every mistake is refused with the file,
 * line and field, certificate and key are read relative to the file, and
 * basic authentication accepts the right password for a bcrypt hash and
 * nothing else (a wrong password, an unknown user, a damaged header).
 * The exporter's credential cache and bcrypt ration (export_auth.c):
 * SipHash's reference vector, two users both remembered, the table
 * bounded with the least recently used dropped, and the buckets. */
#include <arpa/inet.h>
#include "config.h"
#include <check.h>
#include <dirent.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_auth.h"
#include "export_webconfig.h"
#include "util.h"

/* bcrypt (cost 4) of "right horse". */
#define HASH "$2y$04$pmctopTestSaltPmctopTeeCrxjkeJP7nWS5A2vPyy/pWLIX1OpWq"

static char *dir;

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void setup(void)
{
	dir = xstrdup("/tmp/check_webconfig.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	free(put("c.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"));
	free(put("k.pem", "-----BEGIN PRIVATE KEY-----\ny\n-----END PRIVATE KEY-----\n"));
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

START_TEST(test_good)
{
	char *path = put("web.yml", "# pmctop's web config\n---\ntls_server_config:\n  cert_file: c.pem   # relative\n"
				    "  key_file: \"k.pem\"\n\nbasic_auth_users:\n  prometheus: " HASH "\n"
				    "  'second': '" HASH "'\n");
	char *cause = NULL;
	struct web_config *wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s", cause);
	ck_assert_ptr_nonnull(strstr(wc->cert_pem, "BEGIN CERTIFICATE"));
	ck_assert_ptr_nonnull(strstr(wc->key_pem, "BEGIN PRIVATE KEY"));
	ck_assert_int_eq(wc->nusers, 2);
	ck_assert_str_eq(wc->users[1].name, "second");
	ck_assert_str_eq(wc->users[1].hash, HASH);
	/* "prometheus:right horse", and variations on it. */
	ck_assert(web_config_authorized(wc, "Basic cHJvbWV0aGV1czpyaWdodCBob3JzZQ=="));
	ck_assert(web_config_authorized(wc, "basic  cHJvbWV0aGV1czpyaWdodCBob3JzZQ=="));
	ck_assert(!web_config_authorized(wc, "Basic cHJvbWV0aGV1czp3cm9uZw=="));        /* prometheus:wrong */
	ck_assert(!web_config_authorized(wc, "Basic bm9ib2R5OnJpZ2h0IGhvcnNl"));        /* nobody:right horse */
	ck_assert(!web_config_authorized(wc, NULL));
	ck_assert(!web_config_authorized(wc, ""));
	ck_assert(!web_config_authorized(wc, "Bearer cHJvbWV0aGV1czpyaWdodCBob3JzZQ=="));
	ck_assert(!web_config_authorized(wc, "Basic cHJvbWV0aGV1czpyaWdodCBob3JzZQ="));  /* cut */
	ck_assert(!web_config_authorized(wc, "Basic !!!!"));
	ck_assert(!web_config_authorized(wc, "Basic cHJvbWV0aGV1cw=="));                /* no ':' */
	web_config_free(wc);
	free(path);
	/* Without users anyone is answered; without TLS there is no PEM. */
	path = put("plain.yml", "# nothing\n");
	wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s", cause);
	ck_assert_ptr_null(wc->cert_pem);
	ck_assert(web_config_authorized(wc, NULL));
	web_config_free(wc);
	free(path);
	/* TLS 1.2 and 1.3 unless the file says otherwise. */
	path = put("tls.yml", "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n");
	wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s", cause);
	char *prio = web_config_tls_priorities(wc);
	ck_assert_str_eq(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3:%SERVER_PRECEDENCE");
	free(prio);
	web_config_free(wc);
	free(path);
	path = put("tls.yml", "tls_server_config:\n  min_version: TLS10\n  max_version: \"TLS12\"\n"
			      "  cert_file: c.pem\n  key_file: k.pem\n");
	wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s", cause);
	prio = web_config_tls_priorities(wc);
	ck_assert_str_eq(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.0:+VERS-TLS1.1:+VERS-TLS1.2:%SERVER_PRECEDENCE");
	free(prio);
	web_config_free(wc);
	free(path);
}
END_TEST

/* Each bad file and the end of its cause (after "DIR/web.yml:"). */
static const struct {
	int line;
	const char *text, *want;
} bad[] = {
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n", "2: tls_server_config: cert_file without key_file" },
	{ __LINE__, "tls_server_config:\n  key_file: k.pem\n", "2: tls_server_config: key_file without cert_file" },
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n  key_file: none.pem\n",
	  "3: key_file: cannot read " },
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  client_cert: ca.pem\n",
	  "4: tls_server_config: unsupported key 'client_cert' (pmctop reads cert_file, key_file, client_ca_file, "
	  "client_auth_type, min_version, max_version, cipher_suites, curve_preferences and "
	  "prefer_server_cipher_suites)" },
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  min_version: TLS1.2\n",
	  "4: tls_server_config: min_version: expected TLS10, TLS11, TLS12 or TLS13, not 'TLS1.2'" },
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  min_version: TLS13\n"
		    "  max_version: TLS12\n", "4: tls_server_config: min_version is above max_version" },
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  max_version: TLS12\n"
		    "  max_version: TLS13\n", "5: tls_server_config: repeated key 'max_version'" },
	{ __LINE__, "tls_server_config:\n  min_version: TLS13\n",
	  "1: tls_server_config: no cert_file and key_file (without them pmctop would serve plain HTTP" },
	{ __LINE__, "# users\nbasic_auth_users:\n#  alice: " HASH "\n",
	  "2: basic_auth_users: no users (an empty list would serve without authentication; remove the key "
	  "to mean that)" },
	{ __LINE__, "basic_auth_users:\n  alice: " HASH "\nbasic_auth_users:\n  bob: " HASH "\n",
	  "3: the file: repeated key 'basic_auth_users'" },
	{ __LINE__, "tls_server_config:\n  cert_file: c.pem\n  cert_file: c.pem\n",
	  "3: tls_server_config: repeated key 'cert_file'" },
	{ __LINE__, "http_server:\n  http2: false\n",
	  "1: unknown or unsupported key 'http_server' (pmctop reads tls_server_config, basic_auth_users and "
	  "http_server_config)" },
	{ __LINE__, "basic_auth_users:\n  alice: secret\n",
	  "2: basic_auth_users: alice: expected a bcrypt hash ($2y$...), as htpasswd -nBC 10 USER prints it" },
	{ __LINE__, "basic_auth_users:\n  alice: " HASH "\n  alice: " HASH "\n", "3: basic_auth_users: repeated key 'alice'" },
	{ __LINE__, "basic_auth_users:\n  'a:b': " HASH "\n", "2: basic_auth_users: a user name may not be empty or hold ':'" },
	{ __LINE__, "basic_auth_users: x\n", "1: basic_auth_users: expected a mapping under it, not a value" },
	{ __LINE__, "  alice: x\n", "1: unknown or unsupported key 'alice'" },
	{ __LINE__, "basic_auth_users:\n  - alice\n", "2: basic_auth_users: expected a mapping under it, not a list" },
	{ __LINE__, "basic_auth_users:\n\talice: x\n", "2: not YAML: while scanning for the next token, found character that cannot start any token" },
	{ __LINE__, "basic_auth_users:\n  alice: \"" HASH "\n", "2: not YAML: while scanning a quoted scalar, found unexpected end of stream" },
	{ __LINE__, "tls_server_config:\n  cert_file:\n", "2: tls_server_config: cert_file: expected a value" },
	{ __LINE__, "basic_auth_users: {alice: '" HASH "', bob: [x]}\n", "1: basic_auth_users: bob: expected a bcrypt hash" },
};

START_TEST(test_bad)
{
	char *path = put("web.yml", bad[_i].text);
	char *cause = NULL;
	ck_assert_ptr_null(web_config_load(path, &cause));
	char *want = xasprintf("%s:%s", path, bad[_i].want);
	ck_assert_msg(cause && !strncmp(cause, want, strlen(want)), "line %d:\n got  %s\n want %s", bad[_i].line,
		      cause ? cause : "(none)", want);
	free(want);
	free(cause);
	free(path);
	cause = NULL;
	ck_assert_ptr_null(web_config_load("/nonexistent/web.yml", &cause));
	ck_assert_ptr_nonnull(strstr(cause, "--web-config /nonexistent/web.yml: No such file"));
	free(cause);
}
END_TEST

/* Flow style and the keys beyond versions: what reaches GnuTLS and the
 * responses. */
START_TEST(test_flow)
{
	char *path = put("web.yml", "tls_server_config: {cert_file: c.pem, key_file: k.pem, client_ca_file: c.pem,\n"
				    "  client_auth_type: RequireAndVerifyClientCert, prefer_server_cipher_suites: no,\n"
				    "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384],\n"
				    "  curve_preferences: [X25519]}\n"
				    "basic_auth_users: {prometheus: '" HASH "'}\n"
				    "http_server_config: {http2: false, headers: {Strict-Transport-Security: max-age=60}}\n");
	char *cause = NULL;
	struct web_config *wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s", cause);
	ck_assert_int_eq(wc->client_auth, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT);
	ck_assert_ptr_nonnull(strstr(wc->ca_pem, "BEGIN CERTIFICATE"));
	ck_assert_int_eq(wc->nusers, 1);
	ck_assert(web_config_authorized(wc, "Basic cHJvbWV0aGV1czpyaWdodCBob3JzZQ=="));
	ck_assert_int_eq(wc->nheaders, 1);
	ck_assert_str_eq(wc->headers[0].name, "Strict-Transport-Security");
	ck_assert_str_eq(wc->headers[0].value, "max-age=60");
	char *prio = web_config_tls_priorities(wc);
	ck_assert_str_eq(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3:-KX-ALL:-CIPHER-ALL:-MAC-ALL"
			       ":+ECDHE-RSA:+AES-128-GCM:+AEAD:+AES-256-GCM:+AEAD:-GROUP-ALL:+GROUP-X25519");
	free(prio);
	web_config_free(wc);
	free(path);
}
END_TEST

/* The kinds of file exporter-toolkit's documentation gives load; broken
 * ones are refused with the line their first comment names. */
static void each_fixture(const char *sub, void (*check)(const char *path))
{
	char *d = xasprintf("%s/%s", WEBCONFIG_FIXTURES, sub);
	DIR *dir_ = opendir(d);
	ck_assert_msg(dir_ != NULL, "%s", d);
	int n = 0;
	for (struct dirent *e; (e = readdir(dir_));) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".yml"))
			continue;
		char *path = xasprintf("%s/%s", d, e->d_name);
		check(path);
		free(path);
		n++;
	}
	closedir(dir_);
	ck_assert_msg(n >= 8, "%s: %d files", d, n);
	free(d);
}

static void good_one(const char *path)
{
	char *cause = NULL;
	struct web_config *wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s refused: %s", path, cause);
	web_config_free(wc);
}

static void bad_one(const char *path)
{
	char *text = read_text_file(path);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(!strncmp(text, "# want: ", 8), "%s: no '# want:' line", path);
	char *nl = strchr(text, '\n');
	*nl = '\0';
	char *want = xasprintf("%s:%s", path, text + 8);
	char *cause = NULL;
	ck_assert_msg(web_config_load(path, &cause) == NULL, "%s accepted", path);
	ck_assert_msg(!strncmp(cause, want, strlen(want)), "\n got  %s\n want %s", cause, want);
	free(cause);
	free(want);
	free(text);
}

START_TEST(test_fixtures)
{
	each_fixture("good", good_one);
	each_fixture("bad", bad_one);
}
END_TEST

/* A reload reads the users again, not the key (root's alone once pmctop
 * has given up its privileges), and refuses TLS turned on or off. */
START_TEST(test_reload)
{
	char *path = put("web.yml", "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
				    "basic_auth_users:\n  alice: " HASH "\n");
	char *cause = NULL;
	struct web_config *wc = web_config_load(path, &cause);
	ck_assert_msg(wc != NULL, "%s", cause);
	char *key = xasprintf("%s/k.pem", dir);
	ck_assert_int_eq(unlink(key), 0);
	free(key);
	free(put("web.yml", "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
			    "basic_auth_users:\n  bob: " HASH "\n  carol: " HASH "\n"));
	struct web_config *n = web_config_reload(wc, &cause);
	ck_assert_msg(n != NULL, "%s", cause);
	ck_assert_int_eq(n->nusers, 2);
	ck_assert_str_eq(n->users[0].name, "bob");
	ck_assert(n->tls);
	ck_assert_ptr_null(n->key_pem);
	web_config_free(n);
	free(put("web.yml", "basic_auth_users:\n  bob: " HASH "\n"));
	ck_assert_ptr_null(web_config_reload(wc, &cause));
	ck_assert_msg(strstr(cause, "tls_server_config removed: TLS is turned on or off only when pmctop starts"),
		      "%s", cause);
	free(cause);
	cause = NULL;
	free(put("web.yml", "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"));
	ck_assert_ptr_null(web_config_reload(wc, &cause));
	ck_assert_msg(strstr(cause, "basic_auth_users removed: authentication is turned off only when pmctop starts"),
		      "%s", cause);
	free(cause);
	cause = NULL;
	free(put("web.yml", ""));
	ck_assert_ptr_null(web_config_reload(wc, &cause));
	free(cause);
	cause = NULL;
	/* The same users in flow style, the TLS settings unchanged: taken. */
	free(put("web.yml", "tls_server_config: {cert_file: c.pem, key_file: k.pem}\n"
			    "basic_auth_users: {bob: '" HASH "'}\n"));
	n = web_config_reload(wc, &cause);
	ck_assert_msg(n != NULL, "%s", cause);
	web_config_free(n);
	/* Another TLS setting or header would not be served until a restart:
	 * refused, not taken as if it were. */
	static const char *const changed[] = {
		"  min_version: TLS13\n",
		"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: c.pem\n",
		"  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n",
		"  curve_preferences: [X25519]\n",
		"  prefer_server_cipher_suites: false\n",
		"http_server_config: {headers: {X-Frame-Options: deny}}\n",
	};
	for (size_t i = 0; i < sizeof(changed) / sizeof(changed[0]); i++) {
		char *text = xasprintf("tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n%s"
				       "basic_auth_users:\n  bob: " HASH "\n", changed[i]);
		free(put("web.yml", text));
		free(text);
		ck_assert_msg(web_config_reload(wc, &cause) == NULL, "%s taken", changed[i]);
		ck_assert_msg(strstr(cause, "web.yml: tls_server_config or http_server_config changed: they are read "
					    "only when pmctop starts"), "%s", cause);
		free(cause);
		cause = NULL;
	}
	free(put("web.yml", "basic_auth_users:\n  bob: secret\n"));
	ck_assert_ptr_null(web_config_reload(wc, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "web.yml:2: basic_auth_users: bob: expected a bcrypt hash"));
	free(cause);
	web_config_free(wc);
	free(path);
}
END_TEST

START_TEST(test_siphash)
{
	/* The reference implementation's first 128-bit vector: key 00..0f,
	 * the empty message; and its 16th (message 00..0e). */
	uint8_t key[16], msg[15], out[16];
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 15; i++)
		msg[i] = (uint8_t)i;
	static const uint8_t want0[16] = { 0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6,
					   0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93 };
	export_siphash128(msg, 0, key, out);
	ck_assert_mem_eq(out, want0, 16);
	uint8_t other[16];
	export_siphash128(msg, 15, key, out);
	key[0] ^= 1;
	export_siphash128(msg, 15, key, other);
	ck_assert(memcmp(out, other, 16) != 0);
}
END_TEST

START_TEST(test_cache)
{
	struct export_auth *a = export_auth_new();
	ck_assert(!export_auth_known(a, "Basic cHJvbWV0aGV1czpyaWdodCBob3JzZQ=="));
	ck_assert(!export_auth_known(a, NULL));
	/* Two users alternating (an HA pair of Prometheus servers) are both
	 * remembered: neither pays bcrypt again. */
	export_auth_remember(a, "Basic one");
	export_auth_remember(a, "Basic two");
	for (int i = 0; i < 4; i++) {
		ck_assert(export_auth_known(a, "Basic one"));
		ck_assert(export_auth_known(a, "Basic two"));
	}
	ck_assert(!export_auth_known(a, "Basic on"));
	ck_assert(!export_auth_known(a, "Basic one "));
	/* Bounded: as many more headers as the table holds push out the
	 * least recently used ("two"), not the one just found ("one"). */
	for (int i = 0; i < EXPORT_AUTH_CACHE - 2; i++) {
		char h[32];
		snprintf(h, sizeof(h), "Basic user%d", i);
		export_auth_remember(a, h);
	}
	ck_assert(export_auth_known(a, "Basic one"));
	export_auth_remember(a, "Basic newest");
	ck_assert(export_auth_known(a, "Basic newest"));
	ck_assert(export_auth_known(a, "Basic one"));
	ck_assert(!export_auth_known(a, "Basic two"));
	export_auth_free(a);
}
END_TEST

START_TEST(test_buckets)
{
	struct export_auth *a = export_auth_new();
	struct sockaddr_in v4[8];
	for (int i = 0; i < 8; i++) {
		v4[i] = (struct sockaddr_in){ .sin_family = AF_INET };
		v4[i].sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)i);
	}
	const struct sockaddr *s0 = (const struct sockaddr *)&v4[0];
	/* One address: its burst, then nothing until its bucket refills. */
	int n = 0;
	while (export_auth_take(a, s0, 100.0))
		n++;
	ck_assert_int_eq(n, (int)EXPORT_AUTH_CLIENT_BURST);
	ck_assert(!export_auth_take(a, s0, 100.0 + 0.5 / EXPORT_AUTH_CLIENT_RATE));
	ck_assert(export_auth_take(a, s0, 100.0 + 1.01 / EXPORT_AUTH_CLIENT_RATE));
	/* Other addresses get theirs until the server's bucket is empty. */
	struct export_auth *c = export_auth_new();
	int total = 0;
	for (int i = 0; i < 8; i++)
		while (export_auth_take(c, (const struct sockaddr *)&v4[i], 100.0))
			total++;
	ck_assert_int_eq(total, (int)EXPORT_AUTH_TOTAL_BURST);
	ck_assert(!export_auth_take(c, NULL, 100.0));
	ck_assert(export_auth_take(c, NULL, 100.0 + 1.01 / EXPORT_AUTH_TOTAL_RATE));
	export_auth_free(c);
	/* IPv6 clients of one /64 share a bucket. */
	struct export_auth *b = export_auth_new();
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	inet_pton(AF_INET6, "2001:db8:1:2::1", &v6.sin6_addr);
	n = 0;
	for (int i = 0; i < 20; i++) {
		v6.sin6_addr.s6_addr[15] = (uint8_t)i;
		n += export_auth_take(b, (const struct sockaddr *)&v6, 5.0);
	}
	ck_assert_int_eq(n, (int)EXPORT_AUTH_CLIENT_BURST);
	export_auth_free(a);
	export_auth_free(b);
}
END_TEST

static Suite *webconfig_suite(void)
{
	Suite *s = suite_create("webconfig");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_good);
	tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_flow);
	tcase_add_test(tc, test_fixtures);
	tcase_add_test(tc, test_reload);
	tcase_add_test(tc, test_siphash);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_buckets);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(webconfig_suite());
}
