import Testing

@testable import PromiseCurl

/// A transfer's phases and the decisions between them, alone: no libcurl, no server, no
/// thread and no timing. Each event is fed in each phase it can arrive in; the events that
/// cannot arrive in a phase stop the program (`TransferStateMachineImpossibleEventTests`).
@Suite struct TransferStateMachineTests {
    typealias Machine = TransferStateMachine

    /// The phases a live response can be in when a callback runs.
    enum Live: CaseIterable {
        case awaitingHead, receivingBody, droppingRedirectBody
    }

    static func hop(_ url: String = "http://127.0.0.1:1/start", method: HTTPRequest.Method = .get, sendsBody: Bool = false) -> Hop {
        let parts = try! URLParts.parse(url).get()
        return Hop(url: url, parts: parts, method: method, sendsBody: sendsBody)
    }

    static func limits(maxRedirects: Int = 5, deadline: ContinuousClock.Instant? = nil, bodyLimit: Int? = 100) -> Machine.Limits {
        Machine.Limits(maxRedirects: maxRedirects, deadline: deadline, body: bodyLimit.map { .memory(limit: $0) } ?? .file)
    }

    /// A started machine driven into `phase`.
    static func machine(_ phase: Live, limits: Machine.Limits = limits()) -> Machine {
        var machine = Machine(hop: hop())
        machine.started(limits)
        switch phase {
        case .awaitingHead: break
        case .receivingBody: _ = machine.bodyArrived(count: 1, collected: 0, status: 200, hasLocation: false)
        case .droppingRedirectBody: _ = machine.bodyArrived(count: 1, collected: 0, status: 302, hasLocation: true)
        }
        return machine
    }

    static func isFailed(_ machine: Machine, _ code: CurlError.Code) -> Bool {
        if case .failed(let failure) = machine.state { return failure.code == code }
        return false
    }

    @Test func startingSendsTheFirstRequest() {
        var machine = Machine(hop: Self.hop())
        guard case .configuring = machine.state else { Issue.record("a new machine configures"); return }
        machine.started(Self.limits(maxRedirects: 3))
        guard case .awaitingHead = machine.state else { Issue.record("started: \(machine.state)"); return }
        #expect(machine.limits.maxRedirects == 3)
        #expect(!machine.bodyStarted)
    }

    @Test(arguments: Live.allCases)
    func aHeadLineThatFitsIsTakenAndOneThatDoesNotStops(phase: Live) {
        var machine = Self.machine(phase)
        #expect(machine.headLineArrived(fits: true, headLimit: 64) == .proceed)
        #expect(!Self.isFailed(machine, .headersTooLarge))
        #expect(machine.headLineArrived(fits: false, headLimit: 64) == .stop)
        guard case .failed(let failure) = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(failure.code == .headersTooLarge)
        #expect(failure.message.contains("64 bytes"))
        // libcurl stops on the short count; were it to call again, it would be told to stop again.
        #expect(machine.headLineArrived(fits: true, headLimit: 64) == .stop)
    }

    /// The first chunk of body decides whether the response is a redirect to follow: a
    /// redirect status, a `Location`, and redirects allowed.
    @Test(arguments: [200, 204, 300, 301, 302, 303, 304, 307, 308, 404], [true, false])
    func theFirstChunkDecidesWhetherTheBodyIsARedirectsToDrop(status: Int, hasLocation: Bool) {
        for maxRedirects in [0, 5] {
            var machine = Machine(hop: Self.hop())
            machine.started(Self.limits(maxRedirects: maxRedirects))
            let action = machine.bodyArrived(count: 10, collected: 0, status: status, hasLocation: hasLocation)
            let follows = maxRedirects > 0 && hasLocation && [301, 302, 303, 307, 308].contains(status)
            #expect(action == (follows ? .drop : .collect), "\(status) location \(hasLocation) max \(maxRedirects)")
            #expect(machine.bodyStarted)
            switch machine.state {
            case .droppingRedirectBody(let dropped): #expect(follows && dropped == 10)
            case .receivingBody: #expect(!follows)
            default: Issue.record("\(machine.state)")
            }
        }
    }

