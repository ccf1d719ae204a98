/* perf_import_json.c: perf's JSON files read into jansson values by a
 * reader of pmctop's own. jansson's reader takes every byte through a
 * stream callback, its UTF-8 check and a growing buffer: for an imported
 * model that was half of pmctop's start-up (48 M of 101 M instructions for
 * perf-rocketlake's 330 kB of JSON, docs/performance.md). This one reads
 * the file at once and walks it in place, building the same values with
 * jansson's own constructors, so that the importer is unchanged.
 *
 * It takes what jansson's json_load_file takes with no flags (RFC 8259,
 * an object or an array at the top, no NUL in strings, integers that fit
 * in a json_int_t) and gives equal values (tests/check_perf_import.c and
 * fuzz/fuzz_perf_json.c compare the two); an error says the file, the
 * line and column, and what was expected there. */
#include "config.h"
#include "perf_import_impl.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* jansson's limit too: deeper input is refused, not a deep recursion. */
#define PJ_MAX_DEPTH 2048

struct pj {
	const char *start, *p, *end;
	const char *path;
	char *err;               /* the first error, with its place */
	char *sb;                /* unescaped string text */
	size_t sbcap;
	int depth;
};

static json_t *pj_value(struct pj *j);

static json_t *pj_fail(struct pj *j, const char *what)
{
	if (j->err)
		return NULL;
	int line = 1, col = 1;
	for (const char *q = j->start; q < j->p && q < j->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	j->err = xasprintf("%s:%d:%d: %s", j->path, line, col, what);
	return NULL;
}

static void pj_ws(struct pj *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

/* The length of the UTF-8 sequence at s (at most n bytes), 0 if it is
 * not a valid one (overlong, a surrogate, past U+10FFFF, cut short). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (len == 0 || s[0] > 0xf4 || n < len)
		return 0;
	unsigned cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void sb_put(struct pj *j, size_t *n, const char *s, size_t len)
{
	if (*n + len + 1 > j->sbcap) {
		while (*n + len + 1 > j->sbcap)
			j->sbcap = j->sbcap ? j->sbcap * 2 : 256;
		j->sb = xrealloc(j->sb, j->sbcap);
	}
	memcpy(j->sb + *n, s, len);
	*n += len;
}

static int hex4(const char *s, const char *end)
{
	if (end - s < 4)
		return -1;
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* A \u escape at j->p (past the backslash and 'u'), as UTF-8 into the
 * string buffer; a surrogate pair is one code point. */
static bool pj_unicode(struct pj *j, size_t *n)
{
	int cp = hex4(j->p, j->end);
	if (cp < 0) {
		pj_fail(j, "invalid \\u escape: expected four hexadecimal digits");
		return false;
	}
	j->p += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff) {
		pj_fail(j, "invalid Unicode escape: a low surrogate alone");
		return false;
	}
	if (cp >= 0xd800 && cp <= 0xdbff) {
		int lo = j->end - j->p >= 2 && j->p[0] == '\\' && j->p[1] == 'u' ? hex4(j->p + 2, j->end) : -1;
		if (lo < 0xdc00 || lo > 0xdfff) {
			pj_fail(j, "invalid Unicode escape: a high surrogate without its low one");
			return false;
		}
		j->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0) {
		pj_fail(j, "\\u0000 is not allowed in a string");
		return false;
	}
	char u[4];
	size_t len;
	if (cp < 0x80) {
		u[0] = (char)cp;
		len = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		len = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		len = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		len = 4;
	}
	sb_put(j, n, u, len);
	return true;
}

/* A string at j->p (its opening quote): its text in j->sb, *len bytes,
 * NUL-terminated; false on an error. Text without escapes is copied in
 * one piece. */
static bool pj_string(struct pj *j, size_t *len)
{
	j->p++;
	size_t n = 0;
	for (;;) {
		const char *run = j->p;
		while (j->p < j->end) {
			unsigned char c = (unsigned char)*j->p;
			if (c == '"' || c == '\\' || c < 0x20)
				break;
			if (c < 0x80) {
				j->p++;
				continue;
			}
			size_t ul = utf8_len((const unsigned char *)j->p, (size_t)(j->end - j->p));
			if (!ul) {
				pj_fail(j, "invalid UTF-8 in a string");
				return false;
			}
			j->p += ul;
		}
		sb_put(j, &n, run, (size_t)(j->p - run));
		if (j->p >= j->end) {
			pj_fail(j, "unterminated string: expected '\"'");
			return false;
		}
		char c = *j->p;
		if (c == '"')
			break;
		if (c != '\\') {
			pj_fail(j, "control character in a string: expected it escaped");
			return false;
		}
		if (++j->p >= j->end) {
			pj_fail(j, "unterminated string: expected an escape after '\\'");
			return false;
		}
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *k = *j->p ? strchr(from, *j->p) : NULL;
		if (k) {
			sb_put(j, &n, &to[k - from], 1);
			j->p++;
		} else if (*j->p == 'u') {
			j->p++;
			if (!pj_unicode(j, &n))
				return false;
		} else {
			pj_fail(j, "invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
			return false;
		}
	}
	j->p++;
	sb_put(j, &n, "", 0);
	j->sb[n] = '\0';
	*len = n;
	return true;
}

static json_t *pj_number(struct pj *j)
{
	const char *s = j->p, *q = s;
	bool real = false;
	if (q < j->end && *q == '-')
		q++;
	if (q >= j->end || *q < '0' || *q > '9') {
		j->p = q;
		return pj_fail(j, "invalid number: expected a digit");
	}
	/* One 0, or digits that do not start with 0 ("01" is refused below). */
	if (*q == '0')
		q++;
	else
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	if (q < j->end && *q == '.') {
		real = true;
		if (++q >= j->end || *q < '0' || *q > '9') {
			j->p = q;
			return pj_fail(j, "invalid number: expected a digit after '.'");
		}
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < j->end && (*q == 'e' || *q == 'E')) {
		real = true;
		if (++q < j->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= j->end || *q < '0' || *q > '9') {
			j->p = q;
			return pj_fail(j, "invalid number: expected a digit in the exponent");
		}
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	/* A letter or digit straight after the number (0x1A, 01) is not JSON. */
	if (q < j->end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))) {
		j->p = q;
		return pj_fail(j, "invalid number: expected ',', ']' or '}' after it");
	}
	char num[64];
	size_t len = (size_t)(q - s);
	if (len >= sizeof(num))
		return pj_fail(j, "number too long");
	memcpy(num, s, len);
	num[len] = '\0';
	errno = 0;
	json_t *v;
	if (real) {
		double d = strtod(num, NULL);
		if (errno == ERANGE && (d > 1 || d < -1))
			return pj_fail(j, "real number overflows");
		v = json_real(d);
	} else {
		long long ll = strtoll(num, NULL, 10);
		if (errno == ERANGE)
			return pj_fail(j, "too big integer");
		v = json_integer((json_int_t)ll);
	}
	j->p = q;
	return v;
}

static bool pj_word(struct pj *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static json_t *pj_object(struct pj *j)
{
	json_t *o = json_object();
	j->p++;
	pj_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return o;
	}
	for (;;) {
		pj_ws(j);
		size_t len;
		if (j->p >= j->end || *j->p != '"' || !pj_string(j, &len))
			goto fail;
		char *key = xstrndup(j->sb, len);
		pj_ws(j);
		if (j->p >= j->end || *j->p != ':') {
			free(key);
			pj_fail(j, "expected ':' after an object's key");
			goto fail;
		}
		j->p++;
		json_t *v = pj_value(j);
		if (!v) {
			free(key);
			goto fail;
		}
		/* A key given twice keeps its last value, as jansson does. */
		json_object_set_new_nocheck(o, key, v);
		free(key);
		pj_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return o;
		}
		pj_fail(j, "expected ',' or '}' in an object");
		goto fail;
	}
fail:
	pj_fail(j, "expected a string as an object's key");
	json_decref(o);
	return NULL;
}

