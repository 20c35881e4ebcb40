// Compiled only with the Logging trait, as the module under test is (`make test` enables it).
#if Logging
    import Glibc
    import InMemoryLogging
    import Logging
    import PromiseCurl
    import PromiseLogging
    import PromiseSQLite
    import PromiseUV
    import Testing

    /// `Promises.logDiagnostics(to:)`. Each test runs in a process of its own (an exit test):
    /// the diagnostics handler is process-wide, and other suites rely on theirs.
    @Suite struct LoggingTests {
        @Test func anUnhandledSQLiteRejectionIsLoggedWithItsSQLButNotItsValues() async {
            await #expect(processExitsWith: .success) {
                let handler = InMemoryLogHandler()
                Promises.logDiagnostics(to: Logger(label: "test") { _ in handler })
                let db = SQLiteDatabase.inMemory()
                // Nobody observes this rejection: it is reported when the promise goes away.
                _ = db.execute("INSERT INTO missing(secret) VALUES (?)", ["hunter2-value"])
                let entry = try #require(await firstEntry(handler))
                #expect(entry.level == .error)
                #expect(entry.message.description == "unhandled rejection of Promise<SQLiteChanges>")
                #expect(entry.metadata["promise.diagnostic"] == "unhandled rejection")
                #expect(entry.metadata["promise.value_type"] == "SQLiteChanges")
                #expect(entry.metadata["error.type"] == "PromiseSQLite.SQLiteError")
                #expect(entry.metadata["sqlite.code"] == "1")
                #expect(entry.metadata["sqlite.sql"] == "INSERT INTO missing(secret) VALUES (?)")
                #expect(entry.metadata["sqlite.message"] == "no such table: missing")
                #expect(!"\(entry)".contains("hunter2"), "bound values never reach the log")
                db.close()
            }
        }

        @Test func anUnhandledCurlFailureIsLoggedWithTheURLsPasswordHidden() async {
            await #expect(processExitsWith: .success) {
                let handler = InMemoryLogHandler()
                Promises.logDiagnostics(to: Logger(label: "test") { _ in handler })
                let client = try CurlClient()
                // Port 9 (discard) on loopback: nothing listens, so the connection is refused.
                _ = client.get("http://ada:hunter2@127.0.0.1:9/private")
                let entry = try #require(await firstEntry(handler))
                #expect(entry.level == .error)
                #expect(entry.metadata["curl.code"] == "7")
                #expect(entry.metadata["curl.code_name"] == "couldNotConnect")
                #expect(entry.metadata["http.method"] == "GET")
                #expect(entry.metadata["http.url"] == "http://***@127.0.0.1:9/private")
                #expect(!"\(entry)".contains("hunter2"), "the password never reaches the log")
                _ = try await client.shutdown().get()
            }
        }

        @Test func aBrokenPromiseAndDroppedWorkAreLoggedAtTheirLevels() async {
            await #expect(processExitsWith: .success) {
                let handler = InMemoryLogHandler()
                Promises.logDiagnostics(to: Logger(label: "test") { _ in handler })
                do {
                    let orphan = Promise<Int>.pending().promise  // its resolver is released at once
                    _ = orphan.then(on: .inline) { $0 + 1 }
                }
                let broken = try #require(await firstEntry(handler))
                #expect(broken.level == .error)
                #expect(broken.metadata["promise.diagnostic"] == "broken promise")
                #expect(broken.metadata["promise.code"] == "brokenPromise")
                handler.clear()

                let loop = try UVLoop()
                loop.shutdown()
                loop.execute {}  // after shutdown: dropped, and reported
                let dropped = try #require(await firstEntry(handler))
                #expect(dropped.level == .warning)
                #expect(dropped.message.description == "dropped work")
                #expect(dropped.metadata["promise.value_type"] == nil)
                #expect(dropped.metadata["uv.operation"] == "execute")
                #expect(dropped.metadata["uv.code_name"] == "loopClosed")
                #expect(dropped.metadata["uv.code"] == nil)
            }
        }
    }

    /// The first entry the handler receives within 10 s.
    private func firstEntry(_ handler: InMemoryLogHandler) async -> InMemoryLogHandler.Entry? {
        for _ in 0..<1_000 {
            if let entry = handler.entries.first { return entry }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return handler.entries.first
    }
#endif  // Logging
