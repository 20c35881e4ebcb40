import PromiseCore

/// Records the ``PromiseDiagnostic/Kind/notShutDown`` reports of the process (and passes every
/// report on), so a test can look for the one about its own owner by a name only it uses.
package enum NotShutDownRecorder {
    private static let reports = Lock<[String]>([])

    /// Installs the recorder once per process.
    package static let install: Void = {
        let previous = Promises.diagnosticsHandler
        Promises.diagnosticsHandler = { report in
            if report.kind == .notShutDown { reports.withLock { $0.append("\(report.error)") } }
            previous(report)
        }
    }()

    /// How many reports were recorded so far: where a test's own start.
    package static var count: Int { reports.withLock { $0.count } }

    /// The reports whose error mentions `marker`, of those recorded from number `start` on. An
    /// owner named by its address needs `start`: an earlier owner at the same address (freed,
    /// its memory reused) mentions the same marker.
    package static func reports(mentioning marker: String, from start: Int = 0) -> [String] {
        reports.withLock { $0[min(start, $0.count)...].filter { $0.contains(marker) } }
    }
}