    /// Finding `Location` parses the head's lines: it is asked for only on the first chunk,
    /// and only of a redirect status.
    @Test(arguments: [200, 302])
    func theLocationIsLookedForOnlyWhenItDecides(status: Int) {
        var machine = Self.machine(.awaitingHead)
        var asked = 0
        func hasLocation() -> Bool {
            asked += 1
            return false
        }
        for _ in 0..<5 { #expect(machine.bodyArrived(count: 1, collected: 0, status: status, hasLocation: hasLocation()) == .collect) }
        #expect(machine.responseEnded(succeeded: true, status: status, hasLocation: hasLocation()) == .finish)
        #expect(asked == (status == 302 ? 1 : 0))

        var bodiless = Self.machine(.awaitingHead)
        asked = 0
        #expect(bodiless.responseEnded(succeeded: true, status: status, hasLocation: hasLocation()) == .finish)
        #expect(asked == (status == 302 ? 1 : 0))
        var failed = Self.machine(.awaitingHead)
        asked = 0
        #expect(failed.responseEnded(succeeded: false, status: status, hasLocation: hasLocation()) == .finish)
        #expect(asked == 0, "a failed response is never followed")
    }

    /// A body kept in memory whose `Content-Length` says too much is refused at its first chunk;
    /// a followed redirect's body is dropped whatever its length says (up to its own bound), and
    /// the length is not asked for it.
    @Test func anAnnouncedLengthPastTheLimitIsRefusedUnlessTheBodyIsARedirects() {
        var machine = Self.machine(.awaitingHead, limits: Self.limits(bodyLimit: 100))
        #expect(machine.bodyArrived(count: 10, collected: 0, status: 200, hasLocation: false, announcedLength: 101) == .stop)
        guard case .failed(let failure) = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(failure.code == .responseTooLarge)
        #expect(failure.message.contains("limit of 100 bytes (Content-Length says so)"), "\(failure)")

        var exact = Self.machine(.awaitingHead, limits: Self.limits(bodyLimit: 100))
        #expect(exact.bodyArrived(count: 10, collected: 0, status: 200, hasLocation: false, announcedLength: 100) == .collect)
        var unknown = Self.machine(.awaitingHead, limits: Self.limits(bodyLimit: 100))
        #expect(unknown.bodyArrived(count: 10, collected: 0, status: 200, hasLocation: false, announcedLength: nil) == .collect)

        var redirect = Self.machine(.awaitingHead, limits: Self.limits(bodyLimit: 100))
        var asked = false
        func length() -> Int? {
            asked = true
            return 2_000
        }
        #expect(redirect.bodyArrived(count: 10, collected: 0, status: 302, hasLocation: true, announcedLength: length()) == .drop)
        #expect(!asked, "a redirect's announced length is not asked")
    }

    @Test func aBodyInMemoryStopsPastItsLimitAndADownloadHasNone() {
        var machine = Self.machine(.receivingBody, limits: Self.limits(bodyLimit: 100))
        #expect(machine.bodyArrived(count: 50, collected: 50, status: 200, hasLocation: false) == .collect, "exactly the limit")
        #expect(machine.bodyArrived(count: 1, collected: 100, status: 200, hasLocation: false) == .stop)
        guard case .failed(let failure) = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(failure.code == .responseTooLarge)
        #expect(failure.message.contains("limit of 100 bytes"))
        #expect(machine.bodyArrived(count: 1, collected: 0, status: 200, hasLocation: false) == .stop, "a failed transfer takes nothing more")

        var download = Self.machine(.receivingBody, limits: Self.limits(bodyLimit: nil))
        #expect(download.bodyArrived(count: 1 << 30, collected: 0, status: 200, hasLocation: false) == .write)
        #expect(download.bodyArrived(count: .max / 2, collected: 0, status: 200, hasLocation: false) == .write)
    }

    @Test func aRedirectsBodyIsDroppedUpToItsLimit() {
        var machine = Self.machine(.awaitingHead)
        let largest = Machine.largestRedirectBody
        #expect(machine.bodyArrived(count: largest - 1, collected: 0, status: 301, hasLocation: true) == .drop)
        #expect(machine.bodyArrived(count: 1, collected: 0, status: 301, hasLocation: true) == .drop, "exactly the limit")
        #expect(machine.bodyArrived(count: 1, collected: 0, status: 301, hasLocation: true) == .stop)
        guard case .failed(let failure) = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(failure.code == .responseTooLarge)
        #expect(failure.message.contains("301 redirect"))
    }

    @Test(arguments: Live.allCases)
    func theFirstFailureOfACallbackIsTheOutcome(phase: Live) {
        var machine = Self.machine(phase)
        machine.callbackFailed(CurlError(.fileError, message: "first"))
        machine.callbackFailed(CurlError(.readError, message: "second"))
        #expect(machine.headLineArrived(fits: true, headLimit: 10) == .stop)
        #expect(machine.bodyArrived(count: 1, collected: 0, status: 200, hasLocation: false) == .stop)
        let end = machine.responseEnded(succeeded: true, status: 200, hasLocation: false)
        #expect(end == .fail(CurlError(.fileError, message: "first")))
        // A failure decided by a callback stays the outcome, whatever libcurl ends with.
        #expect(machine.responseEnded(succeeded: false, status: 0, hasLocation: false) == .fail(CurlError(.fileError, message: "first")))
    }

    @Test(arguments: Live.allCases, [true, false])
    func theEndOfAResponseFinishesOrFollows(phase: Live, succeeded: Bool) {
        var machine = Self.machine(phase)
        // A 302 with a Location: awaiting its head, it has no body; receiving a body, the first
        // chunk said it was not a redirect (a 200), so it finishes whatever the head says now.
        let action = machine.responseEnded(succeeded: succeeded, status: 302, hasLocation: true)
        let follows = succeeded && phase != .receivingBody
        #expect(action == (follows ? .followRedirect : .finish))
        switch machine.state {
        case .redirecting(let status): #expect(follows && status == 302)
        case .finished(let bodyStarted): #expect(!follows && bodyStarted == (phase != .awaitingHead))
        default: Issue.record("\(machine.state)")
        }
    }

    @Test func aResponseWithoutABodyFinishesUnlessItIsARedirect() {
        var plain = Self.machine(.awaitingHead)
        #expect(plain.responseEnded(succeeded: true, status: 204, hasLocation: false) == .finish)
        #expect(!plain.bodyStarted)
        var noRedirects = Self.machine(.awaitingHead, limits: Self.limits(maxRedirects: 0))
        #expect(noRedirects.responseEnded(succeeded: true, status: 301, hasLocation: true) == .finish)
    }

    /// Ends the current response as a `status` redirect and reports `target`.
    static func redirect(
        _ machine: inout Machine, status: Int = 302, to target: String?, now: ContinuousClock.Instant = .now
    ) -> Machine.RedirectAction {
        #expect(machine.responseEnded(succeeded: true, status: status, hasLocation: true) == .followRedirect)
        return machine.redirectTarget(target, now: now, origin: Hop.origin(of: machine.hop.parts))
    }

    @Test func aRedirectLeadsToTheNextHopWithItsMethod() {
        var machine = Machine(hop: Self.hop(method: .post, sendsBody: true))
        machine.started(Self.limits())
        #expect(Self.redirect(&machine, status: 303, to: "http://127.0.0.1:1/next") == .follow)
        guard case .awaitingHead = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.hop.count == 1)
        #expect(machine.hop.url == "http://127.0.0.1:1/next")
        #expect(machine.hop.method == .get, "a 303 makes a POST a GET")
        #expect(!machine.hop.sendsBody)
        #expect(Self.redirect(&machine, status: 307, to: "http://127.0.0.1:1/last") == .follow)
        #expect(machine.hop.count == 2)
        #expect(machine.responseEnded(succeeded: true, status: 200, hasLocation: false) == .finish)
    }

