internal import CCurl
@_spi(ContextContract) import PromiseCore
import Synchronization
internal import PromiseSystem

/// The thread that owns one multi handle and every easy handle in it.
///
/// Other threads only post to its ``Mailbox`` under the lock and, if the driver went to wait in
/// `curl_multi_poll`, wake it with `curl_multi_wakeup` (the one multi call libcurl allows from
/// another thread), once per wait however many messages arrive. Its ``Lifecycle`` refuses new
/// requests once a shutdown began.
///
/// Each turn the driver takes the mailbox whole, removes cancelled transfers, adds new ones,
/// runs `curl_multi_perform`, and completes finished transfers: it removes the easy handle,
/// builds the response, frees the handle, and only then resolves the promise, outside every
/// curl callback. Shutdown fails what is left and cleans up on this thread, never in a
/// `deinit`.
final class Driver: Sendable {
    private enum Message {
        case start(Transfer)
        case cancel(Transfer)
        /// Resumes a streamed transfer its write callback paused.
        case resume(Transfer)
        /// Wakes the driver for the shutdown (the lifecycle says it is draining).
        case stop
    }

    private struct State {
        var mailbox = Mailbox<Message>()
        var lifecycle = Lifecycle<Promise<Void>, CurlError>(refusal: CurlError(.shutdown, message: "the client was shut down; make a new CurlClient"))
    }

    /// The multi handle, shared only for `curl_multi_wakeup`.
    ///
    /// `@unchecked Sendable`: other threads call nothing on it but `curl_multi_wakeup`, which
    /// libcurl documents as thread-safe, and only before the driver cleans it up (the
    /// lifecycle is closed under the lock first, and nothing posts to a closed driver).
    private struct MultiHandle: @unchecked Sendable {
        /// `nil` only in a driver that never started (``init(refusing:configuration:)``), which
        /// is closed from the outset: nothing posts to it and no thread runs it.
        let handle: UnsafeMutableRawPointer?
        var pointer: UnsafeMutableRawPointer { handle! }
    }

    private let state = Lock(State())
    private let multi: MultiHandle
    let configuration: CurlConfiguration
    #if Tracing || Metrics
        /// Where the spans and metrics of this client's requests go.
        let telemetry: Telemetry?
    #endif
    /// The cookie store every transfer of this client shares, when
    /// ``CurlConfiguration/keepsCookies`` is on.
    let cookies: CookieStore?
    /// Progress reports made while libcurl runs, delivered once it has returned.
    let progressOutbox = ProgressOutbox()
    private let activeCount = Atomic<Int>(0)

