/* evdef_parse.c: the first stage of the definition loader. It reads the
 * line-oriented files described in docs/definitions.md into stanzas with
 * key/value attributes and records where each came from, so that every later
 * error can name file:line:col. It knows the syntax but not the meaning of
 * keys; evdef_build.c checks those. */
#include "config.h"
#include "util.h"
#include "evdef.h"
#include "evdef_parse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Definition files are small; a bigger one is surely a mistake. */
#define DEF_MAX_FILE_BYTES (16 << 20)
/* Bytes of zeros after the end of a file's text (read_def_file), so that
 * scan_line may read it sixteen bytes at a time up to its last byte. */
#define TEXT_PAD 16

void *evdef_grow(void *p, int n, size_t size)
{
	/* Room for EVDEF_GROW_FIRST at once: most stanzas have a handful
	 * of attributes, and growing from one took four reallocations each,
	 * a tenth of a start's allocations. */
	enum { EVDEF_GROW_FIRST = 8 };
	if (n == 0)
		p = xrealloc(p, EVDEF_GROW_FIRST * size);
	else if (n >= EVDEF_GROW_FIRST && (n & (n - 1)) == 0)
		p = xrealloc(p, (size_t)(2 * n) * size);
	return p;
}

char *def_where(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	char *s = xasprintf("%s:%d:%d: %s", file, line, col, msg);
	free(msg);
	return s;
}

const struct def_attr *evdef_attr_get(const struct def_stanza *st, const char *key)
{
	for (int i = 0; i < st->nattrs; i++)
		if (st->attrs[i].key[0] == key[0] && !strcmp(st->attrs[i].key, key))
			return &st->attrs[i];
	return NULL;
}

void defset_free(struct def_set *set)
{
	bool own = !set->pool && !set->texts && !set->kept;   /* names, keys and values */
	for (int i = 0; i < set->nstanzas; i++) {
		struct def_stanza *st = &set->stanzas[i];
		for (int j = 0; own && j < st->nattrs; j++) {
			free(st->attrs[j].key);
			free(st->attrs[j].value);
		}
		free(st->attrs);
		if (own)
			free(st->name);
	}
	free(set->stanzas);
	for (int i = 0; !set->pool && i < set->nfiles; i++) {
		if (!set->kept)
			free(set->files[i]);
		free(set->real[i]);
	}
	/* One text per file, in texts[0 .. nfiles - 1] (NULL where a file
	 * could not be read). */
	for (int i = 0; set->texts && i < set->nfiles; i++)
		free(set->texts[i]);
	free(set->texts);
	free(set->lens);
	free(set->pool);
	free(set->files);
	free(set->real);
	memset(set, 0, sizeof(*set));
}

/* Reads a whole file, refusing NUL bytes (which would silently cut the text
 * short) and absurd sizes. Only a regular file will do: opening without
 * blocking and checking that first means a FIFO or a device planted among
 * the definitions gives an error instead of a hang. */
