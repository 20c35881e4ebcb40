import ArgumentParser
import PromiseCore

/// `promise-demo tour`: PromiseCore's main ideas, narrated step by step.
///
/// Callbacks run on the library's default context, its own serial queue, which needs no main
/// run loop. So the main thread simply builds each chain and blocks in `awaitPromise` at the
/// end of each scene, and the program exits when `run()` returns. (To run callbacks on the
/// main queue instead, set `Promises.defaultContext = DispatchQueue.main` and call
/// `dispatchMain()`, exiting from the last callback.)
struct Tour: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "Shows promises at work: a chain, all, retry, timeout, recover and cancellation."
    )

    @Option(help: "How many times the inventory service answers \"busy\" before it succeeds (0-5).")
    var inventoryFailures = 2

    @Option(help: "How long to wait for recommendations, in milliseconds, before using the cache.")
    var timeoutMs = 300

    @Option(help: "Cancel the last scene's chain after this many milliseconds.")
    var cancelAfterMs: Int?

    func validate() throws {
        guard (0...5).contains(inventoryFailures) else {
            throw ValidationError("--inventory-failures must be between 0 and 5, got \(inventoryFailures)")
        }
        guard timeoutMs > 0 else { throw ValidationError("--timeout-ms must be positive, got \(timeoutMs)") }
        if let cancelAfterMs, cancelAfterMs < 0 {
            throw ValidationError("--cancel-after-ms must not be negative, got \(cancelAfterMs)")
        }
    }

    func run() throws {
        print("swift-promise demo: PromiseCore step by step")
        print("Each line: [time since the scene began] who is speaking: what happens.")
        let scenes = Scenes(
            narrator: Narrator(),
            inventoryFailures: inventoryFailures,
            recommendationsTimeout: .milliseconds(timeoutMs),
            cancelDashboardAfter: cancelAfterMs.map { .milliseconds($0) }
        )
        try scenes.chain()
        try scenes.allAtOnce()
        try scenes.retrying()
        try scenes.timeoutAndRecover()
        try scenes.cancellation()
        try scenes.dashboard()
        print("")
        print("Done. Read Examples/Sources/promise-demo/Tour/Scenes.swift for the code behind each scene.")
    }
}
