// A user's file that chains many of PromiseCore's operators: what Benchmarks/rebuild-cost.sh
// compiles to measure the CPU a rebuild of such a file costs. It uses only API that exists
// unchanged across the versions it compares.
import Dispatch
import PromiseCore

struct Failure: Error {}

func fetch(_ id: Int) -> Promise<Int> { Promise(id) }
func name(of id: Int) -> Promise<String> { Promise("user \(id)") }

func profile(_ id: Int, on queue: DispatchQueue) -> Promise<String> {
    fetch(id)
        .then(on: queue) { $0 + 1 }
        .then { name(of: $0) }
        .then { text in text.uppercased() }
        .validate { !$0.isEmpty }
        .timeout(.seconds(2))
        .recover { _ in "unknown" }
        .always { print("profile done") }
}

func totals(_ ids: [Int]) -> Promise<Int> {
    all(ids.map { fetch($0).then { $0 * 2 } })
        .then { values in values.reduce(0, +) }
        .catch { error in print("failed: \(error)") }
}

func fastest(_ ids: [Int]) -> Promise<Int> {
    race(ids.map { fetch($0).delay(.milliseconds($0)) })
}

func settled(_ ids: [Int]) -> Promise<[Result<Int, any Error>]> {
    any(ids.map { id in id.isMultiple(of: 2) ? fetch(id) : Promise<Int>(Failure()) })
}

func retried(_ id: Int) -> Promise<Int> {
    retry(attempts: 3, delay: .milliseconds(10)) { fetch(id).then { $0 + 1 } }
}

func pair(_ id: Int) -> Promise<(Int, String)> {
    all(fetch(id), name(of: id))
}

func chained(_ id: Int) -> Promise<String> {
    let counted = fetch(id)
        .then { (value: Int) -> Int in value + 1 }
        .then { (value: Int) -> Int in value * 3 }
        .then { (value: Int) -> Promise<Int> in fetch(value) }
    return counted
        .then { (value: Int) -> Promise<String> in name(of: value) }
        .recover { (_: any Error) -> Promise<String> in Promise("fallback") }
        .then { (text: String) -> String in text + "!" }
}

func waited(_ id: Int) throws -> String {
    try awaitPromise(chained(id).timeout(.seconds(1)))
}

func asyncValue(_ id: Int) async throws -> Int {
    try await fetch(id).then { $0 + 1 }.get()
}

func wrapped(_ id: Int) -> Promise<Int> {
    Promise<Int> { fulfill, _ in
        DispatchQueue.global().async { fulfill(id) }
    }
    .then { $0 + 1 }
}