    @Test func oneRedirectTooManyFailsNamingTheTargetWithoutItsPassword() {
        var machine = Self.machine(.awaitingHead, limits: Self.limits(maxRedirects: 2))
        #expect(Self.redirect(&machine, to: "http://127.0.0.1:1/a") == .follow)
        #expect(Self.redirect(&machine, to: "http://127.0.0.1:1/b") == .follow)
        let action = Self.redirect(&machine, to: "http://user:secret@127.0.0.1:1/c")
        guard case .fail(let failure) = action else { Issue.record("\(action)"); return }
        #expect(failure.code == .tooManyRedirects)
        #expect(failure.message.contains("more than 2 redirects; the last, 302"))
        #expect(!failure.message.contains("secret"))
        #expect(Self.isFailed(machine, .tooManyRedirects))
    }

    @Test func aTargetThatCannotBeFollowedFailsWithWhatIsWrong() {
        let cases: [(String?, CurlError.Code, String)] = [
            (nil, .weirdServerReply, "could not resolve"),
            ("ftp://127.0.0.1/file", .unsupportedProtocol, "'ftp'"),
            ("http://bad host/", .malformedURL, "not a URL that can be sent"),
            ("http:///nohost", .malformedURL, "has no host"),
        ]
        for (target, code, words) in cases {
            var machine = Self.machine(.droppingRedirectBody)
            let action = Self.redirect(&machine, to: target)
            guard case .fail(let failure) = action else { Issue.record("\(String(describing: target)): \(action)"); continue }
            #expect(failure.code == code, "\(String(describing: target))")
            #expect(failure.message.contains(words), "\(failure.message)")
            #expect(Self.isFailed(machine, code))
        }
    }

