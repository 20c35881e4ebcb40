import Dispatch
import PromiseCore

/// An error to reject with.
struct SampleError: Error, Equatable {
    var tag = 0
}

/// Collects events from any thread, in the order they happen.
final class Recorder<Event: Sendable>: Sendable {
    private let storage = Lock<[Event]>([])
    func append(_ event: Event) { storage.withLock { $0.append(event) } }
    var events: [Event] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// A counter shared across threads.
final class Counter: Sendable {
    private let storage = Lock(0)
    @discardableResult func increment() -> Int {
        storage.withLock {
            $0 += 1; return $0
        }
    }
    @discardableResult func decrement() -> Int {
        storage.withLock {
            $0 -= 1; return $0
        }
    }
    var value: Int { storage.withLock { $0 } }
}

/// A serial queue that can tell whether the current code runs on it.
final class TaggedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()
    init(_ label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: 1)
    }
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// Waits for `promise` and returns its outcome, failing loudly after 5 seconds.
func outcome<Value: Sendable>(of promise: Promise<Value>) -> Result<Value, any Error> {
    Result { try awaitPromise(promise, timeout: .seconds(5)) }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Records every diagnostic, so tests can look for the ones about their own value types.
enum DiagnosticsProbe {
    static let reports = Recorder<PromiseDiagnostic>()
    static let install: Void = {
        let previous = Promises.diagnosticsHandler
        Promises.diagnosticsHandler = { report in
            reports.append(report)
            previous(report)
        }
    }()

    static func reports(about valueType: Any.Type) -> [PromiseDiagnostic] {
        reports.events.filter { $0.valueType == "\(valueType)" }
    }
}
