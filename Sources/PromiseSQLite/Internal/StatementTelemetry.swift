#if Tracing || Metrics
    internal import PromiseSystem
    #if Tracing
        internal import Tracing
    #endif

    extension SQLiteConfiguration: TelemetrySettings {}

    /// The spans and metrics of statements and transactions, following OpenTelemetry's semantic
    /// conventions for database clients. A statement's span is named after its operation (the
    /// first keyword: `SELECT`, `INSERT`, `BEGIN`), of kind client, with `db.system.name`
    /// (`sqlite`), `db.namespace` (the database's path), `db.operation.name` and `db.query.text`:
    /// the SQL as written, never the values bound to it. A top-level transaction has a span named
    /// `transaction`, the parent of its statements' spans (`BEGIN` and `COMMIT` included), with
    /// `db.sqlite.transaction.kind`. A failure sets `error.type` to the SQLite code's name.
    ///
    /// Metrics: the `db.client.operation.duration` timer and the `db.client.operations` counter by
    /// `db.operation.name` (and `error.type` when it failed), `db.client.errors` by `error.type`,
    /// and the `db.client.transaction.duration` timer by outcome.
    enum StatementTelemetry {
        /// Runs one statement, `body`, as a traced and measured operation (connection thread).
        static func record<R>(_ telemetry: Telemetry, sql: String, path: String, _ body: () throws -> R) throws -> R {
            let name = operationName(of: sql)
            let operation = telemetry.start(name, kind: .client)
            #if Tracing
                operation.attribute { attributes in
                    attributes["db.system.name"] = "sqlite"
                    attributes["db.namespace"] = path
                    attributes["db.operation.name"] = name
                    attributes["db.query.text"] = sql
                }
            #endif
            do {
                let value = try body()
                finish(operation, name, failure: nil)
                return value
            } catch {
                finish(operation, name, failure: error)
                throw error
            }
        }

        /// Runs a top-level transaction, `body`, as a traced and measured operation whose span is
        /// the current one while `body` runs (connection thread).
        static func recordTransaction<T>(_ telemetry: Telemetry, kind: String, path: String, _ body: () throws -> T) throws -> T {
            let operation = telemetry.start("transaction", kind: .client)
            #if Tracing
                operation.attribute { attributes in
                    attributes["db.system.name"] = "sqlite"
                    attributes["db.namespace"] = path
                    attributes["db.sqlite.transaction.kind"] = kind
                }
            #endif
            let outcome: Result<T, any Error>
            do {
                #if Tracing
                    outcome = .success(try InstrumentationContext.withValue(operation.context ?? InstrumentationContext.current) { try body() })
                #else
                    outcome = .success(try body())
                #endif
            } catch {
                outcome = .failure(error)
            }
            var failure: (error: any Error, type: String)?
            if case .failure(let error) = outcome { failure = (error, errorType(of: error)) }
            operation.end(failure: failure)
            #if Metrics
                let result = failure == nil ? "committed" : "rolled_back"
                operation.telemetry.time(
                    "db.client.transaction.duration", [("db.system.name", "sqlite"), ("db.sqlite.transaction.outcome", result)],
                    nanoseconds: operation.elapsedNanoseconds)
            #endif
            return try outcome.get()
        }

        #if Tracing
            /// `job` run with the caller's context as the current one, so that the spans of its
            /// statements are children of the caller's span (caller's thread).
            static func carryingCallersContext(
                _ job: @escaping @Sendable (Connection?, SQLiteError?) -> Void
            ) -> @Sendable (Connection?, SQLiteError?) -> Void {
                guard let context = InstrumentationContext.current else { return job }
                return { connection, error in InstrumentationContext.withValue(context) { job(connection, error) } }
            }
        #endif

        private static func finish(_ operation: TelemetryOperation, _ name: String, failure: (any Error)?) {
            let type = failure.map(errorType(of:))
            operation.end(failure: failure.map { ($0, type ?? "error") })
            #if Metrics
                var dimensions = [("db.system.name", "sqlite"), ("db.operation.name", name)]
                if let type { dimensions.append(("error.type", type)) }
                operation.telemetry.time("db.client.operation.duration", dimensions, nanoseconds: operation.elapsedNanoseconds)
                operation.telemetry.count("db.client.operations", dimensions)
                if let type { operation.telemetry.count("db.client.errors", [("db.system.name", "sqlite"), ("error.type", type)]) }
            #endif
        }

        /// `error.type` of a failure: the SQLite code's name (`constraint`, `busy`), `cancelled`,
        /// or the error's type.
        static func errorType(of error: any Error) -> String {
            switch error {
            case let failure as SQLiteError: failure.code.name
            case is CancellationError: "cancelled"
            default: String(describing: type(of: error))
            }
        }

        /// The statement's first keyword, uppercased, after leading white space and comments: a
        /// low-cardinality span name. `SQL` when there is none.
        static func operationName(of sql: String) -> String {
            var bytes = Substring(sql).utf8[...]
            while let first = bytes.first {
                if first == UInt8(ascii: " ") || (9...13).contains(first) {
                    bytes = bytes.dropFirst()
                } else if bytes.starts(with: "--".utf8) {
                    bytes = bytes.drop { $0 != UInt8(ascii: "\n") }
                } else if bytes.starts(with: "/*".utf8) {
                    var rest = bytes.dropFirst(2)
                    while !rest.isEmpty, !rest.starts(with: "*/".utf8) { rest = rest.dropFirst() }
                    bytes = rest.dropFirst(2)
                } else {
                    break
                }
            }
            let word = bytes.prefix { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }.prefix(32)
            return word.isEmpty ? "SQL" : String(decoding: word, as: UTF8.self).uppercased()
        }
    }
#endif
