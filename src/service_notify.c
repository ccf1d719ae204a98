/* service_notify.c: $NOTIFY_SOCKET datagrams (service_notify.h). The
 * protocol is systemd's documented interface (sd_notify(3)): one datagram
 * of VAR=value lines to an AF_UNIX socket whose address is in the
 * environment; a leading '@' means the abstract namespace. */
#include "config.h"
#include "service_notify.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int service_notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (!path || !*path)
		return 0;
	/* Only AF_UNIX addresses (a path or @abstract); newer managers may
	 * also give vsock: addresses, for VMs, which pmctop does not need. */
	if (path[0] != '/' && path[0] != '@')
		return 0;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	if (n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '/'));
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	int rc = 1;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sa, len) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(msg);
	return rc;
}
