// libuv 1.44 (Debian 12: libuv1-dev) for PromiseUV. Only PromiseUV's Internal/ files import it.
#ifndef CUV_SHIM_H
#define CUV_SHIM_H

#include <uv.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>

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

// A new pseudo-terminal (pty(7)): opens its master close-on-exec without making it this
// process's controlling terminal, unlocks its slave and stores the slave's number (the N of
// /dev/pts/N). Returns the master, or -1 with errno. ioctl is variadic, which Swift cannot call.
static inline int cuv_open_terminal_master(unsigned int *slave_number) {
    int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) {
        return -1;
    }
    int unlock = 0;
    if (ioctl(master, TIOCSPTLCK, &unlock) != 0 || ioctl(master, TIOCGPTN, slave_number) != 0) {
        int saved = errno;
        close(master);
        errno = saved;
        return -1;
    }
    return master;
}

// Sets a terminal's window size (TIOCSWINSZ); on a pseudo-terminal's master, the kernel then
// sends SIGWINCH to the slave's foreground process group. 0, or -1 with errno.
static inline int cuv_set_window_size(int terminal, unsigned short rows, unsigned short columns) {
    struct winsize size = {.ws_row = rows, .ws_col = columns, .ws_xpixel = 0, .ws_ypixel = 0};
    return ioctl(terminal, TIOCSWINSZ, &size);
}

// A terminal's window size (TIOCGWINSZ) as rows and columns. 0, or -1 with errno.
static inline int cuv_window_size(int terminal, unsigned short *rows, unsigned short *columns) {
    struct winsize size;
    if (ioctl(terminal, TIOCGWINSZ, &size) != 0) {
        return -1;
    }
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

static inline uv_req_t *cuv_work_as_req(uv_work_t *request) {
    return (uv_req_t *)request;
}

#endif
