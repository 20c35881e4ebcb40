/// One implementation of one scenario, named `<scenario>/<implementation>`
/// (`resolved-then-inline/promise`, `…/nio`, `…/gcd`).
struct Variant {
    /// The full name the command line takes.
    let name: String

    /// Operations one iteration performs: counts are divided by this to give a figure per
    /// operation (10 000 for the scenarios that settle 10 000 promises per iteration).
    let operationsPerIteration: Int

    /// Whether callbacks run on other threads. Counts of such a variant depend on how the
    /// threads interleave (whether a worker parks between two hops, whether a callback is added
    /// before or after its promise resolves), so they vary a little from run to run.
    let isThreaded: Bool

    /// Sets up what the iterations share (event loops, queues, storage) and returns the
    /// body that runs one iteration. It runs on the main thread, before the warm-up iteration.
    let prepare: () -> () -> Void

    /// Creates a variant.
    ///
    /// - Parameters:
    ///   - name: `<scenario>/<implementation>`.
    ///   - operationsPerIteration: Operations one call of the body performs.
    ///   - isThreaded: Whether callbacks run on other threads.
    ///   - prepare: Makes the shared fixtures and returns the body of one iteration.
    init(
        _ name: String,
        operationsPerIteration: Int = 1,
        isThreaded: Bool = false,
        prepare: @escaping () -> () -> Void
    ) {
        self.name = name
        self.operationsPerIteration = operationsPerIteration
        self.isThreaded = isThreaded
        self.prepare = prepare
    }
}
