// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import PromiseCore
import PromiseTesting
import Testing

// The ```swift blocks of PromiseTesting's DocC catalog, each between `// DocC: begin` and
// `// DocC: end` exactly as written there (PromiseCoreTests' `DocCCodeBlocksTests` checks
// them); their own `#expect`s are the assertions.

@Suite struct DocCExamplesTests {
    @Test func manualTime() {
        // DocC: begin
        let context = ManualContext()
        let answer = Promise(41)
            .delay(on: context, .seconds(5))
            .then(on: context) { $0 + 1 }

        context.runUntilIdle()              // nothing yet: the five seconds have not passed
        #expect(answer.isPending)
        context.advance(by: .seconds(5))    // fires the timer and runs the work it unblocks
        #expect(answer.value == 42)
        // DocC: end
    }

    /// `waitForPromises` waits for every promise in the process: a process of its own.
    @Test func waitingForEveryPromise() async {
        await #expect(processExitsWith: .success) {
            /// Saves a record after 50 ms on another queue.
            struct Store {
                func save(_ record: String) -> Promise<Void> {
                    Promise<Void> { fulfill, _ in
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { fulfill(()) }
                    }
                }
            }
            let store = Store()
            let record = "order 7"

            // DocC: begin
            startTrackingPromises()                 // once, before the promises are made

            let saved = store.save(record)
            #expect(waitForPromises(timeout: .seconds(5)))
            #expect(saved.isFulfilled)
            // DocC: end

            precondition(saved.isFulfilled)   // an exit test reports the #expect above only through its status
        }
    }
}
