@_spi(ContextContract) import PromiseCore
internal import CUV
internal import Dispatch
internal import Glibc
internal import PromiseSystem
internal import Synchronization

/// The owner of one `uv_loop_t` and its handles: a wake-up `uv_async_t` (unreferenced), one
/// `uv_timer_t` for every timer, a `uv_prepare_t` (unreferenced) that runs the loop thread's
/// own queue before every poll, the ``Mailbox`` other threads post to, that queue, the
/// ``Lifecycle`` that settles shutdown callers, and, once ``UVLoop/run()`` has driven it on the
/// process's main thread, a `uv_poll_t` (unreferenced) that runs the main queue
/// (``MainQueueDrain``).
///
/// Work queued on the loop thread itself (a promise settled inside any libuv callback: a
/// pipe read, a file event, a signal, a child's exit, a close) runs before the loop next
/// waits for I/O, because the prepare handle drains the queue there: no callback has to
/// remember to drain it, and none can leave work parked until an unrelated wake-up.
///
/// `@unchecked Sendable`: the fields marked "loop thread" are read and written only by the
/// thread running the loop (inside ``drive()``), which `owner` records, or, once that thread
/// has finished after the close, by the one job at a time that `closedJobs` runs (handed over
/// under the `remote` lock, so it sees everything the loop thread wrote); everything other
/// threads touch is in `remote` (a lock) or atomic. libuv is called only from the loop thread,
/// except `uv_async_send`, which is thread-safe and is called under the `remote` lock, so it
/// never runs once the async handle is closed. It is the one object every thread reaches to
/// submit work, so it cannot sit behind a ``LoopOwned``; the loop thread's part is checked
/// where it matters (``submitOnLoopThread(_:_:)``, ``LoopOwned/value``).
final class LoopCore: @unchecked Sendable {
    /// What a piece of queued work is, which decides whether a shutting-down loop takes it.
    enum Kind {
        /// User-visible work (promise callbacks, timers, pool work): refused from the moment
        /// `shutdown()` is called.
        case user
        /// A Swift concurrency job, or PromiseUV's own bookkeeping: accepted until the wake-up
        /// handle closes, so tasks and cancellations in flight can finish.
        case late
    }

    /// Who runs the loop and whether it still takes other threads' work, with a semaphore
    /// for each thread standing by for a blocking wait's claim.
    typealias Driver = LoopDriverStateMachine<DispatchSemaphore, @Sendable () -> Void>

    /// What other threads touch, under the `remote` lock.
    struct Remote {
        /// Work from other threads. The loop goes back to `uv_run` after each take without
        /// looking again, so every take leaves it asleep: the next post sends a wake-up.
        var mailbox = Mailbox<@Sendable () -> Void>(ownerAsleep: true)
        /// Open until `shutdown()`, then draining (user work refused), then closed with the
        /// result of `uv_loop_close`.
        var lifecycle = Lifecycle<Promise<Void>, UVError>(
            refusal: UVError(.loopClosed, operation: "submit", detail: "the UVLoop was shut down"))
        /// Which thread runs the loop, and whether other threads' work still reaches it.
        var driver = Driver()
        /// Set when the shutdown began because the `UVLoop` was deallocated without
        /// `shutdown()`: who closes the loop, for the report (``reportDrop(_:_:)``).
        var droppedAs: String?
        /// `uv_async_send` calls made, and wake-ups that found one pending (for tests).
        var sends = 0
        var drains = 0
    }

    let loop: UnsafeMutablePointer<uv_loop_t>
    private let asyncHandle: UnsafeMutablePointer<uv_async_t>
    let timerHandle: UnsafeMutablePointer<uv_timer_t>
    private let prepareHandle: UnsafeMutablePointer<uv_prepare_t>
    let remote = Lock(Remote())
    /// `pthread_self()` of the thread inside ``drive()``, or 0.
    let owner = Atomic<UInt>(0)
    /// Keep-alive holds: while above zero, the wake-up handle is referenced and the loop runs.
    let holds = Atomic<Int>(0)
    /// Where Swift concurrency jobs that arrive after the loop closed run, one at a time.
    private let closedJobs = DispatchQueue(label: "swift-promise.uvloop.closed")

