@_exported public import PromiseCurl
// `whenSettled` (package): bookkeeping that does not count as observing the promise.
import PromiseCore

/// A stand-in for `CurlClient` in tests: it records every request and answers
/// from a script (responses, errors, or never), without a server or a network.
///
/// Give the code under test an `any CurlExecuting` and hand it this client:
///
/// ```swift
/// let http = ScriptedCurlClient()
/// http.reply(to: "https://weather.example/now?city=Oslo", with: .json(#"{"celsius": -3.5}"#))
/// let service = WeatherService(http: http)
/// #expect(try await service.temperature(in: "Oslo").get() == -3.5)
/// #expect(http.requests.map(\.url) == ["https://weather.example/now?city=Oslo"])
/// ```
///
/// Replies are delivered on `context`. With a `ManualContext` from PromiseTesting, time is the
/// test's: a ``Reply/delayed(_:_:)`` reply arrives when the test advances the clock past its
/// delay, and a `timeout(on: manual, …)` on a ``Reply/never`` request fires the same way, which
/// cancels the request (``cancelledRequests`` shows it).
///
/// Each scripted rule answers the requests it matches with its replies in order; once only one
/// is left, it answers every later match. A request that no rule matches is rejected with
/// `CurlError.Code.invalidRequest`, naming the method and URL, so a test learns
/// what its script is missing.
///
/// What it does not do: validate requests the way `CurlClient` does (header injection, URL
/// syntax, schemes), follow redirects, or report progress.
public final class ScriptedCurlClient: CurlExecuting {
    /// One answer to a request.
    public enum Reply: Sendable {
        /// Fulfil with this response. An empty `url` is filled in with the request's.
        case response(CurlResponse)
        /// Reject with this error, such as `CurlError(.couldNotConnect, message: …)`.
        case failure(any Error)
        /// Never answer: the request stays in flight until it is cancelled.
        case never
        /// Give `reply` once `delay` has passed on the client's context.
        indirect case delayed(Duration, Reply)

        /// A response with `status` (and the reason phrase a server sends with it, such as
        /// `Not Found`), the UTF-8 of `body`, and `headers`.
        ///
        /// - Parameters:
        ///   - status: The status code, such as `200` or `503`.
        ///   - body: The body text.
        ///   - headers: Response header fields.
        /// - Returns: The reply.
        public static func status(_ status: Int, _ body: String = "", headers: KeyValuePairs<String, String> = [:]) -> Reply {
            var fields = HTTPFields()
            for (name, value) in headers {
                if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
            }
            let head = HTTPResponse(status: .init(code: status, reasonPhrase: standardReasonPhrase(status)), headerFields: fields)
            return .response(CurlResponse(head: head, body: Array(body.utf8)))
        }

        /// A `200` response with `text` as a JSON body (`Content-Type: application/json`).
        ///
        /// - Parameter text: The JSON text.
        /// - Returns: The reply.
        public static func json(_ text: String) -> Reply {
            status(200, text, headers: ["Content-Type": "application/json"])
        }
    }

    private struct Rule {
        let matches: @Sendable (CurlRequest) -> Bool
        var replies: [Reply]
    }

    private struct State {
        var rules: [Rule] = []
        var requests: [CurlRequest] = []
        var cancelled: [CurlRequest] = []
        /// Promises not settled yet, held as a real client holds its transfers: a request the
        /// script never answers stays pending (until cancelled) rather than being dropped.
        var inFlight: [ObjectIdentifier: Promise<CurlResponse>] = [:]
        /// ``shutdown()`` was called: requests are refused.
        var isShutDown = false
    }

    /// The script and the requests, in an object of their own: a request's promise refers to
    /// it (to forget the request once settled), never to the client, so an unanswered request
    /// does not keep the client alive and the client's `deinit` can end it.
    private final class Script: Sendable {
        let state = Lock(State())
    }

    private let script = Script()
    private var state: Lock<State> { _read { yield script.state } }
    private let context: any ExecutionContext

    /// A client with an empty script.
    ///
    /// - Parameter context: Where replies are delivered and delays are timed: `.inline` (the
    ///   default) answers at once on the calling thread; a `ManualContext` answers when the
    ///   test runs it.
    public init(context: any ExecutionContext = .inline) {
        self.context = context
    }

