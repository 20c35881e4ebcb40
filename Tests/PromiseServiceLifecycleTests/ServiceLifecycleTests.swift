// Compiled only with the ServiceLifecycle trait, as the module under test is (`make test` enables it).
#if ServiceLifecycle
    import Glibc
    import PromiseTestSupport
    import Testing

    /// `PromiseService` in a real `ServiceGroup`, in `promise-lifecycle-helper`: a process of its
    /// own, sent a real SIGTERM while work is in flight on each of its four resources.
    @Suite struct ServiceLifecycleTests {
        @Test func sigtermStopsEveryResourceInReverseOrderAndLeavesNothingBehind() async throws {
            var template = Array("/tmp/promise-lifecycle.XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
            try #require(made)
            let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            defer { _ = system("rm -rf '\(directory)'") }

            let result = try await runHelperProgram("promise-lifecycle-helper", ["sigterm", directory], signalledWith: SIGTERM, timeout: .seconds(60))
            let facts = result.output.split(separator: "\n").map(String.init)
            #expect(result.status == 0, "\(result.output)")
            // A ServiceGroup stops its services last to first.
            #expect(facts.contains("stopped=client,db,pool,loop"), "\(result.output)")
            // Every piece of work settled.
            #expect(facts.contains("pending=0"), "\(result.output)")
            // The database let its queued inserts finish before closing, and kept them all.
            #expect(facts.contains("inserts fulfilled=200"), "\(result.output)")
            #expect(facts.contains("rows=200"), "\(result.output)")
            #expect(facts.contains("integrity=ok"), "\(result.output)")
            // Atomic writes finished or were refused whole: no temporary file is left.
            #expect(facts.contains { $0.hasPrefix("writes fulfilled=") }, "\(result.output)")
            #expect(facts.contains("temporary files=0"), "\(result.output)")
            // Requests the silent server never answered were failed by the client's shutdown.
            #expect(facts.contains("requests shutdown=4"), "\(result.output)")
            #expect(facts.contains("timer loopClosed=true"), "\(result.output)")
            // Every thread ended and every descriptor was closed.
            #expect(facts.contains("threads left=[]"), "\(result.output)")
            #expect(facts.contains("descriptors leaked=[]"), "\(result.output)")
        }
    }
#endif  // ServiceLifecycle
