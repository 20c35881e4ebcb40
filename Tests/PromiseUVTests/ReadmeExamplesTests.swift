// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseUV
import Testing

// The README's PromiseUV block, exactly as written there (checked by
// PromiseCoreTests.readmeSnippetsAreAllHere), with assertions on what it produces. It runs the
// loop on the calling thread, so it runs on a thread of its own, not Swift's cooperative pool.

/// The README tour, returning what it computed.
func promiseUVTour() throws -> String {
    let loop = try UVLoop()                                   // owns its own uv_loop_t

    let summary = all([
        loop.work { (1...100_000).reduce(0, +) },             // on libuv's thread pool
        loop.after(.milliseconds(20)).then(on: loop) { 42 },  // one uv timer serves them all
    ])
    .timeout(on: loop, .seconds(30))
    .then(on: loop) { values in "sum \(values[0]), answer \(values[1])" }

    let text = try loop.run(until: summary)                   // this thread runs the loop until done
    try awaitPromise(loop.shutdown())                         // closes every handle, then the loop
    return text
}

@Suite struct ReadmeExamplesTests {
    @Test func promiseUVTour() async throws {
        let text = try await onNewThread { Result { try PromiseUVTests.promiseUVTour() } }.get().get()
        #expect(text == "sum 5000050000, answer 42")
    }
}
