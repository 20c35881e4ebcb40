import PromiseCore
import PromiseTesting
import Testing

@Suite struct CatchRecoverTests {
    @Test func catchSeesTheErrorAndPassesTheRejectionOn() {
        let seen = Recorder<SampleError>()
        let caught = Promise<Int>(SampleError(tag: 3)).catch { error in
            if let error = error as? SampleError { seen.append(error) }
        }
        #expect(outcome(of: caught).failureValue as? SampleError == SampleError(tag: 3))
        #expect(seen.events == [SampleError(tag: 3)])
    }

    @Test func catchDoesNotRunForAValue() throws {
        let calls = Counter()
        let caught = Promise(5).catch { _ in calls.increment() }
        #expect(try awaitPromise(caught) == 5)
        #expect(calls.value == 0)
    }

    @Test func catchSkipsCancellationUnlessThePolicySaysSo() {
        let defaultCalls = Counter()
        let allCalls = Counter()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let skipping = source.catch { _ in defaultCalls.increment() }
        let handling = source.catch(policy: .allErrors) { error in
            if error is CancellationError { allCalls.increment() }
        }
        source.cancel()
        #expect(outcome(of: skipping).failureValue is CancellationError)
        #expect(outcome(of: handling).failureValue is CancellationError)
        #expect(defaultCalls.value == 0)
        #expect(allCalls.value == 1)
    }

    @Test func recoverReplacesTheErrorWithAValue() throws {
        let recovered = Promise<Int>(SampleError()).recover { _ in 42 }
        #expect(try awaitPromise(recovered) == 42)
    }

    @Test func recoverCanThrowAnotherError() {
        let recovered = Promise<Int>(SampleError(tag: 1)).recover { _ in throw SampleError(tag: 2) }
        #expect(outcome(of: recovered).failureValue as? SampleError == SampleError(tag: 2))
    }

    @Test func recoverWithAPromiseAdoptsIt() throws {
        let recovered = Promise<Int>(SampleError()).recover { _ in Promise(7).delay(.milliseconds(1)) }
        #expect(try awaitPromise(recovered) == 7)
    }

    @Test func recoverLetsCancellationThroughByDefault() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let recovered = source.recover { _ in 1 }
        let recoveredAll = source.recover(policy: .allErrors) { _ in 2 }
        source.cancel()
        #expect(outcome(of: recovered).failureValue is CancellationError)
        #expect((try? outcome(of: recoveredAll).get()) == 2)
    }

    @Test func alwaysRunsForEveryOutcome() {
        let runs = Counter()
        let fulfilled = Promise(1).always { runs.increment() }
        let rejected = Promise<Int>(SampleError()).always { runs.increment() }
        let (cancelled, cancelledResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(cancelledResolver) {} }
        let afterCancel = cancelled.always { runs.increment() }
        cancelled.cancel()
        #expect((try? outcome(of: fulfilled).get()) == 1)
        #expect(outcome(of: rejected).failureValue is SampleError)
        #expect(outcome(of: afterCancel).failureValue is CancellationError)
        #expect(runs.value == 3)
    }

    @Test func validateRejectsWithValidationFailure() throws {
        let passes = Promise(4).validate { $0.isMultiple(of: 2) }
        let fails = Promise(5).validate { $0.isMultiple(of: 2) }
        #expect(try awaitPromise(passes) == 4)
        let error = try #require(outcome(of: fails).failureValue as? PromiseError)
        #expect(error.code == .validationFailure)
        #expect(PromiseError.Code.validationFailure ~= error)
    }
}
