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

    /// The reports whose error mentions `marker`.
    package static func reports(mentioning marker: String) -> [String] {
        reports.withLock { $0.filter { $0.contains(marker) } }
    }
}
