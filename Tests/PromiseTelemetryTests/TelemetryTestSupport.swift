#if Tracing && Metrics
    import InMemoryTracing
    import MetricsTestKit
    import Testing
    import Tracing

    /// A tracer and a metrics backend of one test's own: nothing is bootstrapped process-wide, so
    /// tests running in parallel never see each other's spans or metrics.
    struct Recorders {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()

        /// The finished spans named `name`.
        func spans(named name: String) -> [FinishedInMemorySpan] {
            tracer.finishedSpans.filter { $0.operationName == name }
        }

        /// The one finished span named `name`; records an issue when there is not exactly one.
        func span(named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> FinishedInMemorySpan {
            let found = spans(named: name)
            try #require(found.count == 1, "spans named \(name): \(tracer.finishedSpans.map(\.operationName))", sourceLocation: sourceLocation)
            return found[0]
        }

        /// The total of the counter `label` with exactly `dimensions`, 0 when it was never made.
        func counter(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
            (try? metrics.expectCounter(label, dimensions).totalValue) ?? 0
        }

        /// How many values the timer `label` with exactly `dimensions` recorded.
        func timerCount(_ label: String, _ dimensions: [(String, String)]) -> Int {
            (try? metrics.expectTimer(label, dimensions).values.count) ?? 0
        }
    }

    extension FinishedInMemorySpan {
        /// The attribute `name` as text (a string attribute's value, or a number's digits).
        func text(_ name: String) -> String? {
            switch attributes.get(name) {
            case .string(let value): value
            case .int64(let value): String(value)
            case .int32(let value): String(value)
            case .double(let value): String(value)
            case .bool(let value): String(value)
            case .stringConvertible(let value): value.description
            default: nil
            }
        }

        /// The attribute `name` as an integer.
        func int(_ name: String) -> Int64? {
            switch attributes.get(name) {
            case .int64(let value): value
            case .int32(let value): Int64(value)
            default: nil
            }
        }

        /// Every attribute value and event attribute value, as text: where a secret must not be.
        var everyValue: [String] {
            var values: [String] = []
            attributes.forEach { _, value in values.append("\(value)") }
            for event in events { event.attributes.forEach { _, value in values.append("\(value)") } }
            for error in errors { values.append("\(error.error)") }
            return values + [operationName, status?.message ?? ""]
        }

        /// Whether the span's status is an error.
        var failed: Bool { status?.code == .error }
    }
#endif
