/* perf_cache.c: where the model cache lives, what it is keyed by, and when
 * it may be trusted (perf_cache.h; the format is perf_cache_codec.c).
 *
 * The key has three parts. The place names the file (hashed) and is
 * inside it: the perf and definitions directories, the model and the
 * machine parameters the import reads (#SMT_on, the CPU counts, the
 * cpuid). The binary is inside it: pmctop's version and the device, inode,
 * size and mtime of /proc/self/exe, so that a rebuilt pmctop never reads
 * an older one's cache but replaces it. The inputs are every file the
 * import reads or looks for: both
 * mapfiles, Arm's common event files, the CPU directory and each of its
 * files, and the definitions directory, each directory and file of it;
 * their stat must be what it was, a file absent then absent still.
 *
 * What root opens is decided by the model, so the cache is trusted as
 * root's own definitions are: the directory and the file must be owned by
 * the user pmctop runs as and writable by nobody else, and the file is
 * opened without following a link. Nothing is created in a directory
 * that is not the user's (sudo keeping a user's HOME leaves it alone).
 * A file is replaced by renaming a complete one over it, so a reader sees
 * the old file or the new, never half of one. The directory is pruned at
 * each write to the most recently used files (prune_cache). */
#include "config.h"
#include "util.h"
#include "perf_cache.h"
#include "evdef_impl.h"
#include "perf_import_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A cache file is far smaller (a few hundred kB); a bigger one is not ours. */
#define CACHE_MAX_BYTES (32 << 20)
/* An input changed less than this long ago may change again within the
 * same timestamp tick (coarse on some filesystems): no cache is written
 * from it, as git treats a racily clean file. */
#define CACHE_RACY_NS (2ULL * 1000000000ULL)
/* The cache is pruned after each write, least recently used first (a hit
 * renews a file's mtime): one run over many perf directories or
 * rebuilt binaries once left 21 files, 6.8 MB, that nothing removed. A
 * model's file is about 190 kB; a user has a model or two. */
#define CACHE_KEEP_FILES 16
#define CACHE_KEEP_BYTES (16 << 20)
/* A temporary file older than this was left by a pmctop that died. */
#define CACHE_TMP_AGE_S 600
/* How many entries a prune looks at: the directory is pmctop's own. */
#define CACHE_SCAN_MAX 4096
/* How deep the definitions directory is walked (events/amd/zen5/x.def is 3). */
#define EVENTS_DEPTH 4

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

static void input_set(struct perf_cache_input *e, const struct stat *sb)
{
	e->dev = (uint64_t)sb->st_dev;
	e->ino = (uint64_t)sb->st_ino;
	e->size = (uint64_t)sb->st_size;
	e->mtime_ns = ts_ns(&sb->st_mtim);
	e->ctime_ns = ts_ns(&sb->st_ctim);
	e->mode = (uint32_t)sb->st_mode;
}

/* Whether path's stat is what e recorded (absent: still absent). */
static bool input_same(const struct perf_cache_input *e)
{
	struct stat sb;
	if (stat(e->path, &sb) < 0)
		return e->mode == 0 && errno == ENOENT;
	struct perf_cache_input now = { 0 };
	input_set(&now, &sb);
	return e->mode && now.dev == e->dev && now.ino == e->ino && now.size == e->size &&
	       now.mtime_ns == e->mtime_ns && now.ctime_ns == e->ctime_ns && now.mode == e->mode;
}

struct inputs {
	struct perf_cache_input *v;
	int n;
};

static void add_input(struct inputs *l, const char *path, struct stat *out)
{
	struct stat sb;
	l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof(*l->v));
	struct perf_cache_input *e = &l->v[l->n++];
	*e = (struct perf_cache_input){ .path = xstrdup(path) };
	if (stat(path, &sb) == 0)
		input_set(e, &sb);
	if (out)
		*out = sb;
}

static bool not_dots(const struct dirent *de)
{
	return strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
}