    // Loop thread only.
    private var local: [() -> Void] = []
    private var localHead = 0
    private var drainingLocal = false
    private var spare: [@Sendable () -> Void] = []
    /// The loop's lifecycle on its own thread: open, shutting down with what it rejected,
    /// closing its handles, closed (``LoopStateMachine``).
    var machine = LoopStateMachine()
    let timers = TimerQueue()
    /// Where `timerHandle` stands (``TimerHandleStateMachine``).
    var timerHandleState = TimerHandleStateMachine()
    var inFlight: [ObjectIdentifier: WorkRequest] = [:]
    /// Live file watches, each with a `uv_fs_event_t` (LoopCore+FileWatches.swift).
    var fileWatches: [ObjectIdentifier: FileWatch] = [:]
    /// Child processes spawned or about to be, until their promise settles.
    var children: [ObjectIdentifier: ChildProcess] = [:]
    /// The SIGCHLD watch of the children reaped through it (``ChildReaping/childSignal``),
    /// while there are any.
    var childSignalWatch: ChildSignalWatch?
    /// The main queue's work, run on this loop while ``UVLoop/run()`` drives it on the main thread.
    let mainQueue = MainQueueDrain()

    /// How many local work items run in a row before pending I/O gets a turn.
    private static let localBatchLimit = 65_536

    /// The identity promise callbacks on this loop share (``UVLoop/executionContextID``).
    var contextID: ObjectIdentifier { ObjectIdentifier(self) }

    private init(
        loop: UnsafeMutablePointer<uv_loop_t>, async: UnsafeMutablePointer<uv_async_t>, timer: UnsafeMutablePointer<uv_timer_t>,
        prepare: UnsafeMutablePointer<uv_prepare_t>
    ) {
        self.loop = loop
        self.asyncHandle = async
        self.timerHandle = timer
        self.prepareHandle = prepare
    }

    /// Creates and initializes a loop with its two handles.
    static func make() throws(UVError) -> LoopCore {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let status = uv_loop_init(loop)
        guard status == 0 else {
            loop.deallocate()
            try uvCheck(status, "uv_loop_init", detail: "creating a UVLoop")
            fatalError("unreachable")
        }
        let async = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
        let asyncStatus = uv_async_init(loop, async, Trampolines.wake)
        guard asyncStatus == 0 else {
            async.deallocate()
            _ = uv_loop_close(loop)
            loop.deallocate()
            try uvCheck(asyncStatus, "uv_async_init", detail: "creating a UVLoop's wake-up handle")
            fatalError("unreachable")
        }
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        uv_timer_init(loop, timer)  // cannot fail
        let prepare = UnsafeMutablePointer<uv_prepare_t>.allocate(capacity: 1)
        uv_prepare_init(loop, prepare)  // cannot fail
        let core = LoopCore(loop: loop, async: async, timer: timer, prepare: prepare)
        // Each handle keeps the core alive until its close callback.
        async.pointee.data = Unmanaged.passRetained(core).toOpaque()
        timer.pointee.data = Unmanaged.passRetained(core).toOpaque()
        prepare.pointee.data = Unmanaged.passRetained(core).toOpaque()
        // Internal handles: only keep-alive holds make the wake-up keep the loop running, and
        // the prepare handle never does (it runs in every iteration the loop makes anyway).
        uv_unref(cuv_async_as_handle(async))
        uv_prepare_start(prepare, Trampolines.prepare)  // cannot fail on an initialized handle
        uv_unref(cuv_prepare_as_handle(prepare))
        ContextRegistry.register(core, for: core.contextID)
        // A callback bound to a `UVLoop` stores its `LoopContext` (LoopCore+ExecutionContext.swift).
        registerClassContextType(ObjectIdentifier(UVLoop.self), serial: true) { unsafeDowncast($0, to: UVLoop.self).context }
        registerClassContextType(LoopContext.self, serial: true)
        return core
    }

    deinit {
        // Reached only after every close callback of its own handles ran (a shutdown, asked for or begun by the
        // UVLoop's deinit). Never calls into libuv: the loop was closed (only its memory is
        // left), or uv_loop_close failed, which was reported, and the loop is leaked rather
        // than touched from an arbitrary thread.
        if machine.freesLoopMemory { loop.deallocate() }
    }

