#if Tracing && Metrics
    import InMemoryTracing
    import PromiseTestSupport
    import Testing
    import Tracing

    @testable import PromiseUV

    /// PromiseUV's child-process spans and metrics, with real children of a real loop, and a
    /// tracer and metrics backend of each test's own.
    @Suite struct ProcessTelemetryTests {
        let recorders = Recorders()

        private func command(_ program: String, _ arguments: [String] = []) -> UVCommand {
            var command = UVCommand(program, arguments: arguments)
            command.tracer = recorders.tracer
            command.metricsFactory = recorders.metrics
            return command
        }

        private func withLoop<T>(_ body: (UVLoop) async throws -> T) async throws -> T {
            let loop = try UVLoop()
            try loop.startThread(named: "uv-telemetry")
            defer { loop.shutdown() }
            return try await body(loop)
        }

        @Test func aChildHasASpanWithItsProgramPidAndExitButNotItsArguments() async throws {
            let result = try await withLoop { loop in
                try await loop.spawn(command("/bin/sh", ["-c", "exit 3", "password=hunter2"])).get()
            }
            #expect(result.exit == .exited(3))
            let span = try recorders.span(named: "sh")
            #expect(span.kind == .internal)
            #expect(span.text("process.executable.name") == "sh")
            #expect(span.text("process.executable.path") == "/bin/sh")
            #expect(span.int("process.args_count") == 4)
            #expect(span.int("process.pid") == Int64(result.processID))
            #expect(span.int("process.exit.code") == 3)
            #expect(!span.failed, "an exit status is the child's answer, not a failure to run it")
            #expect(!span.everyValue.contains { $0.contains("hunter2") })
            let dimensions = [("process.executable.name", "sh"), ("process.outcome", "exited")]
            #expect(recorders.counter("process.runs", dimensions) == 1)
            #expect(recorders.timerCount("process.duration", dimensions) == 1)
        }

        @Test func theCallersSpanIsTheParent() async throws {
            let parent = recorders.tracer.startSpan("deploy")
            _ = try await withLoop { loop in
                try await InstrumentationContext.withValue(parent.context) { try await loop.spawn(command("true")).get() }
            }
            parent.end()
            let span = try recorders.span(named: "true")
            #expect(span.parentSpanID == (try recorders.span(named: "deploy")).spanID)
        }

        @Test func aProgramThatCannotStartFailsItsSpan() async throws {
            let error = await #expect(throws: UVError.self) {
                try await withLoop { loop in try await loop.spawn(command("/no/such/program")).get() }
            }
            let span = try recorders.span(named: "program")
            #expect(span.failed)
            #expect(span.text("error.type") == error?.name)
            #expect(span.int("process.pid") == nil)
            #expect(recorders.counter("process.errors", [("error.type", error?.name ?? "")]) == 1)
        }

        @Test func aCommandRefusedBeforeItIsQueuedFailsItsSpan() async throws {
            await #expect(throws: UVError.self) {
                try await withLoop { loop in try await loop.spawn(command("echo", ["a\0b"])).get() }
            }
            let span = try recorders.span(named: "echo")
            #expect(span.text("error.type") == UVError.Code.invalidArgument.name || span.text("error.type") == "EINVAL")
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        @Test func aCancelledChildEndsItsSpanWithItsSignal() async throws {
            try await withLoop { loop in
                // Long enough that no delay in this test's own scheduling outlasts it.
                let child = loop.start(command("sleep", ["600"]))
                _ = try await child.processID.get()
                child.result.cancel()
                await #expect(throws: CancellationError.self) { try await child.result.get() }
            }
            let span = try recorders.span(named: "sleep")
            #expect(span.text("error.type") == "cancelled")
            #expect(span.int("process.exit.signal") == 15)
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        @Test func aLoopShutDownBeforeTheStartEndsTheSpan() async throws {
            let loop = try UVLoop()
            try loop.startThread(named: "uv-telemetry")
            try await loop.shutdown().get()
            await #expect(throws: UVError.self) { try await loop.spawn(command("true")).get() }
            let span = try recorders.span(named: "true")
            #expect(span.failed)
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        @Test func theExecutableNameIsThePathsLastComponent() {
            #expect(ProcessTelemetry.executableName("/usr/bin/git") == "git")
            #expect(ProcessTelemetry.executableName("git") == "git")
            #expect(ProcessTelemetry.executableName("./build.sh") == "build.sh")
            #expect(ProcessTelemetry.executableName("dir/") == "dir/")
        }

        @Test func withNothingBootstrappedNothingIsRecorded() {
            #expect(ProcessTelemetry.start(UVCommand("true")) == nil)
            #expect(ProcessTelemetry.start(command("true")) != nil)
        }
    }
#endif
