import Foundation
import PromiseCore
import PromiseUV
import Synchronization
import Testing

/// State touched only on one loop's thread, so it needs no lock.
///
/// `@unchecked Sendable`: every test that uses it reads and writes it from loop callbacks
/// only, and reads it from the test after awaiting a promise the loop resolved last.
final class LoopConfined<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A loop running on a thread of its own, as a server would have it.
func startedLoop(_ name: String = "uv-test") throws -> UVLoop {
    let loop = try UVLoop()
    try loop.startThread(named: name)
    return loop
}

/// Runs `body` on a new thread (never on Swift's cooperative pool) and returns a promise
/// fulfilled with its result when it returns.
func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Promise<T> {
    let (done, doneResolver) = Promise<T>.pending()
    Thread.detachNewThread { doneResolver.fulfill(body()) }
    return done
}

/// Monotonic milliseconds.
func nowMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A value type used by one test only, so its diagnostics can be told apart.
struct KeepAliveMarker: Sendable {}

/// Records every promise diagnostic (and still passes it on), so tests can look for the ones
/// about their own value types.
enum DiagnosticsRecorder {
    private static let reports = Lock<[PromiseDiagnostic]>([])
    static let install: Void = {
        let previous = Promises.diagnosticsHandler
        Promises.diagnosticsHandler = { report in
            reports.withLock { $0.append(report) }
            previous(report)
        }
    }()

    static func kinds(about valueType: Any.Type) -> [PromiseDiagnostic.Kind] {
        reports.withLock { all in all.filter { $0.valueType == "\(valueType)" }.map(\.kind) }
    }
}

/// The lines a child writes to one of its outputs, collected as they arrive on the loop.
final class CollectedLines: Sendable {
    private let lines = Lock<[String]>([])

    /// The lines so far.
    var all: [String] { lines.withLock { $0 } }

    /// An output that appends each line here.
    func output(on loop: UVLoop) -> UVCommand.Output {
        .lines(on: loop) { [self] line in lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) } }
    }
}

/// The end of a shell script that idles until a signal ends it: `wait` on a background
/// `sleep` returns as soon as a trapped signal arrives, so its trap runs at once, however
/// busy the machine (a loop of short sleeps runs a trap only after the current one).
let idleShellLoop = "while :; do sleep 1 & wait $!; done"
