/* encode.c: turns an event definition into a perf_event_attr.
 *
 * Four encodings reach the kernel:
 *  - a vendor raw register value (ENC_RAW) is first split into the PMU's
 *    hardware fields (as the vendor lays them out in PERF_CTL/ChL3PmcCfg),
 *    then each field is placed where the kernel PMU's sysfs format/ file says
 *    it goes, so that pmctop never hard-codes the kernel's layout;
 *  - named sysfs fields (ENC_FIELDS) go through the same format/ files;
 *  - libpfm4 names (ENC_PFM) are encoded by libpfm4 itself;
 *  - perf generic hardware and software events (ENC_PERF) map to fixed ids.
 * ENC_PROC figures are not perf events at all: the perf backend reads
 * /proc/stat for them. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
/* C11 threads rather than <pthread.h>: the latter includes <sched.h>, which
 * -I src would resolve to pmctop's own src/sched.h. */
#include <threads.h>

/* The kernel's header first: libpfm4's copy then steps aside. */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "encode.h"
#include "util.h"

/* Where one field goes in the attr, as a sysfs format file says:
 * "config:0-7,32-35", "config1:0-2", "config:46". */
struct sysfs_format {
	int word; /* 0 config, 1 config1, 2 config2 */
	int nranges;
	struct { int lo, hi; } range[8];
};

static int parse_format(const char *text, struct sysfs_format *f)
{
	const char *p;
	memset(f, 0, sizeof(*f));
	if (strncmp(text, "config2:", 8) == 0) {
		f->word = 2;
		p = text + 8;
	} else if (strncmp(text, "config1:", 8) == 0) {
		f->word = 1;
		p = text + 8;
	} else if (strncmp(text, "config:", 7) == 0) {
		f->word = 0;
		p = text + 7;
	} else {
		return -1;
	}
	for (;;) {
		char *end;
		long lo = strtol(p, &end, 10), hi;
		if (end == p || lo < 0 || lo > 63)
			return -1;
		p = end;
		hi = lo;
		if (*p == '-') {
			p++;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > 63)
				return -1;
			p = end;
		}
		if (f->nranges == (int)ARRAY_SIZE(f->range))
			return -1;
		f->range[f->nranges].lo = (int)lo;
		f->range[f->nranges].hi = (int)hi;
		f->nranges++;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -1;
		p++;
	}
}

static __u64 *attr_word(struct perf_event_attr *attr, int word)
{
	switch (word) {
	case 1: return &attr->config1;
	case 2: return &attr->config2;
	default: return &attr->config;
	}
}

/* Places value into the attr as format f says, low bits into the first
 * range. A value wider than the field is an error, not silently cut. */
static int place_field(struct perf_event_attr *attr, const struct sysfs_format *f,
		       uint64_t value)
{
	__u64 *w = attr_word(attr, f->word);
	for (int i = 0; i < f->nranges; i++) {
		int width = f->range[i].hi - f->range[i].lo + 1;
		uint64_t mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
		*w |= (value & mask) << f->range[i].lo;
		value = width == 64 ? 0 : value >> width;
	}
	return value ? -1 : 0;
}

static char *pmu_dir(const char *sysfs_root, const char *perf_pmu)
{
	return xasprintf("%s/bus/event_source/devices/%s", sysfs_root, perf_pmu);
}

/* Checks that the PMU exists under sysfs_root and reads its type. */
static int read_pmu_type(const char *sysfs_root, const char *perf_pmu, uint32_t *type,
			 char **cause)
{
	char *dir = pmu_dir(sysfs_root, perf_pmu);
	char *path = NULL;
	struct stat st;
	long t;
	int rc;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		set_cause(cause, "PMU %s is not present (no %s)", perf_pmu, dir);
		rc = -ENOENT;
		goto out;
	}
	path = xasprintf("%s/type", dir);
	rc = read_long_file(path, &t);
	if (rc < 0 || t < 0 || t > UINT32_MAX) {
		set_cause(cause, "cannot read the type of PMU %s from %s", perf_pmu, path);
		rc = rc < 0 ? rc : -EINVAL;
		goto out;
	}
	*type = (uint32_t)t;
	rc = 0;
out:
	free(path);
	free(dir);
	return rc;
}

/* Reads format/<field> of the PMU. -ENOENT if the PMU has no such field. */
static int read_format(const char *sysfs_root, const char *perf_pmu, const char *field,
		       struct sysfs_format *f, char **cause)
{
	char *path = xasprintf("%s/bus/event_source/devices/%s/format/%s", sysfs_root,
			       perf_pmu, field);
	char *text = read_text_file(path);
	int rc = 0;