    // MARK: Threads

    var isOnLoopThread: Bool {
        owner.load(ordering: .relaxed) == pthread_self()
    }

    /// Whether the shutdown has reached the loop thread, which refuses user work from then on
    /// (loop thread).
    var isShuttingDown: Bool { !machine.acceptsUserWork }

    /// Handles whose close callback has not run (loop thread).
    var openHandles: Int { machine.openHandles }

    // MARK: Submitting work

    /// Queues `work` to run on the loop thread; when called there, after the current callback
    /// and before the loop next waits for I/O (the prepare handle drains the local queue).
    /// Returns false when the loop refuses it (shut down).
    func submit(_ kind: Kind, _ work: @escaping @Sendable () -> Void) -> Bool {
        if isOnLoopThread { return appendLocal(kind, work) }
        return remote.withLock { state in
            guard state.driver.inboxIsOpen, kind == .late || state.lifecycle.isAccepting else { return false }
            if state.mailbox.post(work) { send(&state) }
            return true
        }
    }

    /// ``submit(_:_:)`` from the loop thread (checked), for work that uses loop-confined
    /// objects: it never leaves the loop thread, so it need not be `Sendable`.
    func submitOnLoopThread(_ kind: Kind, _ work: @escaping () -> Void) -> Bool {
        precondition(isOnLoopThread, "submitOnLoopThread called off the loop thread")
        return appendLocal(kind, work)
    }

    /// Queues `work` on the local queue, which the loop thread alone reads and writes.
    private func appendLocal(_ kind: Kind, _ work: @escaping () -> Void) -> Bool {
        if kind == .user ? !machine.acceptsUserWork : !machine.acceptsLateWork { return false }
        local.append(work)
        return true
    }

    /// Whether the loop accepts user work (no shutdown asked for yet); any thread.
    var isAccepting: Bool { remote.withLock { $0.lifecycle.isAccepting } }

    /// How many wake-ups were sent and how many were consumed, for tests of coalescing.
    var wakeStatistics: (sends: Int, drains: Int) {
        remote.withLock { ($0.sends, $0.drains) }
    }

    /// Wakes the loop so it re-reads the keep-alive count.
    func wake() {
        remote.withLock { state in
            guard state.driver.inboxIsOpen, state.mailbox.requestWake() else { return }
            send(&state)
        }
    }

    /// `uv_async_send`, under the `remote` lock and only while the wake-up handle is open.
    private func send(_ state: inout Remote) {
        state.sends += 1
        uv_async_send(asyncHandle)
    }

    // MARK: Keep-alive

    /// Keeps the loop running until ``release()`` is called.
    func retain() {
        holds.add(1, ordering: .relaxed)
        if isOnLoopThread { updateReference() } else { wake() }
    }

    /// Keeps the loop running for a promise callback that waits for it. Unlike ``retain()``
    /// this sends no wake-up from another thread: a running loop re-reads the count whenever
    /// `uv_run` returns, and it returns only once nothing else keeps it busy.
    func retainForCallback() {
        holds.add(1, ordering: .relaxed)
        if isOnLoopThread { updateReference() }
    }

    /// Ends one ``retain()`` or ``retainForCallback()``.
    func release() {
        holds.subtract(1, ordering: .releasing)
        if isOnLoopThread { updateReference() } else { wake() }
    }

    /// References the wake-up handle while holds exist (loop thread).
    private func updateReference() {
        guard machine.wakeUpHandleIsOpen else { return }
        let handle = cuv_async_as_handle(asyncHandle)
        let wanted = machine.wakeUpKeepsLoopAlive(holds: holds.load(ordering: .acquiring))
        guard wanted != (uv_has_ref(handle) != 0) else { return }
        if wanted {
            uv_ref(handle)
        } else {
            uv_unref(handle)
        }
    }

    // MARK: Running