static char *read_def_file(const char *path, bool user, size_t *lenp, char **cause)
{
	/* A user's file (views/MODEL.def) under the rule of util.h's
	 * user_file_open: root does not read the invoking user's files, and
	 * its refusal quotes nothing of the file. */
	char *refused = NULL;
	int fd = user ? user_file_open(path, &refused) : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (refused) {
			if (cause)
				*cause = refused;
			else
				free(refused);
		} else {
			set_cause(cause, "%s: cannot open: %s", path, strerror(errno));
		}
		return NULL;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		set_cause(cause, "%s: expected a regular file", path);
		return NULL;
	}
	/* Sized by fstat, read whole with read(2): stdio's fdopen and fread
	 * cost a fcntl, a second fstat and a read per 4 kB besides (a model's
	 * 20 files: some 50 system calls of a start, issue 39). A file that
	 * grew since fstat is read on until a read comes back short. */
	size_t cap = sb.st_size > 0 && sb.st_size < DEF_MAX_FILE_BYTES ? (size_t)sb.st_size + 2 + TEXT_PAD : 4096;
	size_t len = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t want = cap - len - 1;
		ssize_t n = read(fd, buf + len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			free(buf);
			set_cause(cause, "%s: cannot read", path);
			return NULL;
		}
		len += (size_t)n;
		if (len > DEF_MAX_FILE_BYTES) {
			close(fd);
			free(buf);
			set_cause(cause, "%s: larger than %d bytes", path, DEF_MAX_FILE_BYTES);
			return NULL;
		}
		/* A regular file's read is short only at its end: the read
		 * that would say so costs a system call per file (twenty of
		 * a start). */
		if (n == 0 || (size_t)n < want)
			break;
	}
	close(fd);
	if (cap < len + 1 + TEXT_PAD)
		buf = xrealloc(buf, len + 1 + TEXT_PAD);
	memset(buf + len, 0, 1 + TEXT_PAD);
	if (strlen(buf) != len) {
		/* Say where, like every other error. */
		int line = 1, col = 1;
		for (size_t i = 0; buf[i]; i++) {
			if (buf[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		free(buf);
		if (cause)
			*cause = def_where(path, line, col, "expected text but found a NUL byte");
		return NULL;
	}
	*lenp = len;
	return buf;
}

static bool is_name_start(int c) { return isalpha(c) || c == '_'; }
static bool is_name_char(int c) { return isalnum(c) || c == '_' || c == '.'; }

/* Checks an event/metric/PMU/view name, or with model_name set a model name
 * (which may also hold '-'). Returns the offset of the first bad character,
 * or -1 if the name is good. */
static int bad_name_at(const char *s, bool model_name)
{
	if (!model_name && !is_name_start((unsigned char)s[0]))
		return 0;
	for (int i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(is_name_char(c) || (model_name && c == '-')))
			return i;
	}
	return -1;
}

struct reader {
	struct def_set *set;
	char *root;             /* canonical definitions directory, or NULL */
	bool follow_includes;
	bool is_model_file;
	bool lone_file;         /* defset_read_file: no model stanza anywhere */
	bool user_file;         /* defset_read_user_file: the user's own files only */
	bool in_place;          /* defset_read: strings in the files' texts (def_set.texts) */
	/* Directories whose canonical paths are known (file_real): the
	 * definitions directory, and each one a file was read from. */
	int ndirs;
	struct known_dir { char *dir, *real; } dirs[8];
	char *err;
};

static int read_file(struct reader *r, const char *path, const char *inc_file, int inc_line, int inc_col);

/* base (a canonical directory path) with the components of rest (len
 * bytes, each after a '/') appended: '.' stays, '..' climbs (base has no
 * link in it, so its parent is its prefix), any other is checked with
 * lstat to be a directory and not a link. NULL where one is not (the
 * caller asks realpath, for its answer or its errno). */
static char *climb(const char *base, const char *rest, size_t len)
{
	size_t olen = strlen(base);
	char *out = xmalloc(olen + len + 2);
	memcpy(out, base, olen + 1);
	const char *p = rest, *end = rest + len;
	while (p < end) {
		while (p < end && *p == '/')
			p++;
		const char *c = p;
		while (p < end && *p != '/')
			p++;
		size_t cl = (size_t)(p - c);
		if (cl == 0 || (cl == 1 && c[0] == '.'))
			continue;
		if (cl == 2 && c[0] == '.' && c[1] == '.') {
			while (olen > 1 && out[olen - 1] != '/')
				olen--;
			if (olen > 1)
				olen--;
			out[olen] = 0;
			continue;
		}
		if (olen > 1)
			out[olen++] = '/';
		memcpy(out + olen, c, cl);
		olen += cl;
		out[olen] = 0;
		struct stat sb;
		if (lstat(out, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			free(out);
			return NULL;
		}
	}
	return out;
}

/* The canonical path of the directory of dlen bytes at dir: from the
 * known directory that is the longest prefix of it, its other
 * components one lstat each (climb), not realpath's readlink for every
 * directory from the root down (some twenty system calls of a start:
 * a model's files lie in three directories, named as
 * events/amd/zen5/../../generic and the like); realpath where no known
 * directory leads there. NULL with errno. */
static char *dir_real(struct reader *r, const char *dir, size_t dlen)
{
	int best = -1;
	size_t blen = 0;
	for (int i = 0; i < r->ndirs; i++) {
		size_t kl = strlen(r->dirs[i].dir);
		if (kl <= dlen && !strncmp(r->dirs[i].dir, dir, kl) && (kl == dlen || dir[kl] == '/') &&
		    (best < 0 || kl > blen)) {
			best = i;
			blen = kl;
		}
	}
	if (best >= 0 && blen == dlen)
		return xstrdup(r->dirs[best].real);
	char *d = xstrndup(dir, dlen);
	char *real = best >= 0 ? climb(r->dirs[best].real, dir + blen, dlen - blen) : NULL;
	if (!real)
		real = realpath(dlen ? d : "/", NULL);
	if (real && r->ndirs < (int)ARRAY_SIZE(r->dirs))
		r->dirs[r->ndirs++] = (struct known_dir){ d, xstrdup(real) };
	else
		free(d);
	return real;
}

/* realpath(path), the directory's part from dir_real. A file that is
 * itself a link, or any doubt, goes to realpath whole. */
static char *file_real(struct reader *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat sb;
	if (!slash || lstat(path, &sb) < 0 || S_ISLNK(sb.st_mode))
		return realpath(path, NULL);
	char *dreal = dir_real(r, path, (size_t)(slash - path));
	if (!dreal)
		return realpath(path, NULL);
	const char *sep = strcmp(dreal, "/") ? "/" : "";
	char *real = xasprintf("%s%s%s", dreal, sep, slash + 1);
	free(dreal);
	return real;
}

static int add_file(struct reader *r, const char *path, const char *inc_file, int inc_line, int inc_col)
{
	/* A model.def read without its includes (model_list, for each
	 * model) is one file, which the canonical path would be compared
	 * with nothing; the caller has seen that it is a regular file. */
	char *real = r->follow_includes ? file_real(r, path) : r->lone_file ? realpath(path, NULL) : xstrdup(path);
	if (!real) {
		int e = errno;
		if (inc_file)
			r->err = def_where(inc_file, inc_line, inc_col, "cannot include '%s': %s", path, strerror(e));
		else
			r->err = xasprintf("%s: cannot open: %s", path, strerror(e));
		return -1;
	}
	size_t rootlen = r->root ? strlen(r->root) : 0;
	if (inc_file && r->root && (strncmp(real, r->root, rootlen) || (real[rootlen] != '/' && rootlen > 1))) {
		r->err = def_where(inc_file, inc_line, inc_col, "cannot include '%s': it is outside the definitions directory %s",
				   path, r->root);
		free(real);
		return -1;
	}
	for (int i = 0; i < r->set->nfiles; i++) {
		if (!strcmp(r->set->real[i], real)) {
			free(real);
			r->err = def_where(inc_file ? inc_file : path, inc_line, inc_col,
					   "'%s' is already included (as %s)", path, r->set->files[i]);
			return -1;
		}
	}
	int n = r->set->nfiles++;
	r->set->files = xrealloc(r->set->files, (size_t)r->set->nfiles * sizeof(char *));
	r->set->real = xrealloc(r->set->real, (size_t)r->set->nfiles * sizeof(char *));
	r->set->files[n] = xstrdup(path);
	r->set->real[n] = real;
	if (r->in_place) {
		r->set->texts = xrealloc(r->set->texts, (size_t)r->set->nfiles * sizeof(char *));
		r->set->texts[n] = NULL;
		r->set->lens = xrealloc(r->set->lens, (size_t)r->set->nfiles * sizeof(size_t));
		r->set->lens[n] = 0;
	}
	return n;
}

/* Includes each whitespace-separated path of value, relative to the
 * directory of the including file. Only .def files named by relative paths
 * (and, with a root, inside it): so that an error, which quotes the line at
 * fault, can never quote a line of a file that is not a definition, such as
 * /etc/shadow read by a root who was handed a hostile model.def. */
static int do_includes(struct reader *r, const char *file, const struct def_attr *a)
{
	const char *slash = strrchr(file, '/');
	int dirlen = slash ? (int)(slash - file) : 0;
	const char *p = a->value;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *start = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		int col = a->value_col + (int)(start - a->value);
		int len = (int)(p - start);
		if (*start == '/') {
			r->err = def_where(file, a->line, col, "expected a path relative to this file's directory but found '%.*s'",
					   len, start);
			return -1;
		}
		if (len < 5 || strncmp(p - 4, ".def", 4) || p[-5] == '/') {
			r->err = def_where(file, a->line, col, "expected the name of a .def file but found '%.*s'", len, start);
			return -1;
		}
		char *path;
		if (!slash)
			path = xstrndup(start, (size_t)(p - start));
		else
			path = xasprintf("%.*s/%.*s", dirlen, file, (int)(p - start), start);
		int rc = read_file(r, path, file, a->line, col);
		free(path);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static const char *const stanza_words[] = {
	[ST_MODEL] = "model", [ST_PMU] = "pmu", [ST_EVENT] = "event", [ST_METRIC] = "metric", [ST_VIEW] = "view",
};

/* Splits one line: removes the comment (a '#' outside double quotes) and
 * trailing whitespace. Returns the new length, or -1 on an unclosed quote
 * with *bad_col set, -2 on a control character (a carriage return is one
 * unless it ends the line) or -3 on bytes that are not UTF-8 text. */
static int clean_line(char *s, int *bad_col)
{
	size_t len = strlen(s);
	if (len > 0 && s[len - 1] == '\r')
		s[--len] = 0;
	int bad = text_bad_at(s);
	if (bad >= 0) {
		unsigned char c = (unsigned char)s[bad];
		*bad_col = bad + 1;
		/* C1 controls are U+0080-U+009F, written C2 80-C2 9F. */
		return c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)s[bad + 1] >= 0x80 &&
						   (unsigned char)s[bad + 1] < 0xa0) ? -2 : -3;
	}
	bool quoted = false;
	int open_col = 0, i;
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"') {
			quoted = !quoted;
			open_col = i + 1;
		} else if (c == '#' && !quoted) {
			break;
		}
	}
	if (quoted) {
		*bad_col = open_col;
		return -1;
	}
	s[i] = 0;
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		s[--i] = 0;
	return i;
}

