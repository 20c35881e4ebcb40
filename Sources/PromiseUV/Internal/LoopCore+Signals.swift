// LoopCore's signal watches (``UVLoop/nextSignal(_:)``), split from LoopCore.swift by concern.
// Everything here runs on the loop thread unless its comment says otherwise.
extension LoopCore {
    /// Starts watching, unless the watch was cancelled meanwhile or the loop is shutting down.
    func startSignal(_ watcher: SignalWatcher) {
        guard !watcher.cancelled.load(ordering: .acquiring) else { return }
        guard !shuttingDown else {
            watcher.abandon()
            return
        }
        openHandles += 1
        do {
            try watcher.start(on: loop)
        } catch {
            watcher.fail(error)
            return
        }
        signals[watcher.id] = watcher
    }

    /// The signal arrived: close the one-shot handle and fulfil the promise.
    func signalArrived(_ watcher: SignalWatcher) {
        guard signals.removeValue(forKey: watcher.id) != nil else { return }
        watcher.close()
        watcher.fire()
        drainLocal()
    }

    /// Stops a watch from any thread after its promise was cancelled.
    func cancelSignal(_ watcher: SignalWatcher) {
        guard !watcher.cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if isOnLoopThread {
            stopSignal(watcher)
        } else {
            _ = submit(.late) { [self] in stopSignal(watcher) }
        }
    }

    private func stopSignal(_ watcher: SignalWatcher) {
        watcher.forget()
        if signals.removeValue(forKey: watcher.id) != nil { watcher.close() }
    }

    /// Shutdown: close every watch and reject its promise.
    func abandonSignals() {
        let watching = signals.values
        signals = [:]
        for watcher in watching {
            watcher.close()
            watcher.abandon()
        }
    }
}
