import Testing

@testable import PromiseSystem

/// Every shutdown edge case of ``Lifecycle``, on the pure value (waiters are plain numbers).
@Suite struct LifecycleTests {
    struct Refused: Error, Equatable {
        let reason: String
    }

    typealias Subject = Lifecycle<Int, Refused>

    private func result(_ step: Subject.ShutdownStep) -> Result<Void, Refused>? {
        if case .settled(let result) = step { return result }
        return nil
    }

    @Test func anOpenOwnerAdmitsWork() {
        let lifecycle = Subject(refusal: Refused(reason: "closed"))
        #expect(lifecycle.isAccepting && !lifecycle.isClosed)
        #expect((try? lifecycle.admit().get()) != nil)
    }

    @Test func theFirstShutdownBeginsDrainingAndRefusesNewWork() {
        var lifecycle = Subject(refusal: Refused(reason: "closed"))
        guard case .begin = lifecycle.shutdown(1) else {
            Issue.record("the first shutdown must begin draining")
            return
        }
        #expect(!lifecycle.isAccepting && !lifecycle.isClosed)
        guard case .failure(let refusal) = lifecycle.admit() else {
            Issue.record("a draining owner must refuse work")
            return
        }
        #expect(refusal == Refused(reason: "closed"))
    }

    @Test func laterShutdownsWaitAndAllWaitersAreSettledOnce() {
        var lifecycle = Subject(refusal: Refused(reason: "closed"))
        _ = lifecycle.shutdown(1)
        guard case .wait = lifecycle.shutdown(2), case .wait = lifecycle.shutdown(3) else {
            Issue.record("shutdowns while draining must wait")
            return
        }
        #expect(lifecycle.waiterCount == 3)
        let settled = lifecycle.finish(.success(()))
        #expect(settled == [1, 2, 3])
        #expect(lifecycle.isClosed && lifecycle.waiterCount == 0)
        // A second finish neither settles anyone again nor replaces the result.
        let late = lifecycle.finish(.failure(Refused(reason: "late")))
        #expect(late == [])
        let afterwards = lifecycle.shutdown(4)
        #expect((try? result(afterwards)?.get()) != nil, "the first result stands")
    }

    @Test func aShutdownAfterTheCloseIsSettledAtOnceWithItsResult() {
        var lifecycle = Subject(refusal: Refused(reason: "closed"))
        _ = lifecycle.shutdown(1)
        let settled = lifecycle.finish(.failure(Refused(reason: "close failed")))
        #expect(settled == [1])
        let afterwards = lifecycle.shutdown(2)
        guard case .failure(let failure) = result(afterwards) else {
            Issue.record("a shutdown after a failed close must see the failure")
            return
        }
        #expect(failure == Refused(reason: "close failed"))
        #expect(lifecycle.waiterCount == 0, "a settled waiter is not kept")
    }

    @Test func anOwnerThatNeverStartedIsClosedAndRefusesWithTheReason() {
        var lifecycle = Subject(refusal: Refused(reason: "closed"))
        lifecycle.failedToStart(Refused(reason: "pthread_create failed"))
        #expect(lifecycle.isClosed && !lifecycle.isAccepting)
        guard case .failure(let refusal) = lifecycle.admit() else {
            Issue.record("work must be refused")
            return
        }
        #expect(refusal == Refused(reason: "pthread_create failed"))
        let shutdown = lifecycle.shutdown(1)
        #expect((try? result(shutdown)?.get()) != nil, "shutting down what never started succeeds")
    }

    @Test func failedToStartAfterAShutdownBeganChangesNothing() {
        var lifecycle = Subject(refusal: Refused(reason: "closed"))
        _ = lifecycle.shutdown(1)
        lifecycle.failedToStart(Refused(reason: "too late"))
        #expect(!lifecycle.isClosed && lifecycle.refusal == Refused(reason: "closed"))
        let settled = lifecycle.finish(.success(()))
        #expect(settled == [1])
    }

    @Test func aCloseWithoutAShutdownRequestSettlesNoOne() {
        // An owner that ends by itself (its loop stopped) closes with no waiter.
        var lifecycle = Subject(refusal: Refused(reason: "closed"))
        let settled = lifecycle.finish(.success(()))
        #expect(settled == [])
        #expect(lifecycle.isClosed && !lifecycle.isAccepting)
    }
}

