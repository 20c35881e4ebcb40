// libuv 1.44 (Debian 12: libuv1-dev) for PromiseUV. Only PromiseUV's Internal/ files import it.
#ifndef CUV_SHIM_H
#define CUV_SHIM_H

#include <uv.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>

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

static inline uv_handle_t *cuv_poll_as_handle(uv_poll_t *handle) {
    return (uv_handle_t *)handle;
}

// Whether the calling thread is the process's first thread, the one libdispatch's main queue
// belongs to (on Linux its thread id is the process id).
static inline int cuv_is_process_main_thread(void) {
    return syscall(SYS_gettid) == getpid();
}

// libdispatch's interface for a run loop that drains the main queue on the main thread, the
// one swift-corelibs-foundation's RunLoop uses on Linux (libdispatch's private/queue_private.h).
// The handle is an eventfd that becomes readable when the main queue has work; the callback
// runs that work, and may be called only on the main thread.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

// pidfd_open(2) (Linux 5.3): a descriptor that becomes readable when process `pid` exits,
// which glibc 2.36 declares only for _GNU_SOURCE. -1 with errno ENOSYS on an older kernel.
static inline int cuv_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static inline uv_req_t *cuv_work_as_req(uv_work_t *request) {
    return (uv_req_t *)request;
}

#endif
