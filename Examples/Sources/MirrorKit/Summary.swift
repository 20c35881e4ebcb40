/// The table printed at the end of a run, built from the rows read back from the index.
public enum Summary {
    /// The lines of the summary of `report`, which took `elapsed`.
    public static func lines(_ report: MirrorReport, outputDirectory: String, elapsed: Duration) -> [String] {
        var lines = ["", "Run \(report.runID), read back from \(report.indexPath):"]
        lines.append("  RESULT  STATUS       SIZE     TIME  TRIES  URL")
        for row in report.rows {
            let result = row.error == nil ? "ok" : "failed"
            let status = row.status.map(String.init) ?? "-"
            let size = row.error == nil ? row.bytes.map { Format.bytes($0) } ?? "-" : "-"
            lines.append(
                "  " + Format.padded(result, 6) + Format.padded(status, 8, right: true)
                    + Format.padded(size, 11, right: true) + Format.padded("\(row.durationMs) ms", 9, right: true)
                    + Format.padded(String(row.attempts), 7, right: true) + "  " + row.url
            )
            if let error = row.error {
                lines.append(String(repeating: " ", count: 45) + "-> " + error)
            } else if let file = row.file {
                lines.append(String(repeating: " ", count: 45) + "-> " + outputDirectory + "/" + file)
            }
        }
        var tally = "\(report.ok) stored (\(Format.bytes(report.bytes))), \(report.failed) failed"
        if report.cancelled > 0 || report.notStarted > 0 {
            tally += ", \(report.cancelled) cancelled in flight, \(report.notStarted) not started"
        }
        lines.append("\(report.ok + report.failed + report.cancelled + report.notStarted) URLs: \(tally), in \(Format.fixed(Format.seconds(elapsed), 1)) s.")
        if let signal = report.interruptedBy {
            lines.append(
                "Interrupted by \(signal): cancelled transfers wrote nothing (bodies are stored by atomic rename), and the index holds exactly the \(report.ok + report.failed) URLs that finished. Run again to complete the mirror."
            )
        }
        return lines
    }
}
