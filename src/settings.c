/* settings.c: pmctoprc, the dashboard's saved settings: "key value" lines,
 * '#' comments, as docs/settings.md says. Reading never fails the program:
 * each line it cannot use becomes one warning naming the file and line;
 * writing replaces the file in one rename. */
#include "config.h"
#include "settings.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A settings file is a few hundred bytes; anything much larger is not one. */
#define SETTINGS_MAX_BYTES (64 * 1024)

static const char *const color_names[COLORS_KINDS] = { "default", "mono", "light" };
static const char *const rows_names[] = { "cpu", "core", "ccx", "socket" };

const char *settings_colors_name(int colors)
{
	return colors >= 0 && colors < COLORS_KINDS ? color_names[colors] : "default";
}

char *config_file_path(const char *name)
{
	const char *x = getenv("XDG_CONFIG_HOME");
	if (x && *x == '/')
		return xasprintf("%s/pmctop/%s", x, name);
	const char *h = getenv("HOME");
	if (h && *h == '/')
		return xasprintf("%s/.config/pmctop/%s", h, name);
	return NULL;
}

char *settings_path(void)
{
	return config_file_path("pmctoprc");
}

void settings_free(struct settings *s)
{
	if (!s)
		return;
	free(s->view);
	free(s->sort);
	memset(s, 0, sizeof(*s));
}

/* Adds "PATH:LINE: message" to w; the message is sanitised, since it
 * quotes the file's words. */
static void warn(struct warn_list *w, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(struct warn_list *w, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	text_sanitize_inplace(msg);
	char *l = xasprintf("%s:%d: %s", w->path, line, msg);
	warn_list_add(w, l);
	free(l);
	free(msg);
}

static int word_index(const char *const *names, int n, const char *w)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], w))
			return i;
	return -1;
}

static int parse_bool(const char *v)
{
	if (!strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
		return 0;
	return -1;
}

/* A name as the definitions spell them: letters, digits, '_', '.', '-'. */
static bool is_name(const char *v)
{
	if (!*v || strlen(v) > 64)
		return false;
	for (; *v; v++)
		if (!isalnum((unsigned char)*v) && !strchr("_.-", *v))
			return false;
	return true;
}

static void parse_line(struct settings *s, char *line, int ln, struct warn_list *w)
{
	char *p = line + strspn(line, " \t");
	if (!*p || *p == '#')
		return;
	char *key = p;
	p += strcspn(p, " \t");
	if (*p)
		*p++ = 0;
	p += strspn(p, " \t");
	char *val = p;
	/* Trailing blanks and a comment after the value. */
	char *hash = strchr(val, '#');
	if (hash)
		*hash = 0;
	size_t n = strlen(val);
	while (n && (val[n - 1] == ' ' || val[n - 1] == '\t'))
		val[--n] = 0;
	if (!*val) {
		warn(w, ln, "expected a value after '%s'", key);
		return;
	}
	if (!strcmp(key, "delay")) {
		char *end = NULL;
		double d = strtod(val, &end);
		if (end == val || *end || !(d >= 0.01 && d <= 86400))
			warn(w, ln, "expected a delay in seconds from 0.01 to 86400 but found '%s'", val);
		else
			s->has_interval = true, s->interval_s = d;
	} else if (!strcmp(key, "view")) {
		if (!is_name(val)) {
			warn(w, ln, "expected a view name but found '%s'", val);
		} else {
			free(s->view);
			s->view = xstrdup(val);
			s->has_view = true;
			s->view_line = ln;
		}
	} else if (!strcmp(key, "colors") || !strcmp(key, "colours")) {
		int c = word_index(color_names, COLORS_KINDS, val);
		if (c < 0)
			warn(w, ln, "expected default, mono or light but found '%s'", val);
		else
			s->has_colors = true, s->colors = c;
	} else if (!strcmp(key, "rows")) {
		int r = word_index(rows_names, (int)ARRAY_SIZE(rows_names), val);
		if (r < 0)
			warn(w, ln, "expected cpu, core, ccx or socket but found '%s'", val);
		else
			s->has_rows = true, s->rows = r;
	} else if (!strcmp(key, "ccx_panels") || !strcmp(key, "uncertainty")) {
		int b = parse_bool(val);
		if (b < 0)
			warn(w, ln, "expected yes or no but found '%s'", val);
		else if (key[0] == 'c')
			s->has_ccx = true, s->show_ccx = b;
		else
			s->has_errors = true, s->show_errors = b;
	} else if (!strcmp(key, "sort")) {
		char *rev = val + strcspn(val, " \t");
		bool reverse = false;
		if (*rev) {
			*rev++ = 0;
			rev += strspn(rev, " \t");
			reverse = !strcmp(rev, "reverse");
			if (!reverse) {
				warn(w, ln, "expected 'reverse' or nothing after the sort column but found '%s'", rev);
				return;
			}
		}
		if (!is_name(val)) {
			warn(w, ln, "expected a metric or event name to sort by but found '%s'", val);
			return;
		}
		free(s->sort);
		s->sort = xstrdup(val);
		s->has_sort = true;
		s->sort_reverse = reverse;
		s->sort_line = ln;
	} else {
		warn(w, ln, "unknown setting '%s' (expected delay, view, colors, rows, ccx_panels, uncertainty "
		     "or sort)", key);
	}
}

int settings_load(const char *path, struct settings *s, char **warnings)
{
	memset(s, 0, sizeof(*s));
	*warnings = NULL;
	if (!path)
		return 0;
	/* Without blocking: a FIFO planted there must not hang the start.
	 * Root (sudo -E) reads no file of the invoking user's, and a refusal
	 * says so without a word of the file (util.h, user_file_open). */
	char *refused = NULL;
	int fd = user_file_open(path, &refused);
	if (fd < 0) {
		if (refused) {
			*warnings = refused;
			return -1;
		}
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return set_cause(warnings, "%s: cannot read the settings: %s", path, strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return set_cause(warnings, "%s: expected a regular file", path);
	}
	if (st.st_size > SETTINGS_MAX_BYTES) {
		close(fd);
		return set_cause(warnings, "%s: %lld bytes is more than the %d a settings file may have", path,
				 (long long)st.st_size, SETTINGS_MAX_BYTES);
	}
	char *text = xmalloc((size_t)st.st_size + 1);
	ssize_t got = 0, r;
	while (got < st.st_size && (r = read(fd, text + got, (size_t)(st.st_size - got))) > 0)
		got += r;
	close(fd);
	text[got] = 0;
	bool has_nul = strlen(text) != (size_t)got;
	int ln = 0;
	struct warn_list wl = { warnings, path, 0 };
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		ln++;
		if (text_bad_at(line) >= 0 || strlen(line) != strcspn(line, "\r")) {
			warn(&wl, ln, "expected printable text");
			continue;
		}
		parse_line(s, line, ln, &wl);
	}
	if (has_nul)
		warn(&wl, ln, "expected text, not a NUL byte");
	warn_list_end(&wl);
	free(text);
	return 0;
}

/* mkdir -p for the settings directory, mode 0700. */
static int make_dirs(const char *dir, char **cause)
{
	char *d = xstrdup(dir);
	for (char *p = d + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = 0;
			if (mkdir(d, 0700) < 0 && errno != EEXIST) {
				int e = errno;
				set_cause(cause, "cannot make %s: %s", d, strerror(e));
				free(d);
				return -1;
			}
			if (!c)
				break;
			*p = c;
		}
	}
	free(d);
	return 0;
}