/* What scan_line makes of a byte: most are printable ASCII text (tabs
 * too), passed over by a look-up each. */
enum { LC_TEXT, LC_QUOTE, LC_HASH, LC_END, LC_OTHER };
static const unsigned char line_class[256] = {
	[0x00] = LC_END, [0x01 ... 0x08] = LC_OTHER, [0x0a] = LC_END, [0x0b ... 0x1f] = LC_OTHER,
	['"'] = LC_QUOTE, ['#'] = LC_HASH, [0x7f ... 0xff] = LC_OTHER,
};

/* The first byte at or after p that is not LC_TEXT. Eight bytes at a
 * time where the machine is little-endian: a word holds no byte to look
 * at unless one is below 0x20 (a tab too, which is then passed over
 * alone), '"', '#', or 0x7f and above. Byte by byte, the look-ups were
 * 0.66 M instructions of a start with amd-zen5 (issue 39). Each test
 * below can flag a byte above one it rightly flags (a borrow or a carry
 * running upward), never one below: the lowest flag is a byte to look
 * at. The text's padding (TEXT_PAD) keeps the last word inside it. */
static char *skip_text(char *p)
{
#if defined(__SSE2__)
	/* Sixteen bytes at a time where SSE2 is (every x86-64): a signed
	 * compare below 0x20 also takes 0x80 and above; 0x7f, '"' and '#'
	 * by equality. Eight bytes a word (below) were still 0.5 M
	 * instructions of a start with amd-zen5 (issue 39). */
	const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), hash = _mm_set1_epi8('#'),
		      del = _mm_set1_epi8(0x7f);
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i look = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, quote)),
					    _mm_or_si128(_mm_cmpeq_epi8(v, hash), _mm_cmpeq_epi8(v, del)));
		unsigned mask = (unsigned)_mm_movemask_epi8(look);
		if (!mask) {
			p += 16;
			continue;
		}
		p += __builtin_ctz(mask);
		if (line_class[(unsigned char)*p] != LC_TEXT)
			return p;
		p++;   /* a tab */
	}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	for (;;) {
		uint64_t w, q, h;
		memcpy(&w, p, sizeof(w));
		q = w ^ (ones * '"');
		h = w ^ (ones * '#');
		uint64_t look = ((w - ones * 0x20) & ~w)       /* below 0x20 */
				| ((q - ones) & ~q) | ((h - ones) & ~h) /* '"', '#' */
				| w | (w + ones);                   /* 0x7f and above */
		look &= highs;
		if (!look) {
			p += sizeof(w);
			continue;
		}
		p += __builtin_ctzll(look) / 8;
		if (line_class[(unsigned char)*p] != LC_TEXT)
			return p;
		p++;   /* a tab */
	}