/* dir and every entry of it (and below, depth more levels), sorted. */
static void add_tree(struct inputs *l, const char *dir, int depth)
{
	struct stat sb;
	add_input(l, dir, &sb);
	if (l->v[l->n - 1].mode == 0 || !S_ISDIR(sb.st_mode))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	char **names;
	int n = dir_names_sorted(d, not_dots, &names);
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		struct stat fs;
		if (depth > 0 && stat(p, &fs) == 0 && S_ISDIR(fs.st_mode))
			add_tree(l, p, depth - 1);
		else
			add_input(l, p, NULL);
		free(p);
		free(names[i]);
	}
	free(names);
}

/* Every file the import of name reads or looks for (see the top). */
static int gather_inputs(const char *root, const char *events_dir, const char *name, struct inputs *l, char **cause)
{
	char *cpudir = perf_import_cpu_dir(root, events_dir, name, cause);
	if (!cpudir)
		return -1;
	static const char *const fixed[] = { "x86/mapfile.csv", "arm64/mapfile.csv", "arm64/common-and-microarch.json",
					     "arm64/recommended.json", "arm64/sbsa.json" };
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		char *p = xasprintf("%s/%s", root, fixed[i]);
		add_input(l, p, NULL);
		free(p);
	}
	add_tree(l, cpudir, 0);
	add_tree(l, events_dir, EVENTS_DEPTH);
	free(cpudir);
	return 0;
}

/* The directories, the model and the machine parameters (see the top):
 * what names the cache file, so that a rebuilt or upgraded pmctop
 * replaces its predecessor's file instead of adding one. */
static char *place(const char *root, const char *events_dir, const char *name, const struct perf_import_opts *o)
{
	char *cwd = NULL;
	if (root[0] != '/' || events_dir[0] != '/')
		cwd = getcwd(NULL, 0);
	struct perf_import_opts none = { 0 };
	if (!o)
		o = &none;
	char *s = xasprintf("cwd %s perf %s events %s model %s smt %d cpuid %s cpus %d cores %d packages %d dies %d",
			    cwd ? cwd : "-", root, events_dir, name, o->smt, o->cpuid ? o->cpuid : "-", o->ncpus_online,
			    o->ncores, o->npackages, o->ndies);
	free(cwd);
	return s;
}

/* The place and this pmctop binary (see the top): what the file must say. */
static char *identity(const char *place)
{
	struct stat sb;
	struct perf_cache_input exe = { 0 };
	if (stat("/proc/self/exe", &sb) == 0)
		input_set(&exe, &sb);
	return xasprintf("pmctop %s exe %llu:%llu:%llu:%llu %s", PACKAGE_VERSION, (unsigned long long)exe.dev,
			 (unsigned long long)exe.ino, (unsigned long long)exe.size, (unsigned long long)exe.mtime_ns,
			 place);
}

/* Whether path is a directory of this user's that nobody else may write. */
static bool dir_is_mine(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == geteuid() && !(sb.st_mode & 022);
}

/* $XDG_CACHE_HOME/pmctop (an absolute XDG_CACHE_HOME only, as the spec
 * says) or $HOME/.cache/pmctop; NULL if neither can be said. With create,
 * makes it (and its parent) where the parent's parent is the user's. */
