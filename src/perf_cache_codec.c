/* perf_cache_codec.c: the model cache's file format (perf_cache.h). It is
 * written and read by pmctop alone, so it is as plain as can be: a header
 * line "pmctop model cache 1", a line with the checksum of everything after
 * it (16 hex digits), then a sequence of numbers ("123;") and strings
 * ("LEN:", LEN bytes and a newline, which becomes the string's NUL when
 * read, so that the strings are used where they lie), and "end\n" as the
 * last four bytes. An attribute at its stanza's line and column 1, as
 * every imported one is, has "*" in place of its three numbers. Every count
 * is checked against the bytes left before anything is allocated, and
 * every index against what it indexes, so that a truncated, altered or
 * hostile file is refused with a reason and never read past its end. */
#include "config.h"
#include "util.h"
#include "perf_cache.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MAGIC "pmctop model cache 1\n"
#define CACHE_END "end\n"

/* ---- writing ------------------------------------------------------------- */

struct wbuf {
	char *p;
	size_t len, cap;
};

static void w_bytes(struct wbuf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? 2 * b->cap : 65536;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void w_u(struct wbuf *b, uint64_t v)
{
	char t[24];
	int i = (int)sizeof(t);
	t[--i] = ';';
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	w_bytes(b, t + i, sizeof(t) - (size_t)i);
}

static void w_s(struct wbuf *b, const char *s)
{
	size_t n = strlen(s);
	w_u(b, n);
	b->len--;                 /* "LEN:" rather than "LEN;" */
	w_bytes(b, ":", 1);
	w_bytes(b, s, n);
	w_bytes(b, "\n", 1);
}

uint64_t perf_cache_sum(const char *body, size_t len)
{
	/* Not cryptographic: it finds a file cut short or altered by accident;
	 * who may write the file is settled by its owner and mode. */
	uint64_t h = 0x6a09e667f3bcc909ULL ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, body + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	memcpy(&w, body + i, len - i);
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

char *perf_cache_encode(const char *identity, const struct perf_cache_input *in, int nin, const struct def_set *set,
			const char *dir, const char *skipped, size_t *len)
{
	struct wbuf b = { 0 };
	/* Room for the header, filled in once the body's checksum is known. */
	const size_t head = strlen(CACHE_MAGIC) + 17;
	w_bytes(&b, CACHE_MAGIC, strlen(CACHE_MAGIC));
	w_bytes(&b, "0000000000000000\n", 17);
	w_s(&b, identity);
	w_u(&b, (uint64_t)nin);
	for (int i = 0; i < nin; i++) {
		w_s(&b, in[i].path);
		w_u(&b, in[i].dev);
		w_u(&b, in[i].ino);
		w_u(&b, in[i].size);
		w_u(&b, in[i].mtime_ns);
		w_u(&b, in[i].ctime_ns);
		w_u(&b, in[i].mode);
	}
	w_s(&b, dir);
	w_u(&b, skipped != NULL);
	if (skipped)
		w_s(&b, skipped);
	w_u(&b, (uint64_t)set->nfiles);
	for (int i = 0; i < set->nfiles; i++) {
		w_s(&b, set->files[i]);
		w_s(&b, set->real[i]);
	}
	w_u(&b, (uint64_t)set->nstanzas);
	for (int i = 0; i < set->nstanzas; i++) {
		const struct def_stanza *st = &set->stanzas[i];
		int f = 0;
		while (f < set->nfiles && set->files[f] != st->file)
			f++;
		w_u(&b, st->kind);
		w_s(&b, st->name);
		w_u(&b, (uint64_t)f);   /* nfiles: a file outside the list, refused when read */
		w_u(&b, (uint64_t)st->line);
		w_u(&b, (uint64_t)st->name_col);
		w_u(&b, (uint64_t)st->nattrs);
		for (int j = 0; j < st->nattrs; j++) {
			const struct def_attr *a = &st->attrs[j];
			w_s(&b, a->key);
			w_s(&b, a->value);
			/* "*": at the stanza's line, columns 1 (every imported one). */
			if (a->line == st->line && a->key_col == 1 && a->value_col == 1) {
				w_bytes(&b, "*", 1);
				continue;
			}
			w_u(&b, (uint64_t)a->line);
			w_u(&b, (uint64_t)a->key_col);
			w_u(&b, (uint64_t)a->value_col);
		}
	}
	w_bytes(&b, CACHE_END, strlen(CACHE_END));
	char sum[18];
	snprintf(sum, sizeof(sum), "%016llx", (unsigned long long)perf_cache_sum(b.p + head, b.len - head));
	memcpy(b.p + strlen(CACHE_MAGIC), sum, 16);
	b.p[b.len] = 0;
	*len = b.len;
	return b.p;
}

/* ---- reading ------------------------------------------------------------- */

struct rbuf {
	char *base, *p, *end;
	char *err;
};

static bool r_fail(struct rbuf *r, const char *what)
{
	if (!r->err)
		r->err = xasprintf("at byte %td: expected %s", r->p - r->base, what);
	return false;
}

static bool r_u(struct rbuf *r, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	char *s = r->p;
	while (s < r->end && *s >= '0' && *s <= '9' && s - r->p < 20) {
		uint64_t d = (uint64_t)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return r_fail(r, "a number that fits");
		x = x * 10 + d;
		s++;
	}
	if (s == r->p || s >= r->end || *s != ';')
		return r_fail(r, "a number and ';'");
	if (x > max)
		return r_fail(r, "a smaller number");
	r->p = s + 1;
	*v = x;
	return true;
}

static bool r_int(struct rbuf *r, int *v)
{
	uint64_t x;
	if (!r_u(r, INT_MAX, &x))
		return false;
	*v = (int)x;
	return true;
}

/* A count of elements that each take at least min bytes: never more than
 * what is left could hold, so a forged count allocates nothing big. */
static bool r_count(struct rbuf *r, size_t min, int *n)
{
	uint64_t x;
	if (!r_u(r, INT_MAX, &x))
		return false;
	if (x > (uint64_t)(r->end - r->p) / min)
		return r_fail(r, "a count that the rest of the file can hold");
	*n = (int)x;
	return true;
}

/* A string, left where it is: its '\n' becomes its NUL. */
static bool r_s(struct rbuf *r, char **s)
{
	uint64_t n = 0;
	char *q = r->p;
	while (q < r->end && *q >= '0' && *q <= '9' && q - r->p < 12)
		n = n * 10 + (uint64_t)(*q++ - '0');
	if (q == r->p || q >= r->end || *q != ':')
		return r_fail(r, "a string's length and ':'");
	q++;
	if (n >= (uint64_t)(r->end - q) || q[n] != '\n')
		return r_fail(r, "a string that the rest of the file holds, and a newline");
	/* No NUL inside: perf_cache_decode_body refused any in the body. */
	q[n] = 0;
	*s = q;
	r->p = q + n + 1;
	return true;
}

/* The same, copied. */
static bool r_sdup(struct rbuf *r, char **s)
{
	char *t;
	if (!r_s(r, &t))
		return false;
	*s = xstrdup(t);
	return true;
}

void perf_cache_inputs_free(struct perf_cache_input *in, int n)
{
	for (int i = 0; in && i < n; i++)
		free(in[i].path);
	free(in);
}

int perf_cache_decode_body(char *block, size_t off, size_t len, const char *identity, struct perf_cache_input **inp,
			   int *ninp, struct def_set *out, char **dirp, char **skippedp, char **cause)
{
	struct rbuf r = { .base = block + off, .p = block + off, .end = block + off + len };
	struct def_set set = { 0 };
	struct perf_cache_input *in = NULL;
	int nin = 0, n;
	char *id = NULL, *dir = NULL, *skipped = NULL;
	uint64_t v;
	/* The stanzas' strings stay in buf (its pool). Every array is
	 * allocated zeroed at its full count, so that on an error whatever was
	 * read so far is freed with the rest (free(NULL)). */
	set.pool = block;
	/* No string may hold a NUL (it would cut it short), and nothing else
	 * is one: checked once here rather than string by string. */
	if (memchr(r.p, 0, len)) {
		r.p = memchr(r.p, 0, len);
		r_fail(&r, "text without NUL (a string without NUL)");
		goto fail;
	}
	if (!r_s(&r, &id))
		goto fail;
	if (strcmp(id, identity)) {
		r_fail(&r, "this pmctop's identity (another binary, machine or directory)");
		goto fail;
	}
	if (!r_count(&r, 14, &nin))
		goto fail;
	in = xcalloc((size_t)nin + 1, sizeof(*in));
	for (int i = 0; i < nin; i++) {
		struct perf_cache_input *e = &in[i];
		uint64_t mode;
		if (!r_sdup(&r, &e->path) || !r_u(&r, UINT64_MAX, &e->dev) || !r_u(&r, UINT64_MAX, &e->ino) ||
		    !r_u(&r, UINT64_MAX, &e->size) || !r_u(&r, UINT64_MAX, &e->mtime_ns) ||
		    !r_u(&r, UINT64_MAX, &e->ctime_ns) || !r_u(&r, UINT32_MAX, &mode))
			goto fail;
		e->mode = (uint32_t)mode;
	}
	if (!r_sdup(&r, &dir) || !r_u(&r, 1, &v))
		goto fail;
	if (v && !r_sdup(&r, &skipped))
		goto fail;
	/* A file is two strings ("0:\n" at least each); a stanza at least 12
	 * bytes, an attribute 7 ("0:\n0:\n*"). */
	if (!r_count(&r, 4, &n))
		goto fail;
	set.files = xcalloc((size_t)n + 1, sizeof(char *));
	set.real = xcalloc((size_t)n + 1, sizeof(char *));
	set.nfiles = n;
	for (int i = 0; i < n; i++)
		if (!r_s(&r, &set.files[i]) || !r_s(&r, &set.real[i]))
			goto fail;
	if (!r_count(&r, 12, &n))
		goto fail;
	if (n < 1 || set.nfiles < 1) {
		r_fail(&r, "a model stanza and its file");
		goto fail;
	}
	set.stanzas = xcalloc((size_t)n, sizeof(*set.stanzas));
	set.nstanzas = n;
	for (int i = 0; i < n; i++) {
		struct def_stanza *st = &set.stanzas[i];
		uint64_t kind, f;
		if (!r_u(&r, ST_VIEW, &kind) || !r_s(&r, &st->name))
			goto fail;
		st->kind = (enum stanza_kind)kind;
		/* evdef_build_set takes the first stanza as the model's. */
		if ((i == 0) != (st->kind == ST_MODEL)) {
			r_fail(&r, "the model stanza first and only there");
			goto fail;
		}
		if (!r_u(&r, (uint64_t)set.nfiles - 1, &f) || !r_int(&r, &st->line) || !r_int(&r, &st->name_col))
			goto fail;
		st->file = set.files[f];
		if (!r_count(&r, 7, &st->nattrs))
			goto fail;
		st->attrs = xcalloc((size_t)st->nattrs + 1, sizeof(*st->attrs));
		for (int j = 0; j < st->nattrs; j++) {
			struct def_attr *a = &st->attrs[j];
			if (!r_s(&r, &a->key) || !r_s(&r, &a->value))
				goto fail;
			if (r.p < r.end && *r.p == '*') {
				r.p++;
				a->line = st->line;
				a->key_col = a->value_col = 1;
			} else if (!r_int(&r, &a->line) || !r_int(&r, &a->key_col) || !r_int(&r, &a->value_col)) {
				goto fail;
			}
		}
	}
	if ((size_t)(r.end - r.p) != strlen(CACHE_END) || memcmp(r.p, CACHE_END, strlen(CACHE_END))) {
		r_fail(&r, "the end of the file");
		goto fail;
	}
	*inp = in;
	*ninp = nin;
	*out = set;
	*dirp = dir;
	*skippedp = skipped;
	return 0;
fail:
	perf_cache_inputs_free(in, nin);
	/* The arrays only: the strings lie in block, which stays the caller's. */
	for (int i = 0; i < set.nstanzas; i++)
		free(set.stanzas[i].attrs);
	free(set.stanzas);
	free(set.files);
	free(set.real);
	free(dir);
	free(skipped);
	set_cause(cause, "%s", r.err ? r.err : "not a model cache");
	free(r.err);
	return -1;
}

int perf_cache_decode(char *buf, size_t len, const char *identity, struct perf_cache_input **in, int *nin,
		      struct def_set *set, char **dir, char **skipped, char **cause)
{
	const size_t ml = strlen(CACHE_MAGIC), head = ml + 17;
	if (len < head || memcmp(buf, CACHE_MAGIC, ml) || buf[head - 1] != '\n')
		return set_cause(cause, "not a pmctop model cache (version 1)");
	char sum[18];
	snprintf(sum, sizeof(sum), "%016llx", (unsigned long long)perf_cache_sum(buf + head, len - head));
	if (memcmp(buf + ml, sum, 16))
		return set_cause(cause, "checksum does not match: cut short or altered");
	return perf_cache_decode_body(buf, head, len - head, identity, in, nin, set, dir, skipped, cause);
}
