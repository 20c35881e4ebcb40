#if Tracing && Metrics
    import Foundation
    import InMemoryTracing
    import PromiseTestSupport
    import Testing
    import Tracing

    @testable import PromiseCurl

    /// PromiseCurl's request spans and metrics against httpbin on 127.0.0.1, each test with a
    /// tracer and metrics backend of its own.
    @Suite struct CurlTelemetryTests {
        let server = TestServer.httpbin
        let recorders = Recorders()
        let client: CurlClient

        init() throws {
            var configuration = CurlConfiguration()
            configuration.tracer = recorders.tracer
            configuration.metricsFactory = recorders.metrics
            client = try CurlClient(configuration: configuration)
        }

        @Test func aRequestHasAClientSpanWithTheConventionsAttributesAndTimings() async throws {
            let port = server.ports["http"]!
            let response = try await client.get(server.url("/bytes/1000")).get()
            #expect(response.body.count == 1000)
            let span = try recorders.span(named: "GET")
            #expect(span.kind == .client)
            #expect(span.text("http.request.method") == "GET")
            #expect(span.text("url.full") == server.url("/bytes/1000"))
            #expect(span.text("url.scheme") == "http")
            #expect(span.text("server.address") == "127.0.0.1")
            #expect(span.int("server.port") == Int64(port))
            #expect(span.int("http.response.status_code") == 200)
            #expect(span.text("network.protocol.version") == "1.1")
            #expect(span.int("http.response.body.size") == 1000)
            #expect(span.int("http.request.body.size") == 0)
            for name in TransferMeasures.timingInfos.map(\.0) { #expect(span.int(name) != nil, "\(name)") }
            #expect((span.int("curl.time.total_us") ?? 0) > 0)
            #expect((span.int("curl.time.total_us") ?? 0) >= (span.int("curl.time.connect_us") ?? .max))
            #expect(!span.failed && span.errors.isEmpty && span.text("error.type") == nil)
            #expect(recorders.tracer.activeSpans.isEmpty)

            let dimensions = [("http.request.method", "GET"), ("http.response.status_code", "200")]
            #expect(recorders.timerCount("http.client.request.duration", dimensions) == 1)
            #expect(recorders.counter("http.client.requests", dimensions) == 1)
            #expect(recorders.counter("http.client.response.body.bytes", []) == 1000)
            #expect(recorders.metrics.counters(label: "http.client.errors").isEmpty)
        }

        @Test func theCallersSpanIsTheParentAndItsContextTravelsInTheRequest() async throws {
            let parent = recorders.tracer.startSpan("handler")
            let echo = try await InstrumentationContext.withValue(parent.context) {
                try await client.get(server.url("/headers")).validate().decode(HeadersEcho.self).get()
            }
            parent.end()
            let span = try recorders.span(named: "GET")
            let handler = try recorders.span(named: "handler")
            #expect(span.parentSpanID == handler.spanID)
            #expect(span.traceID == handler.traceID)
            // The request's own span, not the caller's, is what the server is told of.
            #expect(echo.headers["In-Memory-Trace-Id"] == span.traceID)
            #expect(echo.headers["In-Memory-Span-Id"] == span.spanID)
        }

        @Test func aBodySentIsCounted() async throws {
            _ = try await client.post(server.url("/post"), body: .bytes(Array(repeating: 7, count: 4096))).validate().get()
            let span = try recorders.span(named: "POST")
            #expect(span.int("http.request.body.size") == 4096)
            #expect(recorders.counter("http.client.request.body.bytes", []) == 4096)
        }

        @Test func eachRedirectIsAnEventOfTheOneSpan() async throws {
            let response = try await client.get(server.url("/redirect/2")).get()
            #expect(response.redirectCount == 2)
            let span = try recorders.span(named: "GET")
            #expect(span.events.map(\.name) == ["http.redirect", "http.redirect"])
            #expect(span.events.allSatisfy { $0.attributes.get("http.response.status_code") == .int64(302) })
            #expect(span.events.last?.attributes.get("url.full") == .string(server.url("/get")))
            #expect(span.int("promise_curl.redirect_count") == 2)
            #expect(span.text("url.full") == server.url("/redirect/2"))
        }

        /// Each attempt of a `retry` is a span of its own; a retry's says it is one.
        @Test func eachRetryIsASpanThatSaysItIsOne() async throws {
            let url = server.url("/status/503")
            let parent = recorders.tracer.startSpan("sync")
            let context = parent.context
            await #expect(throws: CurlError.self) {
                try await retry(attempts: 2, delay: .milliseconds(1)) {
                    InstrumentationContext.withValue(context) { client.get(url).validate() }
                }.get()
            }
            parent.end()
            let attempts = recorders.spans(named: "GET")
            #expect(attempts.count == 3)
            #expect(attempts.map { $0.int("http.request.resend_count") } == [nil, 1, 2])
            #expect(attempts.map { $0.events.map(\.name) } == [[], ["http.retry"], ["http.retry"]])
            #expect(attempts.last?.events.first?.attributes.get("promise.retry.attempt") == .int64(3))
            let sync = try recorders.span(named: "sync")
            #expect(attempts.allSatisfy { $0.parentSpanID == sync.spanID && $0.text("error.type") == "503" })
            // Outside a retry's work, a request is no retry.
            _ = try await client.get(server.url("/get")).get()
            #expect(recorders.spans(named: "GET").last?.int("http.request.resend_count") == nil)
        }

        @Test func aStatusOf400OrMoreIsAnErrorOfTheSpanAndCounted() async throws {
            let response = try await client.get(server.url("/status/418")).get()
            #expect(response.status.code == 418)
            let span = try recorders.span(named: "GET")
            #expect(span.failed)
            #expect(span.text("error.type") == "418")
            #expect(span.int("http.response.status_code") == 418)
            #expect(recorders.counter("http.client.errors", [("error.type", "418")]) == 1)
            let dimensions = [("http.request.method", "GET"), ("http.response.status_code", "418"), ("error.type", "418")]
            #expect(recorders.timerCount("http.client.request.duration", dimensions) == 1)
        }

        @Test func aFailedTransferNamesLibcurlsCode() async throws {
            let url = "http://127.0.0.1:\(refusedPort())/nothing"
            await #expect(throws: CurlError.self) { try await client.get(url).get() }
            let span = try recorders.span(named: "GET")
            #expect(span.failed)
            #expect(span.text("error.type") == CurlError.Code.couldNotConnect.name)
            #expect(span.int("http.response.status_code") == nil)
            #expect(span.errors.count == 1)
            #expect(recorders.counter("http.client.errors", [("error.type", CurlError.Code.couldNotConnect.name)]) == 1)
        }

        @Test func aRequestRefusedBeforeItIsSentHasASpanToo() async throws {
            await #expect(throws: CurlError.self) { try await client.get("ftp://127.0.0.1/file").get() }
            let span = try recorders.span(named: "GET")
            #expect(span.text("error.type") == CurlError.Code.invalidRequest.name)
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        /// Cancelled at once, with no wait between (on a busy machine a wait can outlast the
        /// request): queued or already sent, the transfer stops and its span ends as cancelled.
        @Test func cancellingEndsTheSpanAsCancelled() async throws {
            let slow = client.get(server.url("/delay/10"))
            slow.cancel()
            await #expect(throws: CancellationError.self) { try await slow.get() }
            // The promise rejects at once; the span ends when the driver thread has stopped the
            // transfer, which it does next.
            #expect(try await eventually { recorders.tracer.finishedSpans.count == 1 })
            let span = try recorders.span(named: "GET")
            #expect(span.text("error.type") == "cancelled")
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        @Test func aClientShutDownEndsTheSpansOfItsRequests() async throws {
            let slow = client.get(server.url("/delay/10"))
            let shutDown = client.shutdown()  // at once: queued or sent, the request is in flight
            try await shutDown.get()
            await #expect(throws: CurlError.self) { try await slow.get() }
            let span = try recorders.span(named: "GET")
            #expect(span.text("error.type") == CurlError.Code.shutdown.name)
            #expect(recorders.tracer.activeSpans.isEmpty)
        }

        /// Credentials in the URL and secret query values never reach a span.
        @Test func urlsAreRedactedAsTheConventionsAsk() async throws {
            let port = server.ports["http"]!
            var request = CurlRequest(.get, "http://alice:hunter2@127.0.0.1:\(port)/get?token=t0ps3cret&page=2&Signature=s1gned#fragment")
            request.headerFields[.authorization] = "Bearer b3arer"
            _ = try await client.execute(request).get()
            let span = try recorders.span(named: "GET")
            #expect(span.text("url.full") == "http://REDACTED:REDACTED@127.0.0.1:\(port)/get?token=REDACTED&page=2&Signature=REDACTED")
            for secret in ["hunter2", "alice", "t0ps3cret", "s1gned", "b3arer"] {
                #expect(!span.everyValue.contains { $0.contains(secret) }, "\(secret) is in the span")
            }
        }

        @Test func theRedactionKeepsWhatIsNotSecret() {
            #expect(redactedForTelemetry("https://example.test/a?b=c") == "https://example.test/a?b=c")
            #expect(redactedForTelemetry("https://u@example.test") == "https://REDACTED:REDACTED@example.test")
            #expect(redactedForTelemetry("https://example.test/p@th?API_KEY=1&&x") == "https://example.test/p@th?API_KEY=REDACTED&&x")
            #expect(redactedForTelemetry("not a url") == "not a url")
            #expect(redactedForTelemetry("http://h/?sig") == "http://h/?sig")
        }

        /// A client made without a tracer or metrics factory, in a process that bootstrapped
        /// neither, records nothing and starts no span at all.
        @Test func withNothingBootstrappedNothingIsRecorded() throws {
            #expect(CurlConfiguration().telemetry == nil)
            var traced = CurlConfiguration()
            traced.tracer = recorders.tracer
            #expect(traced.telemetry?.isRecording == true)
            var measured = CurlConfiguration()
            measured.metricsFactory = recorders.metrics
            #expect(measured.telemetry?.isRecording == true)
        }
    }

    /// httpbin's `/headers` answer.
    struct HeadersEcho: Decodable, Sendable {
        let headers: [String: String]
    }

#endif