static char *cache_dir(bool create)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *base, *top;
	if (x && x[0] == '/') {
		base = xstrdup(x);
		top = xstrdup(x);
		char *slash = strrchr(top, '/');
		slash[slash == top] = 0;   /* its parent ("/" for "/cache") */
	} else if (home && home[0] == '/') {
		base = xasprintf("%s/.cache", home);
		top = xstrdup(home);
	} else {
		return NULL;
	}
	char *dir = xasprintf("%s/pmctop", base);
	if (create && !dir_is_mine(dir)) {
		struct stat sb;
		bool ok = true;
		if (lstat(base, &sb) < 0) {
			/* Made only inside a directory of the user's own. */
			struct stat tb;
			ok = stat(top, &tb) == 0 && tb.st_uid == geteuid() && mkdir(base, 0700) == 0;
		} else {
			ok = S_ISDIR(sb.st_mode) && sb.st_uid == geteuid();
		}
		if (ok)
			mkdir(dir, 0700);   /* failing, or there already: dir_is_mine decides */
	}
	free(base);
	free(top);
	if (!dir_is_mine(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* The cache file's name for a place: the model's name (for whoever
 * looks in the directory) and a hash of the place. */
static char *cache_path(const char *dir, const char *name, const char *where)
{
	char clean[64];
	size_t k = 0;
	for (const char *p = name; *p && k + 1 < sizeof(clean); p++)
		clean[k++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ? *p : '_');
	clean[k] = 0;
	return xasprintf("%s/%s-%016llx.model", dir, clean,
			 (unsigned long long)perf_cache_sum(where, strlen(where)));
}

/* The cache file's bytes if it is this user's and nobody else's to write;
 * NULL otherwise or if absent. */
static char *read_cache(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat sb;
	char *buf = NULL;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() && !(sb.st_mode & 022) &&
	    sb.st_size > 0 && sb.st_size <= CACHE_MAX_BYTES) {
		size_t n = (size_t)sb.st_size, got = 0;
		buf = xmalloc(n + 1);
		while (got < n) {
			ssize_t r = read(fd, buf + got, n - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got != n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
			*len = n;
		}
	}
	close(fd);
	return buf;
}

/* Writes buf as path: a temporary file beside it, renamed over it. */
static bool write_cache(const char *dir, const char *path, const char *buf, size_t len)
{
	char *tmp = xasprintf("%s/.tmp-XXXXXX", dir);
	int fd = mkstemp(tmp);
	bool ok = fd >= 0;
	size_t done = 0;
	while (ok && done < len) {
		ssize_t w = write(fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		if (ok)
			done += (size_t)w;
	}
	if (fd >= 0 && close(fd) < 0)
		ok = false;
	if (ok && rename(tmp, path) < 0)
		ok = false;
	if (!ok && fd >= 0)
		unlink(tmp);
	free(tmp);
	return ok;
}

struct cache_entry {
	char *name;
	uint64_t mtime_ns;
	uint64_t size;
};

static int newest_first(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;
	return x->mtime_ns < y->mtime_ns ? 1 : x->mtime_ns > y->mtime_ns ? -1 : strcmp(x->name, y->name);
}

/* Keeps the CACHE_KEEP_FILES most recently used model files of dir within
 * CACHE_KEEP_BYTES (kept, the one just written, always stays) and removes
 * the rest, and temporary files left by a pmctop that died. Only regular
 * files of this user's, never followed through a link. */
static void prune_cache(const char *dir, const char *kept)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	const char *kept_name = strrchr(kept, '/') ? strrchr(kept, '/') + 1 : kept;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct cache_entry *v = NULL;
	int n = 0, seen = 0;
	struct dirent *de;
	while ((de = readdir(d)) && seen++ < CACHE_SCAN_MAX) {
		size_t len = strlen(de->d_name);
		bool model = len > 6 && !strcmp(de->d_name + len - 6, ".model");
		bool tmp = !strncmp(de->d_name, ".tmp-", 5);
		struct stat sb;
		if ((!model && !tmp) || fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (tmp) {
			if (sb.st_mtim.tv_sec + CACHE_TMP_AGE_S < now.tv_sec)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
		/* The file just written counts first, whatever its clock says. */
		v[n++] = (struct cache_entry){ xstrdup(de->d_name),
					       strcmp(de->d_name, kept_name) ? ts_ns(&sb.st_mtim) : UINT64_MAX,
					       (uint64_t)sb.st_size };
	}
	if (n > 0)
		qsort(v, (size_t)n, sizeof(*v), newest_first);
	uint64_t bytes = 0;
	for (int i = 0; i < n; i++) {
		bytes += v[i].size;
		if (i > 0 && (i >= CACHE_KEEP_FILES || bytes > CACHE_KEEP_BYTES))
			unlinkat(dirfd(d), v[i].name, 0);
		free(v[i].name);
	}
	free(v);
	closedir(d);
}

static bool cache_disabled(void)
{
	const char *e = getenv("PMCTOP_NO_CACHE");
	return e && *e && strcmp(e, "0");
}

/* The stanzas from the cache file at path, if it is whole, this identity's
 * and no input changed. */
static bool from_cache(const char *path, const char *id, struct def_set *set, char **dir, char **skipped)
{
	size_t len = 0;
	char *buf = read_cache(path, &len);
	if (!buf)
		return false;
	struct perf_cache_input *in = NULL;
	int nin = 0;
	bool ok = perf_cache_decode(buf, len, id, &in, &nin, set, dir, skipped, NULL) == 0;
	if (!ok)
		free(buf);   /* else set's pool */
	for (int i = 0; ok && i < nin; i++)
		ok = input_same(&in[i]);
	if (!ok && in) {
		/* Decoded but stale: nothing of it goes back to the caller. */
		defset_free(set);
		free(*dir);
		free(*skipped);
		*dir = *skipped = NULL;
	}
	perf_cache_inputs_free(in, nin);
	return ok;
}

struct model *perf_cache_load(const char *root, const char *events_dir, const char *name,
			      const struct perf_import_opts *o, char **skipped, enum perf_cache_use *use,
			      char **cause)
{
	enum perf_cache_use u = PERF_CACHE_OFF;
	char *id = NULL, *cdir = NULL, *path = NULL, *dir = NULL, *skip = NULL;
	struct inputs l = { 0 };
	struct def_set set = { 0 };
	struct model *m = NULL;
	if (!cache_disabled() && (cdir = cache_dir(true))) {
		char *where = place(root, events_dir, name, o);
		id = identity(where);
		path = cache_path(cdir, name, where);
		free(where);
		if (from_cache(path, id, &set, &dir, &skip)) {
			/* It built once; should it not now, import afresh. */
			if ((m = evdef_build_set(&set, dir, NULL))) {
				u = PERF_CACHE_HIT;
				/* Used now: the last that a prune removes. */
				utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
			}
			defset_free(&set);
			free(dir);
			dir = NULL;
			if (!m) {
				free(skip);
				skip = NULL;
			}
		}
		/* The inputs' stat before the import reads them: a file changed
		 * while it is read leaves a cache that no later stat matches. */
		if (!m && gather_inputs(root, events_dir, name, &l, NULL) < 0) {
			perf_cache_inputs_free(l.v, l.n);
			l = (struct inputs){ 0 };
		}
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (!m) {
		if (perf_import_stanzas(root, events_dir, name, o, &set, &dir, &skip, cause) < 0)
			goto done;
		m = evdef_build_set(&set, dir, cause);
		if (m && path && l.n) {
			bool racy = false;
			for (int i = 0; i < l.n; i++)
				racy |= l.v[i].mtime_ns + CACHE_RACY_NS > ts_ns(&now) ||
					l.v[i].ctime_ns + CACHE_RACY_NS > ts_ns(&now);
			u = PERF_CACHE_MISS;
			if (!racy) {
				size_t len;
				char *buf = perf_cache_encode(id, l.v, l.n, &set, dir, skip, &len);
				if (write_cache(cdir, path, buf, len)) {
					u = PERF_CACHE_WRITTEN;
					prune_cache(cdir, path);
				}
				free(buf);
			}
		}
		defset_free(&set);
		free(dir);
	}
	if (m) {
		m->imported = true;
		if (skipped) {
			*skipped = skip;
			skip = NULL;
		}
	}
done:
	if (use)
		*use = m ? u : PERF_CACHE_OFF;
	free(skip);
	perf_cache_inputs_free(l.v, l.n);
	free(id);
	free(cdir);
	free(path);
	return m;
}
