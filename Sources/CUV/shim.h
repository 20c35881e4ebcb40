// libuv 1.44 (Debian 12: libuv1-dev) for PromiseUV. Only PromiseUV's Internal/ files import it.
#ifndef CUV_SHIM_H
#define CUV_SHIM_H

#include <uv.h>

// libuv's handle and request types share a common prefix (uv_handle_t, uv_req_t) that C reaches
// with a cast; these typed wrappers do the casts Swift cannot write directly.

static inline uv_handle_t *cuv_async_as_handle(uv_async_t *handle) {
    return (uv_handle_t *)handle;
}

static inline uv_handle_t *cuv_timer_as_handle(uv_timer_t *handle) {
    return (uv_handle_t *)handle;
}

static inline uv_handle_t *cuv_prepare_as_handle(uv_prepare_t *handle) {
    return (uv_handle_t *)handle;
}

static inline uv_handle_t *cuv_signal_as_handle(uv_signal_t *handle) {
    return (uv_handle_t *)handle;
}

static inline uv_req_t *cuv_work_as_req(uv_work_t *request) {
    return (uv_req_t *)request;
}

#endif