    init(configuration: CurlConfiguration) throws(CurlError) {
        self.configuration = configuration
        #if Tracing || Metrics
            telemetry = configuration.telemetry
        #endif
        try curlCheck(curlGlobalInit, "curl_global_init")
        var cookies: CookieStore?
        if configuration.keepsCookies {
            guard let store = CookieStore() else {
                throw CurlError(.internalError, message: "curl_share_init failed, so there is no cookie store (out of memory?)")
            }
            cookies = store
        }
        self.cookies = cookies
        guard let multi = curl_multi_init() else {
            cookies?.close()
            throw CurlError(.internalError, message: "curl_multi_init failed (out of memory?)")
        }
        self.multi = MultiHandle(handle: multi)
        do throws(CurlError) {
            try curlMultiCheck(
                ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, configuration.maxConnections)), "CURLMOPT_MAX_TOTAL_CONNECTIONS")
            try curlMultiCheck(
                ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost)), "CURLMOPT_MAX_HOST_CONNECTIONS")
            // Keep as many idle connections as may be open, so a burst's connections are reused.
            try curlMultiCheck(ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, configuration.maxConnections)), "CURLMOPT_MAXCONNECTS")
        } catch {
            curl_multi_cleanup(multi)
            cookies?.close()
            throw error
        }
        let status = NamedThread.start(name: configuration.threadName) { [self] in run() }
        guard status == 0 else {
            curl_multi_cleanup(multi)
            cookies?.close()
            throw CurlError(.internalError, message: "could not start the client's thread: pthread_create failed with \(ErrnoText.describe(status))")
        }
        ContextRegistry.register(self, for: contextID)
    }

    /// A driver that could not start: closed from the outset, it refuses every request with
    /// `refusal` and has no thread and no multi handle.
    init(refusing refusal: CurlError, configuration: CurlConfiguration) {
        self.configuration = configuration
        #if Tracing || Metrics
            telemetry = configuration.telemetry
        #endif
        cookies = nil
        multi = MultiHandle(handle: nil)
        state.withLock { $0.lifecycle.failedToStart(refusal) }
    }

    /// Why requests are refused: the shutdown, or why the driver could not start.
    var refusal: CurlError { state.withLock { $0.lifecycle.refusal } }

    /// The identity of the driver thread's turns: requests are resolved in them, so
    /// `awaitPromise` for a request from a callback running there (an `InlineContext`
    /// callback) throws `deadlock` instead of stopping the driver for good.
    var contextID: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether no shutdown was asked for yet.
    var isAccepting: Bool { state.withLock { $0.lifecycle.isAccepting } }

    /// Transfers submitted and not yet completed.
    var pendingTransfers: Int { activeCount.load(ordering: .relaxed) }

    // MARK: Other threads

    /// Queues `transfer`; `false` once shutdown started.
    func submit(_ transfer: Transfer) -> Bool {
        let accepted: Bool = state.withLock { state in
            guard state.lifecycle.isAccepting else { return false }
            post(.start(transfer), &state)
            return true
        }
        if accepted { activeCount.add(1, ordering: .relaxed) }
        return accepted
    }

    /// Stops `transfer` wherever it is: not started yet, connecting, or transferring.
    func cancel(_ transfer: Transfer) {
        state.withLock { state in
            guard !state.lifecycle.isClosed else { return }
            post(.cancel(transfer), &state)
        }
    }

    /// Resumes `transfer`, which its write callback paused while the consumer of its streamed
    /// body was behind.
    func resume(_ transfer: Transfer) {
        state.withLock { state in
            guard !state.lifecycle.isClosed else { return }
            post(.resume(transfer), &state)
        }
    }

    /// Refuses new requests, fails the ones in flight with ``CurlError/Code/shutdown``, and
    /// cleans libcurl up on the driver thread.
    func shutdown() -> Promise<Void> {
        let waiter = Promise<Void>.pending(resolvedOn: nil)
        let step = state.withLock { state in
            let step = state.lifecycle.shutdown(waiter)
            if case .begin = step { post(.stop, &state) }
            return step
        }
        if case .settled = step { waiter.fulfill(()) }
        return waiter
    }

    /// Posts `message` and wakes the driver if it went to wait. Called under the lock, so it
    /// can never race `curl_multi_cleanup` (which runs after the lifecycle closes under it).
    private func post(_ message: Message, _ state: inout State) {
        if state.mailbox.post(message) { curl_multi_wakeup(multi.pointer) }
    }

    // MARK: The driver thread

    /// Easy handles kept for reuse, driver thread only: `curl_easy_reset` clears a handle's
    /// options but keeps its allocations, cheaper than `curl_easy_cleanup` + `curl_easy_init`.
    /// A handle that holds a plain request's options (``EasyHandle/kept``) keeps them instead:
    /// the next transfer resets it only if it needs other options (`Transfer.start`).
    /// Connections and caches live in the multi handle either way.
    private struct SpareHandles {
        private var handles: [EasyHandle] = []
        private let limit = 256

        mutating func take() -> EasyHandle? { handles.popLast() }

        mutating func give(_ handle: EasyHandle?) {
            guard let handle else { return }
            if handles.count < limit {
                if handle.kept == nil { handle.resetForReuse() }
                handles.append(handle)
            } else {
                handle.close()
            }
        }

        mutating func freeAll() {
            for handle in handles { handle.close() }
            handles = []
        }
    }

    private func run() {
        var spares = SpareHandles()
        var active = [ObjectIdentifier: Transfer]()
        var batch = [Message]()
        // Whether `batch` holds messages taken at the end of the last pass.
        var taken = false
        while true {
            var stopped = false
            // One batched turn per pass: the callbacks of every request that a pass settles
            // reach each serial context in one job, not one job (and wake-up) per request.
            AdapterSupport.runBatchedTurn(contextID) {
                stopped = pass(&active, &spares, &batch, taken: taken)
            }
            if stopped { return }
            // With nothing posted, the mailbox counts the driver as waiting: a message posted
            // from here on wakes the poll (or makes it return at once if it has not begun).
            taken = state.withLock { $0.mailbox.takeAll(into: &batch) }
            if !taken {
                _ = curl_multi_poll(multi.pointer, nil, 0, 1000, nil)
            }
        }
    }

    /// One pass of the driver: takes the mailbox (unless `taken`), removes cancelled transfers,
    /// adds new ones, runs `curl_multi_perform` and completes finished transfers. Returns
    /// whether the driver stopped for good (a shutdown).
    private func pass(
        _ active: inout [ObjectIdentifier: Transfer], _ spares: inout SpareHandles, _ batch: inout [Message], taken: Bool
    ) -> Bool {
        let stopping: Bool = state.withLock { state in
            if !taken { _ = state.mailbox.takeAll(into: &batch) }
            return !state.lifecycle.isAccepting
        }
        // Cancels go first, so a request cancelled in the same batch never starts.
        for case .cancel(let transfer) in batch {
            switch transfer.machine.cancelRequested() {
            case .abort:
                active.removeValue(forKey: ObjectIdentifier(transfer))
                if let easy = transfer.easy { curl_multi_remove_handle(multi.pointer, easy) }
                spares.give(transfer.detachHandle())
                settle(transfer, .failure(CancellationError()))
            case .settleUnstarted:
                settle(transfer, .failure(CancellationError()))
            case .none:
                break
            }
        }
        for case .start(let transfer) in batch {
            guard transfer.machine.startRequested() == .start else { continue }
            if stopping {
                settle(transfer, .failure(transfer.error(.shutdown, "the client was shut down before the request started")))
            } else if let failure = transfer.start(multi: multi.pointer, configuration: configuration, spare: spares.take()) {
                settle(transfer, .failure(failure))
            } else {
                active[ObjectIdentifier(transfer)] = transfer
            }
        }
        progressOutbox.insideLibcurl = true
        for case .resume(let transfer) in batch where active[ObjectIdentifier(transfer)] != nil {
            // libcurl delivers the chunk it was refused from inside this call.
            if let easy = transfer.easy { _ = ccurl_easy_unpause(easy) }
        }
        progressOutbox.insideLibcurl = false
        batch.removeAll(keepingCapacity: batch.capacity <= 4096)
        if stopping {
            spares.freeAll()
            stop(active)
            return true
        }
        var running: Int32 = 0
        progressOutbox.insideLibcurl = true
        _ = curl_multi_perform(multi.pointer, &running)
        progressOutbox.insideLibcurl = false
        progressOutbox.deliver()
        completeFinished(&active, &spares)
        return false
    }

    private func completeFinished(_ active: inout [ObjectIdentifier: Transfer], _ spares: inout SpareHandles) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi.pointer, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var raw: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_private(easy, &raw)
            guard let raw else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue()
            curl_multi_remove_handle(multi.pointer, easy)
            let result: Result<CurlResponse, CurlError>
            switch transfer.afterResponse(code, multi: multi.pointer, configuration: configuration) {
            case .followed: continue  // the same handle, added again for the redirect target
            case .failed(let failure): result = .failure(failure)
            case .finish:
                transfer.reportFinalProgress()
                // The last report goes out before the promise settles.
                progressOutbox.deliver()
                result = transfer.finish(code)
            }
            active.removeValue(forKey: ObjectIdentifier(transfer))
            #if Tracing || Metrics
                if transfer.telemetry != nil { transfer.measures = TransferMeasures(easy: easy) }
            #endif
            spares.give(transfer.detachHandle())
            settle(transfer, result.mapError { $0 as any Error })
        }
    }

    /// Resolves a transfer's promise (ignored if `cancel()` already rejected it) and counts
    /// it as no longer pending: the one way every path delivers an outcome, once per transfer
    /// (``TransferStateMachine/settle()`` checks). Runs inside the pass's turn.
    private func settle(_ transfer: Transfer, _ result: Result<CurlResponse, any Error>) {
        transfer.machine.settle()
        activeCount.subtract(1, ordering: .relaxed)
        let attached = result.mapError { error -> any Error in
            guard let failure = error as? CurlError else { return error }
            return failure.attaching(method: transfer.methodName, url: transfer.request.url)
        }
        #if Tracing || Metrics
            if let operation = transfer.telemetry {
                RequestTelemetry.end(operation, method: transfer.methodName, attached, measures: transfer.measures)
            }
        #endif
        transfer.stream?.transferEnded(attached)
        transfer.upload?.transferEnded()
        // Delivered at once, from code specialized for the response type: queued for the
        // turn's drain loop, the callbacks would be delivered by its unspecialized path.
        transfer.promise.resolveFromLibrary(attached)
    }

    private func stop(_ active: [ObjectIdentifier: Transfer]) {
        for transfer in active.values {
            if let easy = transfer.easy { curl_multi_remove_handle(multi.pointer, easy) }
            transfer.cleanUp()
            settle(transfer, .failure(transfer.error(.shutdown, "the client was shut down while the request was in flight")))
        }
        var late = [Message]()
        let waiters = state.withLock { state in
            _ = state.mailbox.takeAll(into: &late)
            return state.lifecycle.finish(.success(()))
        }
        for case .start(let transfer) in late where transfer.machine.startRequested() == .start {
            settle(transfer, .failure(transfer.error(.shutdown, "the client was shut down before the request started")))
        }
        curl_multi_cleanup(multi.pointer)
        // After every easy handle is gone: the spares are freed and each transfer cleaned up.
        cookies?.close()
        ContextRegistry.unregister(contextID)
        for waiter in waiters { waiter.fulfill(()) }
    }
}

extension Driver: BlockingWaitAdvisor {
    var contextName: String { "the CurlClient's thread '\(configuration.threadName)'" }

    /// Blocking is safe except on the driver thread itself, which would stop every transfer;
    /// that case is caught by the turn check before this is asked.
    func adviseBlockingWait() -> BlockingWaitAdvice { .block }
}
