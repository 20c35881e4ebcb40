// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
#if NIO
    import NIOCore
    import NIOPosix
    import PromiseNIO
    import Testing

    /// The code blocks of PromiseNIO's article, as written there (`DocCCodeBlocksTests`
    /// checks they are), with what they produce.
    @Suite struct DocCExamplesTests {
        @Test func futuresAndPromises() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                // DocC: begin
                let fromFuture = Promise(loop.makeSucceededFuture(41))     // Promise<Int>
                    .then(on: .eventLoop(loop)) { $0 + 1 }

                let backToFuture = fromFuture.eventLoopFuture(on: loop)    // EventLoopFuture<Int>
                let tick = Promise(loop.scheduleTask(in: .milliseconds(10)) { "tick" })
                // DocC: end
                #expect(try await fromFuture.get() == 42)
                #expect(try await backToFuture.get() == 42)
                #expect(try await tick.get() == "tick")
            }
        }
    }
#endif
