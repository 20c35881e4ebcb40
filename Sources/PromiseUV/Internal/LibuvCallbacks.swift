internal import CUV

// Every C callback PromiseUV gives libuv. Each finds its Swift owner through the handle's or
// request's `data` pointer, which holds a reference taken with `Unmanaged.passRetained` when
// the handle or request was registered, and released exactly once: in the close callback for
// handles, in the after-work callback for work requests.

enum Trampolines {
    /// `uv_async_t` callback: other threads queued work or changed the keep-alive count.
    static let wake: @convention(c) (UnsafeMutablePointer<uv_async_t>?) -> Void = { handle in
        Unmanaged<LoopCore>.fromOpaque(handle!.pointee.data).takeUnretainedValue().onWake()
    }

    /// `uv_prepare_t` callback, just before the loop polls for I/O: runs what the loop
    /// thread queued for itself during this iteration's callbacks.
    static let prepare: @convention(c) (UnsafeMutablePointer<uv_prepare_t>?) -> Void = { handle in
        Unmanaged<LoopCore>.fromOpaque(handle!.pointee.data).takeUnretainedValue().drainLocal()
    }

    /// `uv_timer_t` callback: the first of the loop's timers is due.
    static let timer: @convention(c) (UnsafeMutablePointer<uv_timer_t>?) -> Void = { handle in
        Unmanaged<LoopCore>.fromOpaque(handle!.pointee.data).takeUnretainedValue().onTimer()
    }

    /// `uv_poll_t` callback on libdispatch's main-queue eventfd (``MainQueueDrain``).
    static let mainQueueReadable: @convention(c) (UnsafeMutablePointer<uv_poll_t>?, Int32, Int32) -> Void = { handle, _, _ in
        Unmanaged<LoopCore>.fromOpaque(handle!.pointee.data).takeUnretainedValue().mainQueue.readable()
    }

    /// `uv_close` callback of the loop's handles: releases the reference the handle held and
    /// frees the handle's memory, which libuv no longer touches.
    static let closed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        let core = Unmanaged<LoopCore>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
        core.handleClosed()
    }

    /// `uv_work_t` work callback, on a thread of libuv's pool.
    static let work: @convention(c) (UnsafeMutablePointer<uv_work_t>?) -> Void = { request in
        Unmanaged<WorkRequest>.fromOpaque(request!.pointee.data).takeUnretainedValue().perform()
    }

    /// `uv_work_t` after-work callback, on the loop thread: releases the request's reference.
    static let afterWork: @convention(c) (UnsafeMutablePointer<uv_work_t>?, Int32) -> Void = { request, status in
        let work = Unmanaged<WorkRequest>.fromOpaque(request!.pointee.data).takeRetainedValue()
        request!.pointee.data = nil
        work.core.workFinished(work, status: status)
    }
}
