import Glibc
import Synchronization

/// Where the mirror's output goes: event lines, and on a terminal one status line kept at
/// the bottom and redrawn in place.
///
/// Lines come from the loop thread only, but a test may read them from another: one lock.
public final class Console: Sendable {
    /// Whether a status line is redrawn in place (a terminal) or printed as plain lines.
    public let interactive: Bool
    private let state = Mutex(State())
    private let sink: @Sendable (String) -> Void

    private struct State {
        var status = ""
        var lines: [String] = []
    }

    /// A console that writes to standard output unbuffered, redrawing the status line when
    /// standard output is a terminal (unless `plain`).
    public static func standardOutput(plain: Bool = false) -> Console {
        Console(interactive: !plain && isatty(STDOUT_FILENO) == 1) { text in
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }  // a closed pipe: nothing more can be shown
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// A console that hands its output to `sink` (tests).
    public init(interactive: Bool, sink: @escaping @Sendable (String) -> Void) {
        self.interactive = interactive
        self.sink = sink
    }

    /// Every line printed so far (status redraws excluded).
    public var lines: [String] { state.withLock { $0.lines } }

    /// Prints one line above the status line.
    public func line(_ text: String) {
        state.withLock { state in
            state.lines.append(text)
            if interactive, !state.status.isEmpty {
                sink("\r\u{1B}[K" + text + "\n" + state.status)
            } else {
                sink(text + "\n")
            }
        }
    }

    /// Replaces the status line (a terminal), or prints it as a line (otherwise).
    public func status(_ text: String) {
        state.withLock { state in
            if interactive {
                state.status = text
                sink("\r\u{1B}[K" + text)
            } else {
                state.lines.append(text)
                sink(text + "\n")
            }
        }
    }

    /// Removes the status line, before the summary.
    public func clearStatus() {
        state.withLock { state in
            guard interactive, !state.status.isEmpty else { return }
            state.status = ""
            sink("\r\u{1B}[K")
        }
    }
}

/// Human-readable sizes, rates and durations.
enum Format {
    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return fixed(value, value < 10 ? 1 : 0) + " " + units[unit]
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        let scale = decimals == 0 ? 1.0 : pow(10, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        if decimals == 0 { return String(Int(rounded)) }
        let text = String(rounded)
        let parts = text.split(separator: ".", maxSplits: 1)
        let fraction = parts.count == 2 ? String(parts[1].prefix(decimals)) : ""
        return parts[0] + "." + fraction + String(repeating: "0", count: decimals - fraction.count)
    }

    static func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - text.count))
        return right ? pad + text : text + pad
    }
}
