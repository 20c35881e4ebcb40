internal import CUV
internal import Glibc
internal import Synchronization

/// One pending ``UVLoop/nextSignal(_:)``: a `uv_signal_t` started one-shot and unreferenced,
/// so it never keeps the loop running on its own.
///
/// `@unchecked Sendable`: other threads only set `cancelled`; everything else is read and
/// written on the loop thread (or by the submitting thread before the loop ever saw it).
/// The handle's `data` holds a reference to the watcher, taken with `passRetained` when the
/// handle is initialized and released in ``Trampolines/signalClosed``.
final class SignalWatcher: @unchecked Sendable {
    let core: LoopCore
    let signal: UVSignal
    private var promise: Promise<UVSignal>?
    private(set) var handle: UnsafeMutablePointer<uv_signal_t>?
    let cancelled = Atomic<Bool>(false)

    init(core: LoopCore, signal: UVSignal, promise: Promise<UVSignal>) {
        self.core = core
        self.signal = signal
        self.promise = promise
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Initializes and starts the handle (loop thread). Throws what libuv reported; the
    /// handle is then already closing.
    func start(on loop: UnsafeMutablePointer<uv_loop_t>) throws(UVError) {
        let handle = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
        uv_signal_init(loop, handle)  // cannot fail on Linux once the loop is initialized
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
        self.handle = handle
        let status = uv_signal_start_oneshot(handle, Trampolines.signal, signal.rawValue)
        if status < 0 {
            close()
            try uvCheck(status, "uv_signal_start_oneshot", detail: "watching for \(signal)")
        }
        uv_unref(cuv_signal_as_handle(handle))
        // A signal blocked on every thread is never delivered, and a parent can hand its
        // blocked mask down (Foundation's Process does): unblock it on the loop thread, so
        // the kernel always has a thread to deliver it to.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal.rawValue)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Stops and closes the handle (loop thread); its memory is freed in the close callback.
    func close() {
        guard let handle else { return }
        self.handle = nil
        uv_close(cuv_signal_as_handle(handle), Trampolines.signalClosed)
    }

    /// The signal arrived (loop thread).
    func fire() {
        guard let promise else { return }
        self.promise = nil
        let signal = self.signal
        AdapterSupport.runTurn(core.contextID) { promise.resolveFromLibrary(.success(signal)) }
    }

    /// Rejects the promise with `error` (any thread that owns the watcher).
    func fail(_ error: UVError) {
        guard let promise else { return }
        self.promise = nil
        promise.reject(error)
    }

    /// The loop shut down, or refused the watch: the signal will never be reported.
    func abandon() {
        fail(UVError(.loopClosed, operation: "nextSignal", detail: "the UVLoop was shut down before \(signal) arrived"))
    }

    /// Drops the promise after a cancellation, which already settled it.
    func forget() {
        promise = nil
    }
}
