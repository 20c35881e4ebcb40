internal import CUV
internal import Synchronization

/// One `loop.work { … }` job: owns its `uv_work_t` and what runs on the pool and on the loop.
///
/// `@unchecked Sendable`: ``perform()`` runs on a libuv pool thread and ``finish`` on the loop
/// thread, strictly after it: libuv hands the request from the pool back to the loop under its
/// work-queue mutex, which orders the two. ``cancelled`` is atomic. Not loop-confined, so
/// ``LoopOwned`` cannot check it: it is handed from thread to thread, which libuv orders.
final class WorkRequest: @unchecked Sendable {
    let request: UnsafeMutablePointer<uv_work_t>
    let core: LoopCore
    /// Set when the caller cancels; a request that sees it before starting skips its body.
    let cancelled = Atomic<Bool>(false)
    private let body: () -> Void
    /// Called on the loop thread with whether the body ran.
    let finish: (_ ran: Bool, _ cancelledByCaller: Bool) -> Void
    private var ran = false

    init(core: LoopCore, body: @escaping () -> Void, finish: @escaping (_ ran: Bool, _ cancelledByCaller: Bool) -> Void) {
        self.request = .allocate(capacity: 1)
        self.core = core
        self.body = body
        self.finish = finish
    }

    deinit {
        request.deallocate()
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// On a pool thread.
    func perform() {
        guard !cancelled.load(ordering: .acquiring) else { return }
        ran = true
        body()
    }

    /// Whether the body ran (loop thread, after the after-work callback).
    var didRun: Bool { ran }

    /// Queues the request on libuv's pool, retaining `self` until the after-work callback.
    func queue(on loop: UnsafeMutablePointer<uv_loop_t>) throws(UVError) {
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let status = uv_queue_work(loop, request, Trampolines.work, Trampolines.afterWork)
        if status < 0 {
            Unmanaged<WorkRequest>.fromOpaque(request.pointee.data).release()
            request.pointee.data = nil
            try uvCheck(status, "uv_queue_work")
        }
    }

    /// Cancels the request if libuv has not started it (loop thread). Returns whether it did.
    @discardableResult
    func cancelIfQueued() -> Bool {
        uv_cancel(cuv_work_as_req(request)) == 0
    }
}

/// The result of a work body, written on the pool thread and read on the loop thread.
///
/// Not `Sendable`: written once by ``WorkRequest/perform()`` and read only in the after-work
/// callback, which libuv orders after it (see ``WorkRequest``).
final class ResultBox<T> {
    var result: Result<T, any Error>?
}
