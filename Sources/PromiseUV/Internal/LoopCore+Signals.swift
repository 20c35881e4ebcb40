// LoopCore's signal watches (``UVLoop/nextSignal(_:)``), split from LoopCore.swift by concern.
// The process's signal dispositions belong to PromiseSignals' `SignalOwner`; a loop's watches
// are entries there, grouped under the loop's identity and fulfilled on the loop thread.
internal import PromiseSignals

extension LoopCore {
    /// Starts a watch of `signal` for `promise`, from any thread: the owner installs its
    /// handler before this returns. Rejects `promise` when the owner refuses the signal or the
    /// loop no longer accepts work.
    func watchSignal(_ signal: UVSignal, _ promise: Promise<UVSignal>) {
        let started = SignalOwner.watch(
            [signal.rawValue], promise, group: contextID, delivery: LoopSignalDelivery.self,
            context: LoopSignalDelivery.Context(core: self, signal: signal))
        switch started {
        case .failure(let error):
            promise.reject(UVError(.invalidArgument, operation: "nextSignal", detail: error.message, underlying: error))
        case .success(let id):
            // A shutdown that began before the watch was recorded did not see it: end it here.
            // One that begins after sees it in `abandonSignals()`.
            if !isAccepting { SignalOwner.end(id, rejecting: Self.signalAbandoned(signal)) }
        }
    }

    /// Shutdown: end every watch of this loop and reject its promise.
    ///
    /// - Returns: How many watches were pending.
    func abandonSignals() -> Int {
        SignalOwner.endAll(in: contextID, rejecting: Self.signalAbandoned(nil))
    }

    /// The rejection of a watch that the loop's shutdown ended.
    fileprivate static func signalAbandoned(_ signal: UVSignal?) -> UVError {
        let what = signal.map { "\($0)" } ?? "its signal"
        return UVError(.loopClosed, operation: "nextSignal", detail: "the UVLoop was shut down before \(what) arrived")
    }
}

/// The delivery of a loop's watch: the promise is fulfilled on the loop thread, or rejected
/// when the loop no longer accepts work.
private enum LoopSignalDelivery: SignalDelivery {
    struct Context: Sendable {
        let core: LoopCore
        let signal: UVSignal
    }

    static func deliver(_ number: Int32, to promise: Promise<UVSignal>, context: Context) {
        let core = context.core
        let signal = context.signal
        let fulfilled = core.submit(.late) {
            AdapterSupport.runTurn(core.contextID) { promise.resolveFromLibrary(.success(signal)) }
        }
        if !fulfilled { promise.reject(LoopCore.signalAbandoned(signal)) }
    }
}
