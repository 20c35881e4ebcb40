/// The phases of one transfer, from its submission to its delivered outcome, and the decisions
/// between them: whether a response is a redirect to follow (its body then read and dropped),
/// when the head or the body outgrows its limit, when a failure found by a callback decides the
/// outcome, where a redirect leads, and what a cancellation does in each phase.
///
/// A pure value. ``Transfer`` holds one, feeds it what libcurl reports (a head line, a chunk of
/// body, the end of a response, the redirect's target) and performs the action each event
/// returns: keep the bytes, stop libcurl, set the handle up for the next hop, build the
/// outcome. The machine never calls libcurl and never touches a thread.
struct TransferStateMachine {
    enum State {
        /// Created; the handle is not set up yet.
        case configuring
        /// The request of ``TransferStateMachine/hop`` is out; its response's head arrives.
        case awaitingHead
        /// The final response's body arrives: kept in memory up to the body limit, or written
        /// to the download's file.
        case receivingBody
        /// The body of a redirect that will be followed arrives and is dropped; `dropped`
        /// bytes so far.
        case droppingRedirectBody(dropped: Int)
        /// A redirect's response ended; its target is read next.
        case redirecting(status: Int)
        /// The outcome is the response libcurl ended with (or libcurl's own error).
        /// `bodyStarted` says whether a byte of the last response's body arrived.
        case finished(bodyStarted: Bool)
        /// The outcome is this error: a callback found it (and stopped libcurl), or the
        /// redirect could not be followed.
        case failed(CurlError)
        /// The driver delivered an outcome (the response, an error, a cancellation or the
        /// shutdown): the handle is out of libcurl's hands and nothing more happens.
        case settled
    }

    /// Where the final response's body goes.
    enum BodyDestination: Equatable {
        /// Collected in memory, up to `limit` bytes.
        case memory(limit: Int)
        /// Written to a download's file.
        case file
        /// Handed to the consumer of a streamed response as it arrives; the head is
        /// delivered as soon as it is complete.
        case stream
    }

    /// What the whole chain may do, fixed when the transfer starts.
    struct Limits {
        /// The most redirects followed.
        var maxRedirects: Int
        /// When the whole chain must be done, if the request has a total timeout.
        var deadline: ContinuousClock.Instant?
        /// Where the body goes.
        var body: BodyDestination

        /// The most body bytes kept in memory; `nil` when the body goes to a file or a stream.
        var bodyLimit: Int? {
            guard case .memory(let limit) = body else { return nil }
            return limit
        }
    }

    /// The body of a redirect that is followed is read and dropped, up to this many bytes.
    static let largestRedirectBody = 1 << 20

    private(set) var state: State = .configuring
    /// The current request of the redirect chain.
    private(set) var hop: Hop
    private(set) var limits = Limits(maxRedirects: 0, deadline: nil, body: .file)

    init(hop: Hop) {
        self.hop = hop
    }

    /// Whether a byte of the current response's body arrived.
    var bodyStarted: Bool {
        switch state {
        case .receivingBody, .droppingRedirectBody, .finished(bodyStarted: true): true
        case .configuring, .awaitingHead, .redirecting, .finished(bodyStarted: false), .failed, .settled: false
        }
    }

    // MARK: Events

    /// Whether the driver starts a transfer it was handed.
    enum StartAction: Equatable {
        /// Set the handle up and send the request.
        case start
        /// Nothing: a cancellation handled earlier in the same pass settled it.
        case skip
    }

    /// The driver takes the transfer's start from its mailbox. Asked before anything is set
    /// up; ``started(_:)`` follows once the handle is.
    func startRequested() -> StartAction {
        switch state {
        case .configuring: return .start
        case .settled: return .skip
        case .awaitingHead, .receivingBody, .droppingRedirectBody, .redirecting, .finished, .failed:
            preconditionFailure("a transfer was handed to the driver twice (\(state))")
        }
    }

    /// What the driver does with a cancellation.
    enum CancelAction: Equatable {
        /// Deliver the cancellation; the transfer never starts.
        case settleUnstarted
        /// Take the handle out of libcurl, then deliver the cancellation: whatever the
        /// response had reached (even a failure a callback found) is dropped.
        case abort
        /// Nothing: the outcome was delivered first.
        case none
    }

    /// The transfer's promise was cancelled (its consumers gave up, or a timeout fired); the
    /// driver handles it in its next pass, before it starts anything.
    func cancelRequested() -> CancelAction {
        switch state {
        case .configuring: return .settleUnstarted
        case .awaitingHead, .receivingBody, .droppingRedirectBody, .failed: return .abort
        case .settled: return .none
        case .redirecting, .finished:
            // Both last only while the driver handles libcurl's end of a response, which
            // settles the transfer or sends the next request before the driver reads its mailbox.
            preconditionFailure("a cancellation was handled while the transfer was \(state)")
        }
    }