    @Test func aRedirectPastTheDeadlineFails() {
        let start = ContinuousClock.now
        var machine = Self.machine(.awaitingHead, limits: Self.limits(deadline: start + .seconds(1)))
        #expect(Self.redirect(&machine, to: "http://127.0.0.1:1/a", now: start) == .follow)
        let action = Self.redirect(&machine, to: "http://127.0.0.1:1/b", now: start + .seconds(1))
        #expect(action == .fail(CurlError(.operationTimedOut, message: "the request's time ran out after 2 redirects")))
    }

    @Test func credentialsStayWithTheirOrigin() {
        var machine = Self.machine(.awaitingHead)
        #expect(Self.redirect(&machine, to: "http://127.0.0.1:1/same") == .follow)
        #expect(machine.hop.sendsCredentials)
        #expect(Self.redirect(&machine, to: "http://other.test:2/elsewhere") == .follow)
        #expect(!machine.hop.sendsCredentials)
    }
}

/// What a cancellation does in every phase it can be handled in, and the single settlement
/// every path of the driver goes through.
@Suite struct TransferCancellationStateMachineTests {
    typealias Machine = TransferStateMachine

    /// A machine that found a failure in a callback while libcurl still runs it.
    static func failedInACallback() -> Machine {
        var machine = TransferStateMachineTests.machine(.receivingBody)
        machine.callbackFailed(CurlError(.writeError, message: "disk full"))
        return machine
    }

    @Test func aTransferCancelledBeforeItStartsIsSettledAndNeverStarts() {
        var machine = Machine(hop: TransferStateMachineTests.hop())
        #expect(machine.cancelRequested() == .settleUnstarted)
        machine.settle()
        guard case .settled = machine.state else { Issue.record("\(machine.state)"); return }
        // Its start, in the same pass, is skipped.
        #expect(machine.startRequested() == .skip)
    }

    @Test func aTransferNotCancelledStarts() {
        let machine = Machine(hop: TransferStateMachineTests.hop())
        #expect(machine.startRequested() == .start)
    }

    @Test(arguments: TransferStateMachineTests.Live.allCases)
    func aRunningTransferIsAbortedWhereverItsResponseIs(phase: TransferStateMachineTests.Live) {
        var machine = TransferStateMachineTests.machine(phase)
        #expect(machine.cancelRequested() == .abort)
        machine.settle()
        #expect(machine.cancelRequested() == .none, "a second cancellation after the first was delivered")
    }

    @Test func aCancellationWinsOverAFailureNotDeliveredYet() {
        let machine = Self.failedInACallback()
        #expect(machine.cancelRequested() == .abort)
    }

    @Test func aTransferWaitingForItsNextRedirectIsAborted() {
        var machine = TransferStateMachineTests.machine(.droppingRedirectBody)
        #expect(machine.responseEnded(succeeded: true, status: 302, hasLocation: true) == .followRedirect)
        #expect(machine.redirectTarget("http://127.0.0.1:1/next", now: .now, origin: "http://127.0.0.1:1") == .follow)
        #expect(machine.cancelRequested() == .abort)
    }

    @Test func aCancellationAfterTheOutcomeWasDeliveredDoesNothing() {
        var machine = TransferStateMachineTests.machine(.receivingBody)
        #expect(machine.responseEnded(succeeded: true, status: 200, hasLocation: false) == .finish)
        machine.settle()
        #expect(machine.cancelRequested() == .none)
        #expect(!machine.bodyStarted)
    }

    @Test func everyPathSettlesOnce() {
        // A start that failed, a finished response, a failed one and a cancellation: each
        // leaves the machine settled.
        var unstarted = Machine(hop: TransferStateMachineTests.hop())
        unstarted.settle()
        var failed = Self.failedInACallback()
        #expect(failed.responseEnded(succeeded: false, status: 200, hasLocation: false) != .finish)
        failed.settle()
        for machine in [unstarted, failed] {
            guard case .settled = machine.state else { Issue.record("\(machine.state)"); continue }
        }
    }
}