static json_t *pj_array(struct pj *j)
{
	json_t *a = json_array();
	j->p++;
	pj_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return a;
	}
	for (;;) {
		json_t *v = pj_value(j);
		if (!v)
			break;
		json_array_append_new(a, v);
		pj_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return a;
		}
		pj_fail(j, "expected ',' or ']' in an array");
		break;
	}
	json_decref(a);
	return NULL;
}

static json_t *pj_value(struct pj *j)
{
	pj_ws(j);
	if (j->p >= j->end)
		return pj_fail(j, "unexpected end of file: expected a value");
	json_t *v = NULL;
	size_t len;
	switch (*j->p) {
	case '{':
	case '[':
		/* Arrays and objects count, as jansson counts them. */
		if (++j->depth > PJ_MAX_DEPTH)
			return pj_fail(j, "maximum nesting depth reached");
		v = *j->p == '{' ? pj_object(j) : pj_array(j);
		j->depth--;
		break;
	case '"':
		v = pj_string(j, &len) ? json_stringn_nocheck(j->sb, len) : NULL;
		break;
	case 't':
		v = pj_word(j, "true") ? json_true() : pj_fail(j, "invalid word: expected 'true'");
		break;
	case 'f':
		v = pj_word(j, "false") ? json_false() : pj_fail(j, "invalid word: expected 'false'");
		break;
	case 'n':
		v = pj_word(j, "null") ? json_null() : pj_fail(j, "invalid word: expected 'null'");
		break;
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
			v = pj_number(j);
		else
			v = pj_fail(j, "unexpected character: expected a value");
	}
	return v;
}

