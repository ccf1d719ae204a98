/* pmu_scale.c: reads an event's scale and unit from sysfs (pmu_scale.h).
 * The kernel's power PMU counts in 2^-32 J and says so in
 * events/energy-pkg.scale ("2.3283064365386962890625e-10") and .unit
 * ("Joules"); a kernel that said otherwise would still be read right,
 * since counts are converted to the definition's scale, never assumed. */
#include "config.h"
#include "pmu_scale.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


int pmu_event_rescale(const char *sysfs_root, const char *perf_pmu, const struct event_def *ev,
		      double *factor, char **cause)
{
	*factor = 1.0;
	if (!(ev->scale > 0) || !ev->requires)
		return 0;
	char *base = xasprintf("%s/bus/event_source/devices/%s/%s", sysfs_root ? sysfs_root : "/sys",
			       perf_pmu, ev->requires);
	char *spath = xasprintf("%s.scale", base), *upath = xasprintf("%s.unit", base);
	char *stext = read_text_file(spath), *utext = read_text_file(upath);
	double scale = NAN;
	if (stext && !(parse_double_c(stext, &scale) && scale > 0))
		scale = NAN;
	int rc = 0;
	if (isnan(scale))
		rc = set_cause(cause, "%s: %s: cannot tell what a count is worth (%s)", ev->name, spath,
			       stext ? "not a positive number" : "no such file");
	else if (!utext || strcmp(utext, ev->scale_unit ? ev->scale_unit : ""))
		rc = set_cause(cause, "%s: %s says '%s', the definition counts in %s", ev->name, upath,
			       utext ? utext : "(no such file)", ev->scale_unit ? ev->scale_unit : "?");
	else
		*factor = scale / ev->scale;
	free(stext);
	free(utext);
	free(spath);
	free(upath);
	free(base);
	return rc;
}
