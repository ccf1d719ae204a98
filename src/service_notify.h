/* service_notify.h: tells the service manager how pmctop stands
 * (systemd's Type=notify: READY=1, STATUS=..., STOPPING=1), by the
 * documented datagram protocol on $NOTIFY_SOCKET, without linking
 * libsystemd (whose loading, with its compression libraries, cost more
 * start-up CPU than the rest of pmctop; docs/performance.md). */
#ifndef PMCTOP_SERVICE_NOTIFY_H
#define PMCTOP_SERVICE_NOTIFY_H

/* Sends the message (newline-separated VAR=value lines) to the socket
 * $NOTIFY_SOCKET names: a path, or '@' for Linux's abstract namespace.
 * Returns 1 when sent, 0 when not run by a service manager (no
 * NOTIFY_SOCKET, or an address kind pmctop does not speak), -errno on
 * failure. Never blocks on a slow manager. */
int service_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