    /// The driver delivers an outcome; every path that settles a transfer goes through here,
    /// once.
    mutating func settle() {
        guard case .settled = state else {
            state = .settled
            return
        }
        preconditionFailure("a transfer was settled twice")
    }

    /// The handle is set up and the first request goes out.
    mutating func started(_ limits: Limits) {
        guard case .configuring = state else { preconditionFailure("a transfer started twice (\(state))") }
        self.limits = limits
        state = .awaitingHead
    }

    /// What a libcurl callback returns.
    enum CallbackAction: Equatable {
        /// Take the bytes and go on.
        case proceed
        /// Return a short count: libcurl stops, and the outcome is the recorded failure.
        case stop
    }

    /// A head line arrived (trailers come the same way, after the body); `fits` says whether
    /// the head is still within `headLimit` bytes with it.
    mutating func headLineArrived(fits: Bool, headLimit: Int) -> CallbackAction {
        switch state {
        case .awaitingHead, .receivingBody, .droppingRedirectBody:
            guard fits else {
                state = .failed(CurlError(.headersTooLarge, message: "the response head is larger than the limit of \(headLimit) bytes"))
                return .stop
            }
            return .proceed
        case .failed:
            return .stop
        case .configuring, .redirecting, .finished, .settled:
            preconditionFailure("a head line arrived while the transfer was \(state)")
        }
    }

    /// What the header callback does at the blank line that ends a head.
    enum HeadEndAction: Equatable {
        /// Nothing yet.
        case none
        /// Deliver the head to the streamed response's promise, once libcurl has returned.
        case deliverHead
    }

    /// A head (`status`, and whether it has a `Location`, asked only when it matters) ended.
    /// For a streamed body, the head of the final response is delivered at once, before any
    /// body arrives: a server may send it and then wait (an event stream). An interim `1xx`
    /// head, a redirect that is followed and the trailers after a body deliver nothing.
    mutating func headEnded(status: Int, hasLocation: @autoclosure () -> Bool) -> HeadEndAction {
        guard case .stream = limits.body, case .awaitingHead = state, status >= 200 else { return .none }
        if follows(status: status, hasLocation: hasLocation()) {
            state = .droppingRedirectBody(dropped: 0)
            return .none
        }
        state = .receivingBody
        return .deliverHead
    }

    /// What the write callback does with a chunk of body.
    enum BodyAction: Equatable {
        /// Append it to the body kept in memory.
        case collect
        /// Write it to the download's file.
        case write
        /// Hand it to the streamed response's consumer.
        case stream
        /// Drop it: it belongs to a redirect that is followed.
        case drop
        /// Return a short count: libcurl stops, and the outcome is the recorded failure.
        case stop
    }

    /// `count` bytes of body arrived, `collected` being kept in memory already. `status` is
    /// the response's; `hasLocation` says whether its head has a `Location`, and is asked only
    /// on the first chunk of a redirect status (finding a field parses the head's lines).
    /// `announcedLength` is the response's `Content-Length`, if it has one, asked on the first
    /// chunk of a body kept in memory: a body announced past the limit is refused before it
    /// is collected.
    mutating func bodyArrived(
        count: Int, collected: Int, status: @autoclosure () -> Int, hasLocation: @autoclosure () -> Bool,
        announcedLength: @autoclosure () -> Int? = nil
    ) -> BodyAction {
        switch state {
        case .awaitingHead:
            guard !follows(status: status(), hasLocation: hasLocation()) else {
                state = .droppingRedirectBody(dropped: 0)
                return bodyArrived(count: count, collected: collected, status: status(), hasLocation: false)
            }
            state = .receivingBody
            if let limit = limits.bodyLimit, let announced = announcedLength(), announced > limit {
                state = .failed(
                    CurlError(
                        .responseTooLarge,
                        message:
                            "the response body is larger than the limit of \(limit) bytes (Content-Length says so); raise maxResponseBodySize or use download(_:to:)"
                    ))
                return .stop
            }
            return bodyArrived(count: count, collected: collected, status: status(), hasLocation: false)
        case .droppingRedirectBody(let dropped):
            let total = dropped + count
            guard total <= Self.largestRedirectBody else {
                state = .failed(
                    CurlError(.responseTooLarge, message: "the body of a \(status()) redirect is larger than \(Self.largestRedirectBody) bytes"))
                return .stop
            }
            state = .droppingRedirectBody(dropped: total)
            return .drop
        case .receivingBody:
            let bodyLimit: Int
            switch limits.body {
            case .file: return .write
            case .stream: return .stream
            case .memory(let limit): bodyLimit = limit
            }
            guard collected + count <= bodyLimit else {
                state = .failed(
                    CurlError(
                        .responseTooLarge,
                        message: "the response body grew past the limit of \(bodyLimit) bytes; raise maxResponseBodySize or use download(_:to:)"))
                return .stop
            }
            return .collect
        case .failed:
            return .stop
        case .configuring, .redirecting, .finished, .settled:
            preconditionFailure("body arrived while the transfer was \(state)")
        }
    }

