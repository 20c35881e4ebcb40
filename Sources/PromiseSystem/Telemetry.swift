#if Tracing || Metrics
    #if Tracing
        package import Tracing
    #endif
    #if Metrics
        package import CoreMetrics
    #endif

    /// Where the spans and metrics of one owner go (a `CurlClient`, an `SQLiteDatabase`, a child
    /// process's `UVCommand`), fixed when the owner starts: the one mechanism through which every
    /// adapter operation that is traced or measured starts and ends (``start(_:kind:)``,
    /// ``TelemetryOperation/end(failure:)``).
    ///
    /// A tracer that is swift-distributed-tracing's `NoOpTracer`, and a metrics factory that is
    /// swift-metrics' `NOOPMetricsHandler`, record nothing: settings that name or find only those
    /// make no `Telemetry` at all (``init(_:)`` is `nil`), so an owner whose process bootstrapped
    /// neither starts no span, reads no clock and makes no metric, and its operations pay one
    /// `nil` check of a reference each. Exists only with the Tracing or Metrics trait on.
    package final class Telemetry: Sendable {
        #if Tracing
            /// The tracer spans start on, or `nil` when spans would go nowhere.
            package let tracer: (any Tracer)?
        #endif
        #if Metrics
            /// The factory of counters and timers, or `nil` when they would go nowhere.
            package let metrics: (any MetricsFactory)?
        #endif

        /// Where `settings` send spans and metrics: their tracer, or the one the process
        /// bootstrapped (`InstrumentationSystem.tracer`, read now), and their metrics factory,
        /// or the process's (`MetricsSystem.factory`); `nil` when neither records anything.
        package init?(_ settings: some TelemetrySettings) {
            #if Tracing
                let chosenTracer = settings.tracer ?? InstrumentationSystem.tracer
                tracer = chosenTracer is NoOpTracer ? nil : chosenTracer
            #endif
            #if Metrics
                let chosenFactory = settings.metricsFactory ?? MetricsSystem.factory
                metrics = chosenFactory is NOOPMetricsHandler ? nil : chosenFactory
            #endif
            guard isRecording else { return nil }
        }

        /// Whether anything is recorded at all.
        package var isRecording: Bool {
            var recording = false
            #if Tracing
                recording = recording || tracer != nil
            #endif
            #if Metrics
                recording = recording || metrics != nil
            #endif
            return recording
        }

        /// What kind of work a span covers, in OpenTelemetry's terms.
        package enum Kind: Sendable {
            /// A request to another service (an HTTP request, a database statement).
            case client
            /// Work of this process (a child process it runs).
            case `internal`
        }

        /// Starts an operation named `name`: its span, a child of the caller's context
        /// (`ServiceContext.current`), and the clock its duration is measured on.
        package func start(_ name: String, kind: Kind) -> TelemetryOperation {
            TelemetryOperation(self, name: name, kind: kind)
        }

        #if Metrics
            /// Adds `amount` to the counter `label` with `dimensions`.
            package func count(_ label: String, _ dimensions: [(String, String)] = [], by amount: Int = 1) {
                guard let metrics, amount > 0 else { return }
                Counter(label: label, dimensions: dimensions, factory: metrics).increment(by: amount)
            }

            /// Records `nanoseconds` in the timer `label` with `dimensions`.
            package func time(_ label: String, _ dimensions: [(String, String)], nanoseconds: Int64) {
                guard let metrics else { return }
                Timer(label: label, dimensions: dimensions, factory: metrics).recordNanoseconds(nanoseconds)
            }
        #endif
    }

    /// Settings that say where an owner's spans and metrics go: its `tracer` and `metricsFactory`,
    /// each `nil` for the process's. ``telemetry`` reads them once, when the owner starts; an
    /// owner keeps what it returns and checks it for `nil`, one test per operation when nothing
    /// is recorded.
    package protocol TelemetrySettings {
        #if Tracing
            /// The tracer of the owner's spans, or `nil` for the process's.
            var tracer: (any Tracer)? { get }
        #endif
        #if Metrics
            /// The factory of the owner's metrics, or `nil` for the process's.
            var metricsFactory: (any MetricsFactory)? { get }
        #endif
    }

    extension TelemetrySettings {
        /// Where the owner's spans and metrics go: these settings' tracer and metrics factory, or
        /// the process's where they name none; `nil` when nothing would be recorded.
        package var telemetry: Telemetry? { Telemetry(self) }
    }

    /// One traced or measured operation, from ``Telemetry/start(_:kind:)`` to ``end(failure:)``.
    ///
    /// Its span may be written to from any thread (a span is `Sendable`), and is ended once.
    package struct TelemetryOperation: Sendable {
        /// The telemetry the operation records to.
        package let telemetry: Telemetry
        /// The operation's name: its span's.
        package let name: String
        #if Tracing
            /// The operation's span, when spans are recorded.
            package let span: (any Span)?
        #endif
        /// When the operation started, on the monotonic clock.
        package let started: ContinuousClock.Instant

        fileprivate init(_ telemetry: Telemetry, name: String, kind: Telemetry.Kind) {
            self.telemetry = telemetry
            self.name = name
            #if Tracing
                span = telemetry.tracer?.startSpan(
                    name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind == .client ? .client : .internal)
            #endif
            started = ContinuousClock.now
        }

        /// Nanoseconds since the operation started.
        package var elapsedNanoseconds: Int64 {
            Int64(clamping: (ContinuousClock.now - started).attoseconds / 1_000_000_000)
        }

        #if Tracing
            /// Sets attributes of the span (nothing when spans are not recorded).
            package func attribute(_ update: (inout SpanAttributes) -> Void) {
                span?.updateAttributes(update)
            }

            /// The caller's context with this operation's span as the current one: what work the
            /// operation runs on other threads starts its own spans under.
            package var context: InstrumentationContext? { span?.context }
        #endif

        /// Ends the operation: a failure is recorded on the span with its OpenTelemetry
        /// `error.type` (`failure.type`) and sets the span's status to error; then the span ends.
        ///
        /// - Parameter failure: The error and its type name, when the operation failed.
        package func end(failure: (error: any Error, type: String)? = nil) {
            #if Tracing
                guard let span else { return }
                if let failure {
                    span.recordError(failure.error)
                    span.attributes["error.type"] = failure.type
                    span.setStatus(SpanStatus(code: .error, message: "\(failure.error)"))
                }
                span.end()
            #endif
        }

    }
#endif