/// An event that cannot arrive in a phase stops the program, naming the phase: one exit test
/// per event, each in a phase where libcurl cannot deliver it.
@Suite struct TransferStateMachineImpossibleEventTests {
    @Test func startingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachine(hop: TransferStateMachineTests.hop())
            machine.started(TransferStateMachineTests.limits())
            machine.started(TransferStateMachineTests.limits())
        }
    }

    @Test func aHeadLineBeforeTheStartStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachine(hop: TransferStateMachineTests.hop())
            _ = machine.headLineArrived(fits: true, headLimit: 10)
        }
    }

    @Test func bodyAfterTheOutcomeStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.receivingBody)
            _ = machine.responseEnded(succeeded: true, status: 200, hasLocation: false)
            _ = machine.bodyArrived(count: 1, collected: 0, status: 200, hasLocation: false)
        }
    }

    @Test func aCallbackFailingWhileTheRedirectIsReadStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.awaitingHead)
            _ = machine.responseEnded(succeeded: true, status: 302, hasLocation: true)
            machine.callbackFailed(CurlError(.readError, message: "late"))
        }
    }

    @Test func aResponseEndingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.receivingBody)
            _ = machine.responseEnded(succeeded: true, status: 200, hasLocation: false)
            _ = machine.responseEnded(succeeded: true, status: 200, hasLocation: false)
        }
    }

    @Test func settlingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.receivingBody)
            machine.settle()
            machine.settle()
        }
    }

    @Test func aStartForARunningTransferStops() async {
        await #expect(processExitsWith: .failure) {
            _ = TransferStateMachineTests.machine(.awaitingHead).startRequested()
        }
    }

    @Test func aCancellationBetweenAResponsesEndAndItsOutcomeStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.receivingBody)
            _ = machine.responseEnded(succeeded: true, status: 200, hasLocation: false)
            _ = machine.cancelRequested()
        }
    }

    @Test func aCallbackAfterTheOutcomeStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.receivingBody)
            machine.settle()
            _ = machine.headLineArrived(fits: true, headLimit: 10)
        }
    }

    @Test func aRedirectTargetWithoutARedirectStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TransferStateMachineTests.machine(.awaitingHead)
            _ = machine.redirectTarget("http://127.0.0.1:1/", now: .now, origin: "http://127.0.0.1:1")
        }
    }
}

// MARK: A streamed body

extension TransferStateMachineTests {
    static func streaming(maxRedirects: Int = 5) -> Machine {
        var machine = Machine(hop: hop())
        machine.started(Machine.Limits(maxRedirects: maxRedirects, deadline: nil, body: .stream))
        return machine
    }

    @Test func theFinalHeadIsDeliveredWhenItEndsAndItsBodyStreams() {
        var machine = Self.streaming()
        #expect(machine.headEnded(status: 200, hasLocation: false) == .deliverHead)
        guard case .receivingBody = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.bodyArrived(count: 10_000_000, collected: 0, status: 200, hasLocation: false) == .stream, "no body limit on a stream")
        // Trailers end with a blank line too: nothing more is delivered.
        #expect(machine.headEnded(status: 200, hasLocation: false) == .none)
        #expect(machine.responseEnded(succeeded: true, status: 200, hasLocation: false) == .finish)
    }

    @Test(arguments: [100, 102, 103])
    func anInterimHeadDeliversNothing(status: Int) {
        var machine = Self.streaming()
        #expect(machine.headEnded(status: status, hasLocation: false) == .none)
        guard case .awaitingHead = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.headEnded(status: 204, hasLocation: false) == .deliverHead)
    }

    @Test func aRedirectThatIsFollowedDeliversNothingAndItsBodyIsDropped() {
        var machine = Self.streaming()
        #expect(machine.headEnded(status: 302, hasLocation: true) == .none)
        guard case .droppingRedirectBody = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.bodyArrived(count: 10, collected: 0, status: 302, hasLocation: true) == .drop)
        #expect(machine.responseEnded(succeeded: true, status: 302, hasLocation: true) == .followRedirect)
        #expect(machine.redirectTarget("http://127.0.0.1:1/next", now: .now, origin: "http://127.0.0.1:1") == .follow)
        #expect(machine.headEnded(status: 200, hasLocation: false) == .deliverHead)
    }

    @Test func aRedirectThatIsNotFollowedIsTheStreamedResponse() {
        var noLocation = Self.streaming()
        #expect(noLocation.headEnded(status: 302, hasLocation: false) == .deliverHead)
        var noRedirects = Self.streaming(maxRedirects: 0)
        #expect(noRedirects.headEnded(status: 301, hasLocation: true) == .deliverHead)
    }

    @Test(arguments: [Machine.BodyDestination.memory(limit: 100), .file])
    func aHeadEndsWithoutAnEventWhenTheBodyIsNotStreamed(_ destination: Machine.BodyDestination) {
        var machine = Machine(hop: Self.hop())
        machine.started(Machine.Limits(maxRedirects: 5, deadline: nil, body: destination))
        #expect(machine.headEnded(status: 200, hasLocation: false) == .none)
        guard case .awaitingHead = machine.state else { Issue.record("\(machine.state)"); return }
    }
}
