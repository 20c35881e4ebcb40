internal import CUV
internal import Glibc

/// Runs libdispatch's main queue on a loop that ``UVLoop/run()`` drives on the process's main
/// thread: `DispatchQueue.main.async` blocks, `@MainActor` functions and the top-level
/// `Task {}` of a `main.swift` then run on the loop, in the main queue's order, interleaved
/// with the loop's own callbacks. This is how Foundation's `RunLoop.main` runs the main queue
/// on Linux: libdispatch signals an eventfd when the main queue has work, and the run loop
/// calls libdispatch back to run it.
///
/// Loop thread only (``LoopCore``'s confinement); the phases are in
/// ``MainQueueDrainStateMachine``.
final class MainQueueDrain {
    private var machine = MainQueueDrainStateMachine()
    /// The `uv_poll_t` on ``eventFD``, from the first run on the main thread until its close.
    private var handle: UnsafeMutablePointer<uv_poll_t>?
    /// libdispatch's eventfd for the main queue.
    private var eventFD: Int32 = -1

    /// ``UVLoop/run()`` starts driving `core` on the calling thread.
    func runStarted(_ core: LoopCore) {
        switch machine.runStarted(onMainThread: cuv_is_process_main_thread() != 0) {
        case .openAndPoll:
            guard open(core) else {
                machine.openFailed()
                return
            }
            startPolling()
        case .poll:
            startPolling()
        case .none:
            break
        }
    }

    /// The run that ``runStarted(_:)`` began returns: the loop may run on another thread next.
    func runEnded() {
        switch machine.runEnded() {
        case .stopPolling: uv_poll_stop(handle)
        case .none: break
        }
    }

    /// The loop closes its own handles.
    func shutdown() {
        switch machine.shutdown() {
        case .close: uv_close(cuv_poll_as_handle(handle), Trampolines.closed)
        case .none: break
        }
    }

    /// Runs the main queue's work if libdispatch signalled some, and says whether it did. The
    /// loop asks before ``UVLoop/run()`` returns, since the watch does not keep the loop
    /// running by itself (it is unreferenced, like the loop's other own handles).
    func runIfSignalled() -> Bool {
        guard machine.drains else { return false }
        var ready = pollfd(fd: eventFD, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) == 1 else { return false }
        runQueued()
        return true
    }

    /// The eventfd is readable (the poll callback): runs the main queue's work.
    func readable() {
        guard machine.drains else { return }
        runQueued()
    }

    /// Consumes the eventfd's signal, then runs what the main queue holds: work queued while
    /// it runs signals again, so none is left behind.
    private func runQueued() {
        var count: UInt64 = 0
        _ = read(eventFD, &count, MemoryLayout<UInt64>.size)
        _dispatch_main_queue_callback_4CF(nil)
    }

    private func startPolling() {
        uv_poll_start(handle, Int32(UV_READABLE.rawValue), Trampolines.mainQueueReadable)
        // Work queued before the eventfd existed signalled nothing: run it now.
        _dispatch_main_queue_callback_4CF(nil)
    }

    /// Creates the unreferenced handle on the main queue's eventfd; false when libdispatch has
    /// none or libuv refuses it (the loop then runs without the main queue).
    private func open(_ core: LoopCore) -> Bool {
        let fd = _dispatch_get_main_queue_handle_4CF()
        guard fd >= 0 else { return false }
        let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        guard uv_poll_init(core.loop, poll, fd) == 0 else {
            poll.deallocate()
            return false
        }
        poll.pointee.data = Unmanaged.passRetained(core).toOpaque()
        uv_unref(cuv_poll_as_handle(poll))
        core.handleOpened()
        handle = poll
        eventFD = fd
        return true
    }
}
