/* export_user.c: --user NAME: gives up root once the counters and the
 * listening socket are open, so that a bug reachable from the network runs
 * as an unprivileged user. Supplementary groups go first, then the group,
 * then the user (the other order would leave no right to change groups),
 * and the result is checked: a setuid that silently keeps root would be
 * worse than none. */
#include "config.h"
#include "export.h"
#include "util.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

int export_drop_privileges(const char *user, char **cause)
{
	errno = 0;
	struct passwd *pw = getpwnam(user);
	if (!pw)
		return set_cause(cause, "--user: no user '%s'%s%s", user, errno ? ": " : "",
				 errno ? strerror(errno) : "");
	if (geteuid() != 0)
		return set_cause(cause, "--user %s: pmctop is not running as root, so it has nothing to give up", user);
	if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
		return set_cause(cause, "--user %s: cannot switch to it: %s", user, strerror(errno));
	if (pw->pw_uid != 0 && (setuid(0) == 0 || geteuid() == 0))
		return set_cause(cause, "--user %s: root could be regained after switching", user);
	return 0;
}