    /// `DroppedOwner`'s policy, as `CurlClient` follows it: a client deallocated without
    /// ``shutdown()`` shuts down as that does, and a `notShutDown` diagnostic says how many
    /// requests were still unanswered.
    deinit {
        let unanswered = end()
        guard !unanswered.isEmpty else { return }
        let dropped = DroppedOwner(
            "ScriptedCurlClient", named: requests.last.map { "last request \($0.method.rawValue) \($0.url)" } ?? "no request", call: "shutdown()")
        dropped.report(
            CurlError(
                .shutdown, message: dropped.message(DroppedOwner.rejected(unanswered.count, "unanswered request", "unanswered requests", code: "shutdown"))))
        reject(unanswered)
    }

    /// Ends the client as `CurlClient.shutdown()` does: requests still unanswered (a
    /// ``Reply/never`` reply, or a delayed one not due yet) are rejected with
    /// `CurlError.Code.shutdown`, and later requests are refused with it.
    ///
    /// - Returns: A fulfilled promise.
    @discardableResult
    public func shutdown() -> Promise<Void> {
        reject(end())
        return Promise(())
    }

    /// Refuses later requests and takes the unanswered ones.
    private func end() -> [Promise<CurlResponse>] {
        state.withLock { state in
            state.isShutDown = true
            defer { state.inFlight = [:] }
            return Array(state.inFlight.values)
        }
    }

    private func reject(_ unanswered: [Promise<CurlResponse>]) {
        for promise in unanswered { promise.reject(CurlError(.shutdown, message: "the client was shut down; make a new ScriptedCurlClient")) }
    }

    /// Scripts `replies` for requests to exactly `url`, whatever their method.
    ///
    /// - Parameters:
    ///   - url: The URL to match, exactly as the request has it.
    ///   - replies: The answers, in order; the last one repeats.
    public func reply(to url: String, with replies: Reply...) {
        reply(when: { $0.url == url }, with: replies)
    }

    /// Scripts `replies` for `method` requests to exactly `url`.
    ///
    /// - Parameters:
    ///   - method: The method to match.
    ///   - url: The URL to match, exactly as the request has it.
    ///   - replies: The answers, in order; the last one repeats.
    public func reply(to method: HTTPRequest.Method, _ url: String, with replies: Reply...) {
        reply(when: { $0.method == method && $0.url == url }, with: replies)
    }

    /// Scripts `replies` for the requests `matches` accepts.
    ///
    /// - Parameters:
    ///   - matches: Decides whether a request is this rule's. Rules are tried in the order
    ///     they were scripted.
    ///   - replies: The answers, in order; the last one repeats.
    public func reply(when matches: @escaping @Sendable (CurlRequest) -> Bool, with replies: [Reply]) {
        precondition(!replies.isEmpty, "ScriptedCurlClient.reply needs at least one reply")
        state.withLock { $0.rules.append(Rule(matches: matches, replies: replies)) }
    }

    /// Every request made so far, in order (downloads included).
    public var requests: [CurlRequest] { state.withLock { $0.requests } }

    /// The requests whose promises were cancelled before they were answered.
    public var cancelledRequests: [CurlRequest] { state.withLock { $0.cancelled } }

    /// Records `request` and answers it from the script.
    ///
    /// - Parameter request: The request.
    /// - Returns: A promise settled with the scripted reply on the client's context.
    public func execute(_ request: CurlRequest) -> Promise<CurlResponse> {
        answer(request) { $0 }
    }

    /// Records `request`, answers it from the script, and writes a response's body to `path`
    /// (replacing the file whole) as `CurlClient.download` does: with
    /// `options.requireSuccess` (the default), a status outside 2xx rejects with
    /// `CurlError.Code.badStatus`, carrying the response, and leaves `path` as it was. The
    /// promise's response has an empty body, as `CurlClient`'s has.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - path: Where the body goes.
    ///   - options: `requireSuccess` applies; `durable` does not (the file is written whole,
    ///     without `fsync`).
    /// - Returns: A promise of the response (without body).
    public func download(_ request: CurlRequest, to path: String, options: CurlDownloadOptions) -> Promise<CurlResponse> {
        answer(request) { response in
            var headOnly = response
            headOnly.body = []
            if options.requireSuccess && response.status.kind != .successful {
                throw CurlError(
                    .badStatus,
                    message: "status \(response.status.code) \(response.status.reasonPhrase), not saved to '\(path)' (the file was left as it was)",
                    method: request.method.rawValue, url: request.url, response: headOnly)
            }
            try replaceFile(at: path, with: response.body)
            return headOnly
        }
    }