int config_write_atomic(const char *path, const char *text, char **cause)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (make_dirs(dir, cause) < 0) {
			free(dir);
			return -1;
		}
	}
	free(dir);
	char *tmp = xasprintf("%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		set_cause(cause, "cannot write %s: %s", tmp, strerror(e));
		free(tmp);
		return -1;
	}
	size_t len = strlen(text), off = 0;
	ssize_t w = 0;
	while (off < len && (w = write(fd, text + off, len - off)) > 0)
		off += (size_t)w;
	if (off < len || fchmod(fd, 0600) < 0 || fsync(fd) < 0 || close(fd) < 0) {
		int e = errno;
		if (off < len)
			close(fd);
		unlink(tmp);
		set_cause(cause, "cannot write %s: %s", path, strerror(e ? e : EIO));
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		set_cause(cause, "cannot replace %s: %s", path, strerror(e));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int settings_save(const char *path, const struct settings *s, char **cause)
{
	if (!path)
		return set_cause(cause, "no place for the settings: neither XDG_CONFIG_HOME nor HOME is set");
	char *text = NULL;
	xappendf(&text, "# pmctop settings, written by the setup screen (F2); docs/settings.md.\n"
			"# The command line wins over these; pmctop --no-config ignores the file.\n");
	if (s->has_interval)
		xappendf(&text, "delay %g\n", s->interval_s);
	if (s->has_view && s->view)
		xappendf(&text, "view %s\n", s->view);
	if (s->has_colors)
		xappendf(&text, "colors %s\n", settings_colors_name(s->colors));
	if (s->has_rows && s->rows >= 0 && s->rows < (int)ARRAY_SIZE(rows_names))
		xappendf(&text, "rows %s\n", rows_names[s->rows]);
	if (s->has_ccx)
		xappendf(&text, "ccx_panels %s\n", s->show_ccx ? "yes" : "no");
	if (s->has_errors)
		xappendf(&text, "uncertainty %s\n", s->show_errors ? "yes" : "no");
	if (s->has_sort && s->sort)
		xappendf(&text, "sort %s%s\n", s->sort, s->sort_reverse ? " reverse" : "");
	int rc = config_write_atomic(path, text, cause);
	free(text);
	return rc;
}