#else
	while (line_class[(unsigned char)*p] == LC_TEXT)
		p++;
	return p;
#endif
}

/* The line at line, ended, checked and cleaned as clean_line does, in
 * one pass over its bytes where it is printable ASCII (nearly every line
 * of the definitions read at each start); any other byte sends it to
 * clean_line. *next becomes the next line, or NULL after the last. */
static int scan_line(char *line, char **next, int *bad_col)
{
	bool quoted = false;
	int open_col = 0;
	char *cut = NULL;   /* the comment's '#' */
	char *p = line;
	for (;; p++) {
		p = skip_text(p);
		int c = line_class[(unsigned char)*p];
		if (c == LC_QUOTE && !cut) {
			quoted = !quoted;
			open_col = (int)(p - line) + 1;
		} else if (c == LC_HASH && !quoted && !cut) {
			cut = p;
		} else if (c == LC_END) {
			break;
		} else if (c == LC_OTHER) {
			/* A control character, a carriage return or a byte
			 * above ASCII: the careful way. */
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = 0;
			*next = nl ? nl + 1 : NULL;
			return clean_line(line, bad_col);
		}
	}
	*next = *p ? p + 1 : NULL;
	*p = 0;
	if (quoted) {
		*bad_col = open_col;
		return -1;
	}
	if (cut)
		p = cut;
	*p = 0;
	while (p > line && (p[-1] == ' ' || p[-1] == '\t'))
		*--p = 0;
	return (int)(p - line);
}

