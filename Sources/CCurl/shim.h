#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

// The type-checking macros in typecheck-gcc.h wrap curl_easy_setopt in a statement
// expression; these typed wrappers do that job, so turn them off.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call. One wrapper per argument type the options take; the option decides which one is right
// (curl.h's CURLOPTTYPE_* of each option).

/// An option of type long (CURLOPTTYPE_LONG, CURLOPTTYPE_VALUES).
static inline CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

/// An option of type curl_off_t (CURLOPTTYPE_OFF_T).
static inline CURLcode ccurl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

/// A string option (CURLOPTTYPE_STRINGPOINT); libcurl copies the string.
static inline CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

/// A pointer option (CURLOPTTYPE_OBJECTPOINT, CURLOPTTYPE_CBPOINT): libcurl keeps the pointer.
static inline CURLcode ccurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

/// A header list (CURLOPT_HTTPHEADER): libcurl keeps the pointer until the transfer ends.
static inline CURLcode ccurl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode ccurl_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(easy, option, value);
}

/// CURLOPT_READFUNCTION.
static inline CURLcode ccurl_easy_setopt_read_function(CURL *easy, curl_read_callback value) {
    return curl_easy_setopt(easy, CURLOPT_READFUNCTION, value);
}

/// CURLOPT_SEEKFUNCTION.
static inline CURLcode ccurl_easy_setopt_seek_function(CURL *easy, curl_seek_callback value) {
    return curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, value);
}

/// CURLOPT_XFERINFOFUNCTION.
static inline CURLcode ccurl_easy_setopt_xferinfo_function(CURL *easy, curl_xferinfo_callback value) {
    return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, value);
}

/// A multi option of type long.
static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// An info of type long (CURLINFO_LONG).
static inline CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

/// An info of type curl_off_t (CURLINFO_OFF_T).
static inline CURLcode ccurl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

/// An info of type string (CURLINFO_STRING): the string belongs to the handle.
static inline CURLcode ccurl_easy_getinfo_string(CURL *easy, CURLINFO info, char **value) {
    return curl_easy_getinfo(easy, info, value);
}

/// CURLINFO_PRIVATE: the pointer given as CURLOPT_PRIVATE.
static inline CURLcode ccurl_easy_getinfo_private(CURL *easy, void **value) {
    return curl_easy_getinfo(easy, CURLINFO_PRIVATE, value);
}

/// CURL_READFUNC_ABORT, CURL_READFUNC_PAUSE, CURL_SEEKFUNC_* and CURL_WRITEFUNC_PAUSE as values Swift can use.
static inline size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline int ccurl_seekfunc_ok(void) { return CURL_SEEKFUNC_OK; }
static inline int ccurl_seekfunc_fail(void) { return CURL_SEEKFUNC_FAIL; }
static inline int ccurl_seekfunc_cantseek(void) { return CURL_SEEKFUNC_CANTSEEK; }
static inline size_t ccurl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline size_t ccurl_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }

/// Resumes a transfer a write callback paused (curl_easy_pause with CURLPAUSE_CONT).
static inline CURLcode ccurl_easy_unpause(CURL *easy) { return curl_easy_pause(easy, CURLPAUSE_CONT); }

/// curl_share_setopt for a long argument (CURLSHOPT_SHARE).
static inline CURLSHcode ccurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

/// The size of the error buffer CURLOPT_ERRORBUFFER needs.
static inline int ccurl_error_size(void) { return CURL_ERROR_SIZE; }

#endif