/// ``Mailbox``: batches in order, one wake per sleep.
@Suite struct MailboxTests {
    @Test func anAwakeOwnerIsNeverWoken() {
        var mailbox = Mailbox<Int>()
        let wakes = [mailbox.post(1), mailbox.post(2)]
        #expect(wakes == [false, false])
        var batch = [Int]()
        let took = mailbox.takeAll(into: &batch)
        #expect(took)
        #expect(batch == [1, 2] && mailbox.count == 0)
    }

    @Test func aSleepingOwnerIsWokenOnceForABurst() {
        var mailbox = Mailbox<Int>()
        var batch = [Int]()
        let tookNothing = mailbox.takeAll(into: &batch)
        #expect(!tookNothing, "nothing to take: the owner goes to sleep")
        #expect(mailbox.isOwnerAsleep)
        let wakes = [mailbox.post(1), mailbox.post(2), mailbox.post(3)]
        #expect(wakes == [true, false, false], "only the first message wakes the sleeping owner")
        #expect(!mailbox.isOwnerAsleep)
        let took = mailbox.takeAll(into: &batch)
        #expect(took && batch == [1, 2, 3])
        batch.removeAll(keepingCapacity: true)
        let tookNothingAgain = mailbox.takeAll(into: &batch)
        #expect(!tookNothingAgain)
        let wokenAgain = mailbox.post(4)
        #expect(wokenAgain, "asleep again: woken again")
    }

    @Test func anOwnerPollingForWorkIsNotWokenUntilItGoesToSleep() {
        var mailbox = Mailbox<Int>()
        var batch = [Int]()
        let tookNothing = mailbox.takeAllStayingAwake(into: &batch)
        #expect(!tookNothing && !mailbox.isOwnerAsleep, "polling: still awake")
        #expect(mailbox.post(1) == false, "a post while the owner polls needs no wake-up")
        let took = mailbox.takeAllStayingAwake(into: &batch)
        #expect(took && batch == [1])
        batch.removeAll(keepingCapacity: true)
        // The polling ends: the owner goes to sleep the usual way, and the next post wakes it.
        let tookNothingAgain = mailbox.takeAll(into: &batch)
        #expect(!tookNothingAgain && mailbox.isOwnerAsleep)
        #expect(mailbox.post(2) == true)
    }

    @Test func batchesKeepThePostingOrderAcrossTurns() {
        var mailbox = Mailbox<Int>()
        var seen = [Int]()
        var batch = [Int]()
        var next = 0
        for burst in [1, 5, 0, 100, 3] {
            for _ in 0..<burst {
                _ = mailbox.post(next)
                next += 1
            }
            if mailbox.takeAll(into: &batch) {
                seen += batch
                batch.removeAll(keepingCapacity: true)
            }
        }
        #expect(seen == Array(0..<next))
    }

    @Test func anEventLoopIsWokenForEveryPostAfterItReturnsToItsPoll() {
        // A loop that is polling from the start: the first post wakes it.
        var mailbox = Mailbox<Int>(ownerAsleep: true)
        let first = [mailbox.post(1), mailbox.post(2)]
        #expect(first == [true, false])
        var batch = [Int]()
        let hadBeenWoken = mailbox.takeAllBeforeWaiting(into: &batch)
        #expect(hadBeenWoken && batch == [1, 2])
        // Back in its poll without looking again: the next post wakes it, even though the
        // last take found messages.
        let second = mailbox.post(3)
        #expect(second)
        batch.removeAll(keepingCapacity: true)
        mailbox.takeAllBeforeWaiting(into: &batch)
        #expect(batch == [3])
        // A wake without a message, coalesced like a post.
        let wakes = [mailbox.requestWake(), mailbox.requestWake(), mailbox.post(4)]
        #expect(wakes == [true, false, false])
        batch.removeAll(keepingCapacity: true)
        let woken = mailbox.takeAllBeforeWaiting(into: &batch)
        #expect(woken && batch == [4])
        batch.removeAll(keepingCapacity: true)
        let spurious = mailbox.takeAllBeforeWaiting(into: &batch)
        #expect(!spurious && batch.isEmpty, "a take with no wake since the last one says so")
    }
}
