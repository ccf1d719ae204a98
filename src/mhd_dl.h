/* mhd_dl.h: libmicrohttpd, loaded when the exporter starts rather than
 * linked into pmctop. Only --listen serves HTTP, and loading the library
 * with its TLS stack (gnutls and a dozen more) at every start cost about
 * half of pmctop's start-up CPU (docs/performance.md); now a batch run or
 * the dashboard never maps it. The header still comes from
 * libmicrohttpd-dev, so types and constants are checked at build time. */
#ifndef PMCTOP_MHD_DL_H
#define PMCTOP_MHD_DL_H

#include <microhttpd.h>

/* The shared library's name: its ABI (soname) since 2012. */
#define MHD_DL_SONAME "libmicrohttpd.so.12"

/* The functions pmctop calls, with libmicrohttpd's own signatures. */
struct mhd_api {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
					   void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	enum MHD_Result (*is_feature_supported)(enum MHD_FEATURE feature);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	struct MHD_Response *(*create_response_from_iovec)(const struct MHD_IoVec *iov, unsigned int iovcnt,
							   MHD_ContentReaderFreeCallback free_cb, void *cls);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header, const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status_code,
					  struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
	const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind, const char *key);
	enum MHD_Result (*set_connection_option)(struct MHD_Connection *c, enum MHD_CONNECTION_OPTION option, ...);
	enum MHD_Result (*add_connection)(struct MHD_Daemon *d, MHD_socket fd, const struct sockaddr *addr,
					  socklen_t addrlen);
	void (*suspend_connection)(struct MHD_Connection *c);
	void (*resume_connection)(struct MHD_Connection *c);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c,
								enum MHD_ConnectionInfoType info, ...);
	/* GnuTLS's, from the library libmicrohttpd was linked with, for
	 * client certificates (gnutls_session_t as void *); NULL when it
	 * has none. */
	const void *(*tls_peers)(void *session, unsigned int *n);
	int (*tls_verify_peers)(void *session, unsigned int *status);
};

/* Loads soname (MHD_DL_SONAME) once and returns its functions; NULL with a
 * cause that says what is missing and which package has it. Not thread
 * safe: called from the main thread before the server starts. */
const struct mhd_api *mhd_dl_load(const char *soname, char **cause);

#endif