    private func answer(_ request: CurlRequest, _ finish: @escaping @Sendable (CurlResponse) throws -> CurlResponse) -> Promise<CurlResponse> {
        let recorded = state.withLock { state in
            if state.isShutDown { return false }
            state.requests.append(request)
            return true
        }
        // `nil`: shut down; `.some(nil)`: no rule matches.
        let reply: Reply?? = recorded ? takeReply(for: request) : nil
        guard let reply else {
            return Promise(
                CurlError(
                    .shutdown, message: "the client was shut down; make a new ScriptedCurlClient", method: request.method.rawValue, url: request.url))
        }
        let promise = Promise<CurlResponse>.pending(resolvedOn: nil)
        guard let reply else {
            promise.reject(
                CurlError(
                    .invalidRequest,
                    message: "ScriptedCurlClient has no reply scripted for this request; add one with reply(to:with:)",
                    method: request.method.rawValue,
                    url: request.url
                ))
            return promise
        }
        let id = ObjectIdentifier(promise)
        state.withLock { $0.inFlight[id] = promise }
        promise.whenSettled { [script] in script.state.withLock { _ = $0.inFlight.removeValue(forKey: id) } }
        let scheduled = ScheduledReply()
        promise.onCancel(on: .inline) { [script] in
            scheduled.cancel()
            script.state.withLock { $0.cancelled.append(request) }
        }
        run(reply, for: request, to: promise, finish: finish, scheduled: scheduled)
        return promise
    }

    /// The next reply of the first rule that matches `request`: `nil` when the client was shut
    /// down meanwhile, `.some(nil)` when no rule matches.
    ///
    /// The matchers run outside the lock, so a matcher may read ``requests`` or script more
    /// replies. Rules are only ever appended, so the index a matcher found still names its rule
    /// when the lock is taken again; rules scripted meanwhile are tried next.
    private func takeReply(for request: CurlRequest) -> Reply?? {
        var tried = 0
        while true {
            let matchers = state.withLock { $0.rules[tried...].map(\.matches) }
            let found = matchers.firstIndex { $0(request) }.map { tried + $0 }
            let reply: Reply??? = state.withLock { state in
                if state.isShutDown { return .some(nil) }
                guard let index = found else {
                    return state.rules.count == tried + matchers.count ? .some(.some(nil)) : nil
                }
                let reply = state.rules[index].replies[0]
                if state.rules[index].replies.count > 1 { state.rules[index].replies.removeFirst() }
                return .some(.some(reply))
            }
            if let reply { return reply }
            tried += matchers.count
        }
    }

    /// Settles `promise` with `reply` on the client's context, after the reply's delays.
    private func run(
        _ reply: Reply,
        for request: CurlRequest,
        to promise: Promise<CurlResponse>,
        finish: @escaping @Sendable (CurlResponse) throws -> CurlResponse,
        scheduled: ScheduledReply
    ) {
        switch reply {
        case .never:
            return
        case .delayed(let delay, let later):
            scheduled.set(
                context.executeAfter(delay) { [self] in
                    run(later, for: request, to: promise, finish: finish, scheduled: scheduled)
                })
        case .failure(let error):
            context.execute { promise.reject(error) }
        case .response(var response):
            if response.url.isEmpty { response.url = request.url }
            if response.requestMethod.isEmpty { response.requestMethod = request.method.rawValue }
            context.execute { [response] in
                do {
                    promise.fulfill(try finish(response))
                } catch {
                    promise.reject(error)
                }
            }
        }
    }
}

/// The timer of a delayed reply, so cancelling the request stops it.
private final class ScheduledReply: Sendable {
    private let work = Lock<ScheduledWork?>(nil)

    func set(_ scheduled: ScheduledWork) {
        work.withLock { $0 = scheduled }
    }

    func cancel() {
        work.withLock { $0 }?.cancel()
    }
}