	if (!text) {
		rc = -ENOENT;
	} else if (parse_format(text, f) < 0) {
		set_cause(cause, "%s: cannot parse format '%s'", path, text);
		rc = -EINVAL;
	}
	free(text);
	free(path);
	return rc;
}

/* Sets one named field of the attr through the PMU's sysfs format. The
 * terms config/config1/config2 are accepted as whole words, as perf does. */
static int set_named_field(const char *sysfs_root, const char *perf_pmu, const char *name,
			   uint64_t value, struct perf_event_attr *attr, char **cause)
{
	struct sysfs_format f;
	int rc = read_format(sysfs_root, perf_pmu, name, &f, cause);

	if (rc == -ENOENT) {
		if (strcmp(name, "config") == 0 || strcmp(name, "config1") == 0 ||
		    strcmp(name, "config2") == 0) {
			*attr_word(attr, name[6] ? name[6] - '0' : 0) |= value;
			return 0;
		}
		set_cause(cause, "field %s (value 0x%" PRIx64 ") has no sysfs format in PMU %s",
			  name, value, perf_pmu);
		return -EINVAL;
	}
	if (rc < 0)
		return rc;
	if (place_field(attr, &f, value) < 0) {
		set_cause(cause, "value 0x%" PRIx64 " does not fit field %s of PMU %s", value,
			  name, perf_pmu);
		return -EINVAL;
	}
	return 0;
}

/* Bits lo..hi; an invalid range (which the loader should have refused)
 * covers nothing rather than shifting by a negative amount. */
static uint64_t range_mask(int lo, int hi)
{
	if (lo < 0 || hi > 63 || hi < lo)
		return 0;
	int width = hi - lo + 1;
	return (width == 64 ? ~0ULL : (1ULL << width) - 1) << lo;
}

int encode_raw_fields(const struct pmu_def *pmu, uint64_t raw, const char **names,
		      uint64_t *values, int max)
{
	int n = 0;
	raw &= ~pmu->ignore_mask;
	for (int i = 0; i < pmu->nfields && n < max; i++) {
		const struct hw_field *hf = &pmu->fields[i];
		uint64_t v = 0;
		int shift = 0;
		for (int r = 0; r < hf->nranges && r < (int)ARRAY_SIZE(hf->range); r++) {
			int lo = hf->range[r].lo, hi = hf->range[r].hi;
			if (!range_mask(lo, hi) || shift > 63)
				continue;
			v |= ((raw & range_mask(lo, hi)) >> lo) << shift;
			shift += hi - lo + 1;
		}
		names[n] = hf->name;
		values[n] = v;
		n++;
	}
	return n;
}

/* Bits of a raw value that no hardware field covers and the kernel does not
 * own: a value with such bits set cannot be expressed to the kernel. */
static uint64_t raw_unmapped_bits(const struct pmu_def *pmu, uint64_t raw)
{
	uint64_t covered = pmu->ignore_mask;
	for (int i = 0; i < pmu->nfields; i++)
		for (int r = 0; r < pmu->fields[i].nranges && r < 4; r++)
			covered |= range_mask(pmu->fields[i].range[r].lo,
					      pmu->fields[i].range[r].hi);
	return raw & ~covered;
}

static int encode_raw(const struct pmu_def *pmu, const struct event_def *ev,
		      const char *perf_pmu, const char *sysfs_root,
		      struct perf_event_attr *attr, char **cause)
{
	const char *names[32];
	uint64_t values[32];
	uint64_t extra = raw_unmapped_bits(pmu, ev->raw);
	int n, rc;