/* An indented line: an attribute of stanza cur; p is its first
 * non-blank character. 0, or -1 with r->err. */
static int read_attr(struct reader *r, const char *file, int lineno, char *line, char *end, char *p, int cur)
{
	struct def_set *set = r->set;
	/* An attribute of the current stanza. */
	int key_col = (int)(p - line) + 1;
	if (cur < 0) {
		r->err = def_where(file, lineno, key_col,
				   "expected a stanza (model, pmu, event, metric or view) at column 1 before indented lines");
		return -1;
	}
	if (!is_name_start((unsigned char)*p)) {
		r->err = def_where(file, lineno, key_col, "expected a key");
		return -1;
	}
	char *k = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (*p && *p != ' ' && *p != '\t') {
		r->err = def_where(file, lineno, (int)(p - line) + 1,
				   "expected a space after the key '%.*s'", (int)(p - k), k);
		return -1;
	}
	char *kend = p;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		r->err = def_where(file, lineno, (int)(p - line) + 1, "expected a value after '%.*s'",
				   (int)(kend - k), k);
		return -1;
	}
	int value_col = (int)(p - line) + 1;
	size_t vlen = (size_t)(end - p);   /* the line's end, which scan_line found */
	bool quoted = vlen >= 2 && p[0] == '"' && p[vlen - 1] == '"' && !memchr(p + 1, '"', vlen - 2);
	value_col += quoted;
	char *key, *value;
	if (r->in_place) {
		/* The key ends where the blanks before the value begin. */
		*kend = 0;
		key = k;
		if (quoted)
			p[vlen - 1] = 0;
		value = p + quoted;
	} else {
		key = xstrndup(k, (size_t)(kend - k));
		value = quoted ? xstrndup(p + 1, vlen - 2) : xstrdup(p);
	}
	struct def_stanza *st = &set->stanzas[cur];
	st->attrs = evdef_grow(st->attrs, st->nattrs, sizeof(*st->attrs));
	struct def_attr *a = &st->attrs[st->nattrs++];
	*a = (struct def_attr){ .key = key, .value = value, .line = lineno,
				.key_col = key_col, .value_col = value_col };
	if (st->kind == ST_MODEL && !strcmp(key, "include") && r->follow_includes) {
		struct def_attr copy = *a; /* the array may move while including */
		if (do_includes(r, file, &copy) < 0)
			return -1;
	}
	return 0;
}