    /// Runs the loop on the calling thread (claimed with ``claimForRun()``) until no work
    /// keeps it alive, or until shutdown has closed it.
    ///
    /// - Parameter runningMainQueue: The drive is ``UVLoop/run()``'s: on the process's main
    ///   thread, the main queue's work runs on the loop while it lasts (``MainQueueDrain``).
    func drive(runningMainQueue: Bool = false) {
        owner.store(pthread_self(), ordering: .relaxed)
        uv_update_time(loop)
        if runningMainQueue { mainQueue.runStarted(self) }
        while true {
            onWake()
            uv_run(loop, UV_RUN_DEFAULT)
            drainLocal()
            if machine.turnEnded() == .closeLoop {
                finishShutdown()
                return
            }
            if mainQueue.runIfSignalled() { continue }
            let done: Bool = remote.withLock { state in
                guard state.mailbox.count == 0, localHead == local.count, !timerHandleState.awaitsRearm,
                    holds.load(ordering: .acquiring) == 0, uv_loop_alive(loop) == 0
                else { return false }
                // In the same lock section as the driver's `runEnded()`: a thread that claims the loop next
                // sets its own owner, which must never be cleared by this one leaving late,
                // and may run the loop elsewhere, where the main queue must not be polled.
                mainQueue.runEnded()
                owner.store(0, ordering: .relaxed)
                state.driver.runEnded()
                return true
            }
            if done { return }
        }
    }

    /// Runs what other threads queued, then the loop thread's own queue.
    func onWake() {
        var batch: [@Sendable () -> Void] = []
        swap(&batch, &spare)  // take the spare's storage, so it is reused rather than copied
        remote.withLock { state in
            if state.mailbox.takeAllBeforeWaiting(into: &batch) { state.drains += 1 }
        }
        for item in batch {
            item()
        }
        batch.removeAll(keepingCapacity: batch.capacity <= 4096)
        spare = batch
        drainLocal()
        updateReference()
        if timerHandleState.polled() { armTimer() }
    }

    /// Runs the loop thread's queue until it is empty (or long enough that I/O deserves a turn).
    func drainLocal() {
        guard !drainingLocal, localHead < local.count else { return }
        drainingLocal = true
        defer { drainingLocal = false }
        var ran = 0
        while localHead < local.count {
            let item = local[localHead]
            localHead += 1
            item()
            ran += 1
            // Once the handles are closed there is no I/O to make room for: run it all.
            if ran >= Self.localBatchLimit, localHead < local.count, machine.wakeUpHandleIsOpen {
                local.removeFirst(localHead)
                localHead = 0
                wake()
                return
            }
        }
        local.removeAll(keepingCapacity: local.capacity <= 4096)
        localHead = 0
    }

    // MARK: Shutdown

    /// Starts shutting down (any thread). Returns the promise and whether the caller must run
    /// the loop itself to finish it (nobody else is running it).
    ///
    /// - Parameter dropped: The `UVLoop` is being deallocated without `shutdown()`: if this
    ///   begins the shutdown, its end reports what it rejected (``reportDrop(_:_:)``).
    func requestShutdown(dropped: Bool = false) -> (Promise<Void>, drive: Bool) {
        // One promise per call, so a caller that cancels its own (a timeout) cannot cancel
        // anyone else's; all settle with the same result.
        let waiter = Promise<Void>.pending(resolvedOn: contextID)
        let (step, drive): (Lifecycle<Promise<Void>, UVError>.ShutdownStep, Bool) = remote.withLock { state in
            let step = state.lifecycle.shutdown(waiter)
            guard case .begin = step else { return (step, false) }
            let woken = state.mailbox.post { [self] in beginShutdown() }
            switch state.driver.shutdownBegan() {
            case .runningThread(let name):
                if dropped {
                    state.droppedAs = name.map { "thread '\($0)'" } ?? "\(identity), closed by the thread running it"
                }
                if woken { send(&state) }
                return (step, false)
            case .caller:
                if dropped { state.droppedAs = "\(identity), which no thread ran, closed on the thread that deallocated it" }
                return (step, true)
            }
        }
        if case .settled(let result) = step { waiter.resolve(result.mapError { $0 as any Error }) }
        return (waiter, drive)
    }