json_t *perf_json_parse(const char *text, size_t len, const char *path, char **cause)
{
	struct pj j = { .start = text, .p = text, .end = text + len, .path = path };
	pj_ws(&j);
	json_t *v = NULL;
	if (j.p >= j.end || (*j.p != '[' && *j.p != '{'))
		pj_fail(&j, "expected '[' or '{' at the start of the file");
	else
		v = pj_value(&j);
	pj_ws(&j);
	if (v && j.p < j.end) {
		pj_fail(&j, "expected the end of the file after the top-level value");
		json_decref(v);
		v = NULL;
	}
	free(j.sb);
	if (!v) {
		if (cause)
			*cause = j.err;
		else
			free(j.err);
	}
	return v;
}

/* perf's largest event file is under 1 MB (icelakex's
 * uncore-interconnect.json, 840 KB); a file many times that is not one of
 * perf's, and reading it whole would hold its size several times over in
 * memory (a 212 MB file took 588 MB). */
#define PERF_JSON_MAX (16 << 20)

json_t *perf_json_load(const char *path, char **cause)
{
	/* Without blocking: a FIFO among the files once hung start-up in
	 * open(); only a regular file is then read. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		set_cause(cause, "%s: cannot read: %s", path, strerror(e));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		set_cause(cause, "%s: cannot read: %s", path,
			  S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file (a FIFO, socket or device is not read)");
		return NULL;
	}
	if (st.st_size > PERF_JSON_MAX) {
		close(fd);
		set_cause(cause, "%s: %lld bytes, more than the %d MiB an event file may have", path,
			  (long long)st.st_size, PERF_JSON_MAX >> 20);
		return NULL;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	char *text = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap)
			text = xrealloc(text, cap *= 2);
		ssize_t n = read(fd, text + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			free(text);
			set_cause(cause, "%s: cannot read: %s", path, strerror(e));
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* A file that grows while it is read is bounded too. */
		if (len > PERF_JSON_MAX) {
			close(fd);
			free(text);
			set_cause(cause, "%s: more than the %d MiB an event file may have", path, PERF_JSON_MAX >> 20);
			return NULL;
		}
	}
	close(fd);
	json_t *v = perf_json_parse(text, len, path, cause);
	free(text);
	return v;
}