    /// A callback could not do its part (the download's file refused a write, the request
    /// body's file a read): the outcome is `failure`, and the callback stops libcurl.
    mutating func callbackFailed(_ failure: CurlError) {
        switch state {
        case .awaitingHead, .receivingBody, .droppingRedirectBody:
            state = .failed(failure)
        case .failed:
            break  // the first failure stays the outcome
        case .configuring, .redirecting, .finished, .settled:
            preconditionFailure("a callback failed while the transfer was \(state)")
        }
    }

    /// What happens once libcurl says a response ended.
    enum EndAction: Equatable {
        /// Build the outcome from the response (or from libcurl's error).
        case finish
        /// Fail with this error.
        case fail(CurlError)
        /// Read the redirect's target and report it with ``redirectTarget(_:now:origin:)``.
        case followRedirect
    }

    /// libcurl ended the current response, `succeeded` or with an error of its own; `status`
    /// is the response's, and `hasLocation` (asked only when it matters) whether its head has
    /// a `Location`.
    mutating func responseEnded(succeeded: Bool, status: Int, hasLocation: @autoclosure () -> Bool) -> EndAction {
        switch state {
        case .failed(let failure):
            return .fail(failure)
        case .awaitingHead, .droppingRedirectBody, .receivingBody:
            // A response without a body is decided here; one with a body, on its first chunk.
            let isRedirect: Bool
            if case .receivingBody = state { isRedirect = false } else { isRedirect = succeeded && follows(status: status, hasLocation: hasLocation()) }
            guard succeeded, isRedirect else {
                state = .finished(bodyStarted: bodyStarted)
                return .finish
            }
            state = .redirecting(status: status)
            return .followRedirect
        case .configuring, .redirecting, .finished, .settled:
            preconditionFailure("a response ended while the transfer was \(state)")
        }
    }

    /// What happens with a redirect's target.
    enum RedirectAction: Equatable {
        /// Set the handle up for ``TransferStateMachine/hop``, the target, and send it.
        case follow
        /// Fail with this error.
        case fail(CurlError)
    }

    /// The redirect's target, as libcurl resolved its `Location` (`nil` when it could not),
    /// at `now`; `origin` is the origin of the request as given (``Hop/origin(of:)``).
    mutating func redirectTarget(_ target: String?, now: ContinuousClock.Instant, origin: String) -> RedirectAction {
        guard case .redirecting(let status) = state else { preconditionFailure("a redirect target arrived while the transfer was \(state)") }
        let failure: CurlError
        if hop.count >= limits.maxRedirects {
            failure = CurlError(
                .tooManyRedirects,
                message: "more than \(limits.maxRedirects) redirects; the last, \(status), went to \(redactingUserInfo(target ?? "?"))")
        } else if let target {
            switch URLParts.parse(target) {
            case .success(let parts) where parts.scheme == "http" || parts.scheme == "https":
                if let deadline = limits.deadline, deadline <= now {
                    failure = CurlError(.operationTimedOut, message: "the request's time ran out after \(hop.count + 1) redirects")
                } else {
                    hop = hop.next(status: status, to: parts, origin: origin)
                    state = .awaitingHead
                    return .follow
                }
            case .success(let parts):
                failure = CurlError(
                    .unsupportedProtocol, message: "a redirect to a '\(parts.scheme)' URL was refused; redirects go to http and https only")
            case .failure(let problem):
                failure = CurlError(.malformedURL, message: "the redirect's Location is not a URL that can be sent: \(problem.message)")
            }
        } else {
            failure = CurlError(.weirdServerReply, message: "status \(status) with a Location libcurl could not resolve")
        }
        state = .failed(failure)
        return .fail(failure)
    }

    /// Whether a response with `status` and a `Location` (or none) is a redirect to follow.
    /// `hasLocation` is asked last.
    private func follows(status: Int, hasLocation: @autoclosure () -> Bool) -> Bool {
        limits.maxRedirects > 0 && Hop.followed.contains(status) && hasLocation()
    }
}