	if (pmu->nfields > (int)ARRAY_SIZE(names)) {
		set_cause(cause, "PMU %s has %d fields, more than pmctop handles (%zu)", pmu->name,
			  pmu->nfields, ARRAY_SIZE(names));
		return -EINVAL;
	}
	if (extra) {
		set_cause(cause, "event %s: raw value 0x%" PRIX64 " has bits 0x%" PRIX64
			  " outside the fields of PMU %s", ev->name, ev->raw, extra, pmu->name);
		return -EINVAL;
	}
	rc = read_pmu_type(sysfs_root, perf_pmu, &attr->type, cause);
	if (rc < 0)
		return rc;
	n = encode_raw_fields(pmu, ev->raw, names, values, (int)ARRAY_SIZE(names));
	for (int i = 0; i < n; i++) {
		/* A zero field need not exist in the kernel's layout (Intel "pc"
		 * or "any" on a kernel without them): it changes nothing. */
		if (values[i] == 0)
			continue;
		rc = set_named_field(sysfs_root, perf_pmu, names[i], values[i], attr, cause);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "event=0x04,umask=0xff,enallcores=1"; a bare name means 1, as in perf. */
static int encode_fields(const struct event_def *ev, const char *perf_pmu,
			 const char *sysfs_root, struct perf_event_attr *attr, char **cause)
{
	char *copy = NULL, *save = NULL, *term;
	int rc = read_pmu_type(sysfs_root, perf_pmu, &attr->type, cause);

	if (rc < 0)
		return rc;
	if (!ev->spec || !*ev->spec) {
		set_cause(cause, "event %s: empty field list", ev->name);
		return -EINVAL;
	}
	copy = xstrdup(ev->spec);
	for (term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		uint64_t value = 1;
		while (*term == ' ')
			term++;
		if (eq) {
			char *end;
			*eq = '\0';
			errno = 0;
			value = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end != '\0' || errno) {
				set_cause(cause, "event %s: bad value '%s' for field %s",
					  ev->name, eq + 1, term);
				rc = -EINVAL;
				goto out;
			}
		}
		if (!*term) {
			set_cause(cause, "event %s: empty field name in '%s'", ev->name, ev->spec);
			rc = -EINVAL;
			goto out;
		}
		rc = set_named_field(sysfs_root, perf_pmu, term, value, attr, cause);
		if (rc < 0)
			goto out;
	}
out:
	free(copy);
	return rc;
}

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} perf_events[] = {
	{ "hardware:cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "hardware:instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "hardware:cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "hardware:cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "hardware:branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "hardware:branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "hardware:bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "hardware:stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "hardware:stalled-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "hardware:ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "software:cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "software:task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "software:page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "software:context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "software:cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "software:minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "software:major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

static int encode_perf(const struct event_def *ev, struct perf_event_attr *attr,
		       char **cause)
{
	for (size_t i = 0; i < ARRAY_SIZE(perf_events); i++) {
		if (ev->spec && strcmp(ev->spec, perf_events[i].name) == 0) {
			attr->type = perf_events[i].type;
			attr->config = perf_events[i].config;
			return 0;
		}
	}
	set_cause(cause, "event %s: unknown perf event '%s' (expected hardware:NAME or "
		  "software:NAME)", ev->name, ev->spec ? ev->spec : "");
	return -EINVAL;
}

static once_flag pfm_once = ONCE_FLAG_INIT;
static int pfm_init_rc;
/* Serialises calls into libpfm4, whose encoder is not documented as
 * thread-safe. Initialised together with libpfm4. */
static mtx_t pfm_lock;

static void pfm_init_once(void)
{
	if (mtx_init(&pfm_lock, mtx_plain) != thrd_success) {
		pfm_init_rc = PFM_ERR_NOMEM;
		return;
	}
	pfm_init_rc = pfm_initialize();
}

int encode_pfm_init(char **cause)
{
	/* libpfm4 reads LIBPFM_FORCE_PMU here, once; tests that force a PMU
	 * set it before the first call (each Check test runs in its own fork). */
	call_once(&pfm_once, pfm_init_once);
	if (pfm_init_rc != PFM_SUCCESS)
		return set_cause(cause, "cannot initialise libpfm4: %s", pfm_strerror(pfm_init_rc));
	return 0;
}

static int encode_pfm(const struct event_def *ev, struct perf_event_attr *attr, char **cause)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	if (encode_pfm_init(cause) < 0)
		return -ENOSYS;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = attr;
	/* Both privilege levels: pmctop counts user and kernel together. */
	mtx_lock(&pfm_lock);
	ret = pfm_get_os_event_encoding(ev->spec ? ev->spec : "", PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	mtx_unlock(&pfm_lock);
	if (ret == PFM_SUCCESS)
		return 0;
	/* An unknown unit mask (PFM_ERR_ATTR) means the same as an unknown
	 * event: this CPU's tables do not have what the definition asks for. */
	if (ret == PFM_ERR_NOTFOUND || ret == PFM_ERR_ATTR) {
		const char *forced = getenv("LIBPFM_FORCE_PMU");
		set_cause(cause, "event %s: libpfm4 does not know '%s' on %s%s", ev->name,
			  ev->spec ? ev->spec : "", forced ? "forced PMU " : "this CPU",
			  forced ? forced : "");
		return -ENOENT;
	}
	set_cause(cause, "event %s: libpfm4 cannot encode '%s': %s", ev->name,
		  ev->spec ? ev->spec : "", pfm_strerror(ret));
	return -EINVAL;
}

int encode_event(const struct model *m, const struct event_def *ev, const char *perf_pmu,
		 const char *sysfs_root, struct perf_event_attr *attr, char **cause)
{
	const struct pmu_def *pmu;
	int rc;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (ev->pmu < 0 || ev->pmu >= m->npmus) {
		set_cause(cause, "event %s: no PMU", ev->name);
		return -EINVAL;
	}
	pmu = &m->pmus[ev->pmu];
	if (!perf_pmu)
		perf_pmu = pmu->perf_name;
	if (!sysfs_root)
		sysfs_root = "/sys";

	switch (ev->enc) {
	case ENC_RAW:
		rc = encode_raw(pmu, ev, perf_pmu, sysfs_root, attr, cause);
		break;
	case ENC_FIELDS:
		rc = encode_fields(ev, perf_pmu, sysfs_root, attr, cause);
		break;
	case ENC_PFM:
		rc = encode_pfm(ev, attr, cause);
		break;
	case ENC_PERF:
		rc = encode_perf(ev, attr, cause);
		break;
	case ENC_PROC:
		set_cause(cause, "event %s: /proc/stat figure %s is not a perf event", ev->name,
			  ev->spec ? ev->spec : "");
		rc = -EINVAL;
		break;
	default:
		set_cause(cause, "event %s: unknown encoding", ev->name);
		rc = -EINVAL;
		break;
	}
	if (rc < 0)
		return rc;
	/* libpfm4 may fill a smaller struct; pmctop hands the kernel its own. */
	attr->size = sizeof(*attr);
	/* A privilege modifier's variant (`instructions:u`): on top of what
	 * the encoding says, as perf's parse-events does. */
	if (ev->excl & EXCL_USER)
		attr->exclude_user = 1;
	if (ev->excl & EXCL_KERNEL)
		attr->exclude_kernel = 1;
	if (ev->excl & EXCL_HV)
		attr->exclude_hv = 1;
	if (ev->excl & EXCL_HOST)
		attr->exclude_host = 1;
	if (ev->excl & EXCL_GUEST)
		attr->exclude_guest = 1;
	return 0;
}

char *encode_vendor_notation(const struct model *m, const struct event_def *ev)
{
	const struct pmu_def *pmu = ev->pmu >= 0 && ev->pmu < m->npmus ? &m->pmus[ev->pmu] : NULL;
	const char *spec = ev->spec ? ev->spec : "";

	switch (ev->enc) {
	case ENC_RAW: {
		const char *notation = pmu && pmu->notation ? pmu->notation : "Event";
		/* The vendor prints L3 values as all 16 digits of ChL3PmcCfg
		 * ("L3Event[0x0300C0000040FF04]") and core values without
		 * leading zeros ("Event[0x4300C3]"). */
		if (strcmp(notation, "L3Event") == 0)
			return xasprintf("%s[0x%016" PRIX64 "]", notation, ev->raw);
		return xasprintf("%s[0x%" PRIX64 "]", notation, ev->raw);
	}
	case ENC_PFM: {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;
		int ret = PFM_ERR_NOINIT;

		if (encode_pfm_init(NULL) == 0) {
			memset(&attr, 0, sizeof(attr));
			memset(&arg, 0, sizeof(arg));
			arg.size = sizeof(arg);
			arg.attr = &attr;
			mtx_lock(&pfm_lock);
			ret = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3,
							PFM_OS_PERF_EVENT_EXT, &arg);
			mtx_unlock(&pfm_lock);
		}
		if (ret != PFM_SUCCESS)
			return xasprintf("pfm:%s(not known to libpfm4 here)", spec);
		return xasprintf("pfm:%s(config=0x%" PRIx64 ")", spec, (uint64_t)attr.config);
	}
	case ENC_FIELDS:
		return xasprintf("%s/%s/", pmu && pmu->perf_name ? pmu->perf_name : "?", spec);
	case ENC_PERF:
		return xasprintf("perf:%s", spec);
	case ENC_PROC:
		return xasprintf("proc:%s", spec);
	}
	return xasprintf("?");
}
