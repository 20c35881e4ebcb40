import Dispatch
import PromiseCore

/// The error the flaky inventory service fails with.
struct Busy: Error, CustomStringConvertible {
    var description: String { "Busy (try again later)" }
}

/// A stand-in for a remote service: answers after a fixed time, on its own queue, the way a
/// network client or a database would.
///
/// It shows the producer's side of a promise: create a pending promise, resolve it when the
/// work is done, and register an `onCancel` handler that stops the work when nobody wants the
/// answer any more.
struct SimulatedService: Sendable {
    /// The queue the "remote" answers arrive on; not the queue callbacks run on.
    private static let network = DispatchQueue(label: "promise-demo.network")

    let name: String
    let narrator: Narrator

    /// Starts a request that resolves with `answer()` after `latency`.
    func request<Value: Sendable>(
        _ what: String,
        latency: Duration,
        _ answer: @escaping @Sendable () -> Result<Value, any Error>
    ) -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending()
        narrator.say(name, "\(what)… (answers in \(latency.milliseconds) ms)")
        let timer = Self.network.executeAfter(latency) {
            let result = answer()
            switch result {
            case .success(let value): narrator.say(name, "answered \(value)")
            case .failure(let error): narrator.say(name, "failed: \(error)")
            }
            resolver.resolve(result)
        }
        promise.onCancel {
            timer.cancel()
            narrator.say(name, "onCancel: nobody wants the answer any more, so the request is stopped")
        }
        return promise
    }
}

extension Duration {
    /// Whole milliseconds, for printing.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