/* A line at column 1: a stanza's keyword and name; *cur becomes the new
 * stanza. 0, or -1 with r->err. */
static int read_stanza(struct reader *r, const char *file, int lineno, char *line, char *p, int *cur)
{
	struct def_set *set = r->set;
	/* A stanza: keyword and name. */
	char *w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	int kind = -1;
	for (int k = 0; k < (int)ARRAY_SIZE(stanza_words); k++)
		if ((size_t)(p - w) == strlen(stanza_words[k]) && !strncmp(w, stanza_words[k], (size_t)(p - w)))
			kind = k;
	if (kind < 0) {
		r->err = def_where(file, lineno, 1, "expected model, pmu, event, metric or view but found '%.*s'",
				   (int)(p - w), w);
		return -1;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		r->err = def_where(file, lineno, (int)(p - line) + 1, "expected a name after '%s'", stanza_words[kind]);
		return -1;
	}
	int name_col = (int)(p - line) + 1;
	int bad = bad_name_at(p, kind == ST_MODEL);
	if (bad >= 0) {
		if (p[bad] == ' ' || p[bad] == '\t')
			r->err = def_where(file, lineno, name_col + bad, "expected the end of the line after the name '%.*s'",
					   bad, p);
		else
			r->err = def_where(file, lineno, name_col + bad,
					   kind == ST_MODEL ? "expected a model name of letters, digits, '_', '.' and '-'"
					   : "expected a name of the form [A-Za-z_][A-Za-z0-9_.]*");
		return -1;
	}
	if (kind == ST_MODEL && !r->is_model_file) {
		r->err = def_where(file, lineno, 1, "expected pmu, event, metric or view (a model stanza belongs in model.def)");
		return -1;
	}
	if (kind != ST_MODEL && r->is_model_file && set->nstanzas == 0) {
		r->err = def_where(file, lineno, 1, "expected a 'model' stanza first in model.def");
		return -1;
	}
	if (kind == ST_MODEL && set->nstanzas > 0) {
		r->err = def_where(file, lineno, 1, "expected only one 'model' stanza (the first is at %s:%d)",
				   set->stanzas[0].file, set->stanzas[0].line);
		return -1;
	}
	set->stanzas = evdef_grow(set->stanzas, set->nstanzas, sizeof(*set->stanzas));
	*cur = set->nstanzas++;
	set->stanzas[*cur] = (struct def_stanza){ .kind = (enum stanza_kind)kind, .name = r->in_place ? p : xstrdup(p),
						 .file = file, .line = lineno, .name_col = name_col };
	return 0;
}

/* Each line of a file's text: its characters checked, then an attribute
 * (indented) or a stanza. file is the def_set's copy of the name, which
 * stanzas point to. */