    /// Loop thread: refuse user work, fail the timers, cancel pool work that has not started,
    /// and close the handles once no pool work is in flight.
    private func beginShutdown() {
        guard case .rejectPending(let releaseThreadHold) = machine.shutdownBegan() else { return }
        if releaseThreadHold { holds.subtract(1, ordering: .relaxed) }
        var lost = LoopStateMachine.Lost()
        // Pool work first: nothing below runs user code before every queued job is cancelled.
        for request in inFlight.values {
            let cancelledByCaller = request.cancelled.load(ordering: .acquiring)
            if request.cancelIfQueued(), !cancelledByCaller { lost.work += 1 }
        }
        for entry in timers.removeAll() where !entry.isCancelled {
            lost.timers += 1
            entry.abandon()
        }
        lost.signals = abandonSignals()
        lost.fileWatches = endFileWatches()
        lost.processes = abandonProcesses()
        armTimer()
        updateReference()
        if machine.rejected(lost, poolWorkInFlight: !inFlight.isEmpty) == .closeHandles { closeHandles() }
    }

    /// Loop thread, when ``LoopStateMachine`` says `closeHandles`: take the last queued work,
    /// then close the loop's own handles. No other thread can send a wake-up from here on.
    func closeHandles() {
        drainLocal()
        var leftovers: [@Sendable () -> Void] = []
        remote.withLock { state in
            state.driver.inboxClosed()
            state.mailbox.takeAllBeforeWaiting(into: &leftovers)
        }
        for item in leftovers {
            item()
        }
        drainLocal()
        uv_close(cuv_async_as_handle(asyncHandle), Trampolines.closed)
        uv_close(cuv_timer_as_handle(timerHandle), Trampolines.closed)
        uv_close(cuv_prepare_as_handle(prepareHandle), Trampolines.closed)
        mainQueue.shutdown()
    }

    /// A handle's close callback ran (loop thread).
    func handleClosed() {
        machine.handleClosed()
    }

    /// A handle was initialized on the loop (loop thread): the loop closes only after its
    /// close callback.
    func handleOpened() {
        machine.handleOpened()
    }

    /// Loop thread, after `uv_run` returned with its handles closed: close the loop.
    func finishShutdown() {
        ContextRegistry.unregister(contextID)
        let status = uv_loop_close(loop)
        machine.loopClosed(succeeded: status == 0)
        let result: Result<Void, UVError> =
            status == 0
            ? .success(())
            : .failure(
                UVError(
                    UVError.Code(uvCode: status), operation: "uv_loop_close",
                    detail: "a libuv handle or request of this loop is still open after shutdown; the loop is leaked"))
        let (waiters, droppedAs) = remote.withLock { ($0.lifecycle.finish(result), $0.droppedAs) }
        if let droppedAs { reportDrop(droppedAs, result) }
        for waiter in waiters { waiter.resolve(result.mapError { $0 as any Error }) }
        // Settling the promise may have resumed a task or actor on this loop that awaited
        // it (its job was queued here, on the loop thread): run it, and whatever it queues in
        // turn, as the loop's last turn, instead of leaving it parked (lost, and a cycle
        // through `local`). User work is refused by now, so only such jobs can be queued.
        while localHead < local.count {
            drainLocal()
        }
        local = []
        spare = []
        machine.lastTurnEnded()
        let (adopted, standbys) = remote.withLock { state in
            owner.store(0, ordering: .relaxed)
            return state.driver.finished()
        }
        for job in adopted {
            closedJobs.async { [self] in runAsOwner(job) }
        }
        // Threads standing by for a blocking wait find the loop closed and wait for their
        // promises, which the shutdown settled.
        for standby in standbys { standby.signal() }
    }

    /// Takes a Swift concurrency job that the closed loop refused, so its task still
    /// resumes: it runs on a serial queue once the loop thread has finished, one job at a
    /// time, counting as the loop thread while it runs (isolation checks hold; loop work it
    /// starts is refused). Returns false if the loop is not closed (the job was refused for
    /// another reason).
    func adoptAfterClose(_ job: @escaping @Sendable () -> Void) -> Bool {
        let action = remote.withLock { $0.driver.adopt(job) }
        switch action {
        case .notClosed:
            return false
        case .held:
            return true
        case .runNow:
            closedJobs.async { [self] in runAsOwner(job) }
            return true
        }
    }

    /// Runs `job` on the closed loop's serial queue as the loop's only thread.
    private func runAsOwner(_ job: () -> Void) {
        owner.store(pthread_self(), ordering: .relaxed)
        job()
        owner.store(0, ordering: .relaxed)
    }
}
