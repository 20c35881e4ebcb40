#if Tracing && Metrics
    import InMemoryTracing
    import PromiseTestSupport
    import Testing
    import Tracing

    @testable import PromiseSQLite

    /// PromiseSQLite's statement and transaction spans and metrics, on a real database file of each
    /// test's own, with a tracer and metrics backend of each test's own.
    @Suite struct SQLiteTelemetryTests {
        let recorders = Recorders()
        let directory: ScratchDirectory
        let configuration: SQLiteConfiguration

        init() throws {
            directory = try ScratchDirectory("promise-telemetry-sqlite")
            var configuration = SQLiteConfiguration()
            configuration.tracer = recorders.tracer
            configuration.metricsFactory = recorders.metrics
            self.configuration = configuration
        }

        private func opened() async throws -> SQLiteDatabase {
            let database = try await SQLiteDatabase.open(path: directory("app.sqlite"), configuration: configuration).get()
            try await database.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE)").get()
            recorders.tracer.clearAll()
            recorders.metrics.reset()
            return database
        }

        @Test func aStatementHasAClientSpanWithItsSQLAndNeverItsValues() async throws {
            let database = try await opened()
            defer { _ = database.close() }
            let secret = "card 4111-1111-1111-1111"
            try await database.execute("INSERT INTO notes(body) VALUES (?)", [secret]).get()
            let span = try recorders.span(named: "INSERT")
            #expect(span.kind == .client)
            #expect(span.text("db.system.name") == "sqlite")
            #expect(span.text("db.namespace") == directory("app.sqlite"))
            #expect(span.text("db.operation.name") == "INSERT")
            #expect(span.text("db.query.text") == "INSERT INTO notes(body) VALUES (?)")
            #expect(!span.everyValue.contains { $0.contains("4111") })
            #expect(!span.failed)
            let dimensions = [("db.system.name", "sqlite"), ("db.operation.name", "INSERT")]
            #expect(recorders.counter("db.client.operations", dimensions) == 1)
            #expect(recorders.timerCount("db.client.operation.duration", dimensions) == 1)
        }

        @Test func theCallersSpanIsTheParent() async throws {
            let database = try await opened()
            defer { _ = database.close() }
            let parent = recorders.tracer.startSpan("handler")
            _ = try await InstrumentationContext.withValue(parent.context) {
                try await database.query("SELECT body FROM notes").get()
            }
            parent.end()
            let span = try recorders.span(named: "SELECT")
            let handler = try recorders.span(named: "handler")
            #expect(span.parentSpanID == handler.spanID)
            #expect(span.traceID == handler.traceID)
        }

        @Test func aTransactionIsTheParentOfItsStatements() async throws {
            let database = try await opened()
            defer { _ = database.close() }
            try await database.transaction { connection in
                try connection.execute("INSERT INTO notes(body) VALUES ('a')")
                try connection.execute("INSERT INTO notes(body) VALUES ('b')")
            }.get()
            let transaction = try recorders.span(named: "transaction")
            #expect(transaction.text("db.sqlite.transaction.kind") == "IMMEDIATE")
            #expect(transaction.parentSpanID == nil)
            let children = recorders.tracer.finishedSpans.filter { $0.parentSpanID == transaction.spanID }.map(\.operationName)
            #expect(children == ["BEGIN", "INSERT", "INSERT", "COMMIT"])
            #expect(
                recorders.timerCount("db.client.transaction.duration", [("db.system.name", "sqlite"), ("db.sqlite.transaction.outcome", "committed")]) == 1)
        }

        @Test func aFailureNamesSQLitesCodeOnTheStatementAndTheTransaction() async throws {
            let database = try await opened()
            defer { _ = database.close() }
            try await database.execute("INSERT INTO notes(body) VALUES ('same')").get()
            recorders.tracer.clearAll()
            let error = await #expect(throws: SQLiteError.self) {
                try await database.transaction { connection in
                    try connection.execute("INSERT INTO notes(body) VALUES ('same')")
                }.get()
            }
            let type = try #require(error?.code.name)
            let failed = recorders.spans(named: "INSERT")
            #expect(failed.count == 1 && failed[0].failed && failed[0].text("error.type") == type)
            let transaction = try recorders.span(named: "transaction")
            #expect(transaction.failed && transaction.text("error.type") == type)
            #expect(recorders.spans(named: "ROLLBACK").count == 1)
            #expect(recorders.counter("db.client.errors", [("db.system.name", "sqlite"), ("error.type", type)]) == 1)
            #expect(
                recorders.timerCount("db.client.transaction.duration", [("db.system.name", "sqlite"), ("db.sqlite.transaction.outcome", "rolled_back")]) == 1)
        }

        @Test func aCancelledStatementEndsItsSpan() async throws {
            let database = try await opened()
            defer { _ = database.close() }
            let endless = database.scalar(Int.self, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
            try await Task.sleep(for: .milliseconds(50))
            endless.cancel()
            await #expect(throws: CancellationError.self) { try await endless.get() }
            let span = try recorders.span(named: "WITH")
            #expect(span.failed)
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        /// Every public way to run SQL goes through the one traced path: each makes the spans of
        /// its statements, on a database and on a pool.
        @Test func everyOperationIsTraced() async throws {
            let database = try await opened()
            struct Note: Decodable, Sendable { let body: String }
            let operations: [(String, [String], () async throws -> Void)] = [
                ("execute", ["INSERT"], { _ = try await database.execute("INSERT INTO notes(body) VALUES ('x')").get() }),
                ("executeScript", ["UPDATE", "DELETE"], { try await database.executeScript("UPDATE notes SET body = 'y'; DELETE FROM notes WHERE 0").get() }),
                ("query", ["SELECT"], { _ = try await database.query("SELECT * FROM notes").get() }),
                ("query(Decodable)", ["SELECT"], { _ = try await database.query(Note.self, "SELECT body FROM notes").get() }),
                ("queryFirst", ["SELECT"], { _ = try await database.queryFirst("SELECT * FROM notes").get() }),
                ("queryFirst(Decodable)", ["SELECT"], { _ = try await database.queryFirst(Note.self, "SELECT body FROM notes").get() }),
                ("scalar", ["SELECT"], { _ = try await database.scalar(Int.self, "SELECT count(*) FROM notes").get() }),
                ("read", ["BEGIN", "SELECT", "COMMIT"], { _ = try await database.read { try $0.query("SELECT 1") }.get() }),
                ("readWithoutTransaction", ["SELECT"], { _ = try await database.readWithoutTransaction { try $0.query("SELECT 1") }.get() }),
                ("writeWithoutTransaction", ["PRAGMA"], { _ = try await database.writeWithoutTransaction { try $0.execute("PRAGMA user_version = 3") }.get() }),
                ("forEachRow", ["SELECT"], { try await database.readWithoutTransaction { try $0.forEachRow("SELECT * FROM notes") { _ in } }.get() }),
                (
                    "transaction", ["BEGIN", "INSERT", "COMMIT"],
                    { try await database.transaction { _ = try $0.execute("INSERT INTO notes(body) VALUES ('z')") }.get() }
                ),
            ]
            for (name, statements, run) in operations {
                recorders.tracer.clearAll()
                try await run()
                let spans = recorders.tracer.finishedSpans.map(\.operationName).filter { $0 != "transaction" }
                #expect(spans == statements, "\(name)")
            }
            try await database.close().get()

            let pool = try await SQLiteDatabasePool.open(path: directory("app.sqlite"), readers: 1, configuration: configuration).get()
            defer { _ = pool.close() }
            recorders.tracer.clearAll()
            _ = try await pool.query("SELECT * FROM notes").get()
            _ = try await pool.execute("DELETE FROM notes").get()
            #expect(recorders.tracer.finishedSpans.map(\.operationName) == ["SELECT", "DELETE"])
        }

        @Test func theOperationNameIsTheFirstKeyword() {
            #expect(StatementTelemetry.operationName(of: "select 1") == "SELECT")
            #expect(StatementTelemetry.operationName(of: "  \n-- why\n/* note */ Insert into t values (1)") == "INSERT")
            #expect(StatementTelemetry.operationName(of: "/* unterminated") == "SQL")
            #expect(StatementTelemetry.operationName(of: "") == "SQL")
            #expect(StatementTelemetry.operationName(of: "(SELECT 1)") == "SQL")
            #expect(StatementTelemetry.operationName(of: String(repeating: "A", count: 100)).count == 32)
        }

        /// The statements that set a connection up (its pragmas) are not the program's: none of
        /// them makes a span.
        @Test func openingMakesNoSpan() async throws {
            let database = try await SQLiteDatabase.open(path: directory("other.sqlite"), configuration: configuration).get()
            try await database.close().get()
            #expect(recorders.tracer.finishedSpans.isEmpty)
        }

        @Test func withNothingBootstrappedNothingIsRecorded() {
            #expect(SQLiteConfiguration().telemetry == nil)
            #expect(configuration.telemetry?.isRecording == true)
        }
    }
#endif