static int read_lines(struct reader *r, const char *file, char *text)
{
	int cur = -1;            /* index of the stanza that attributes go to */
	int lineno = 0;

	char *line = text;
	while (line) {
		char *next;
		lineno++;
		int bad_col = 0;
		int len = scan_line(line, &next, &bad_col);
		if (len == -1) {
			r->err = def_where(file, lineno, bad_col, "expected a closing '\"'");
			return -1;
		}
		if (len == -2) {
			r->err = def_where(file, lineno, bad_col, "expected text but found a control character");
			return -1;
		}
		if (len == -3) {
			r->err = def_where(file, lineno, bad_col, "expected UTF-8 text but found byte 0x%02x",
					   (unsigned char)line[bad_col - 1]);
			return -1;
		}
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && p != line && read_attr(r, file, lineno, line, line + len, p, cur) < 0)
			return -1;
		if (*p && p == line && read_stanza(r, file, lineno, line, p, &cur) < 0)
			return -1;
		line = next;
	}
	return 0;
}

static int read_file(struct reader *r, const char *path, const char *inc_file, int inc_line, int inc_col)
{
	int n = add_file(r, path, inc_file, inc_line, inc_col);
	if (n < 0)
		return -1;
	char *cause = NULL;
	size_t len = 0;
	char *text = read_def_file(path, r->user_file, &len, &cause);
	if (!text) {
		if (inc_file) {
			r->err = def_where(inc_file, inc_line, inc_col, "cannot include: %s", cause);
			free(cause);
		} else {
			r->err = cause;
		}
		return -1;
	}
	bool was_model = r->is_model_file;
	r->is_model_file = inc_file == NULL && !r->lone_file;
	if (r->in_place) {
		r->set->texts[n] = text;   /* the set's now, read or not */
		r->set->lens[n] = len;
	}
	int rc = read_lines(r, r->set->files[n], text);
	r->is_model_file = was_model;
	if (!r->in_place)
		free(text);
	return rc;
}

/* Ends a read: on error frees the set and hands r's message to cause. */
static int read_done(struct reader *r, int rc, struct def_set *set, char **cause)
{
	if (rc == 0)
		return 0;
	if (cause)
		*cause = r->err;
	else
		free(r->err);
	defset_free(set);
	return -1;
}

int defset_read_file(const char *path, struct def_set *set, char **cause)
{
	memset(set, 0, sizeof(*set));
	struct reader r = { .set = set, .lone_file = true };
	return read_done(&r, read_file(&r, path, NULL, 0, 0), set, cause);
}

int defset_read_user_file(const char *path, struct def_set *set, char **cause)
{
	memset(set, 0, sizeof(*set));
	struct reader r = { .set = set, .lone_file = true, .user_file = true };
	return read_done(&r, read_file(&r, path, NULL, 0, 0), set, cause);
}

int defset_read(const char *root, const char *dir, bool follow_includes, struct def_set *set, char **cause)
{
	memset(set, 0, sizeof(*set));
	struct reader r = { .set = set, .follow_includes = follow_includes, .in_place = true };
	if (root && follow_includes && !(r.root = realpath(root, NULL)))
		return set_cause(cause, "%s: cannot open the definitions directory: %s", root, strerror(errno));
	if (r.root)
		r.dirs[r.ndirs++] = (struct known_dir){ xstrdup(root), xstrdup(r.root) };
	char *path = xasprintf("%s/model.def", dir);
	int rc = read_file(&r, path, NULL, 0, 0);
	free(r.root);
	for (int i = 0; i < r.ndirs; i++) {
		free(r.dirs[i].dir);
		free(r.dirs[i].real);
	}
	if (rc == 0 && (set->nstanzas == 0 || set->stanzas[0].kind != ST_MODEL)) {
		r.err = def_where(path, 1, 1, "expected a 'model' stanza");
		rc = -1;
	}
	free(path);
	return read_done(&r, rc, set, cause);
}
