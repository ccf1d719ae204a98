/* curl_dl.h: libcurl, loaded when --fleet first needs it rather than
 * linked into pmctop. Linked, libcurl-gnutls and the 24 libraries behind
 * it (GnuTLS, Kerberos, LDAP, ...) were mapped, relocated and initialised
 * at every start: 11.9 M of the 29.2 M instructions of a one-interval
 * batch run (docs/performance.md, issue 39), for a feature that only
 * --fleet uses.
 *
 * src/curl_dl.c defines the libcurl functions pmctop calls under their
 * own names (src/fleet_http.c is written against <curl/curl.h> as if it
 * were linked), each loading the library on first use and passing the
 * call on. A libcurl function used anywhere else must be added there: the
 * link says so (an undefined reference). */
#ifndef PMCTOP_CURL_DL_H
#define PMCTOP_CURL_DL_H

#include <stdbool.h>

/* Loads libcurl (once; thread safe). false, with a cause (if not NULL)
 * that says what is missing and which package has it, when it cannot be
 * loaded or lacks a function pmctop calls. */
bool curl_dl_ready(char **cause);

#endif
