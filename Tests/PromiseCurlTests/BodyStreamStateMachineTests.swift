import Testing

@testable import PromiseCurl

/// A streamed body's buffer, alone: every event in every state it can arrive in, with the
/// waiter a number. No libcurl, no thread, no timing.
@Suite struct BodyStreamStateMachineTests {
    typealias Machine = BodyStreamStateMachine<Int>

    static func chunk(_ count: Int, _ value: UInt8 = 7) -> [UInt8] { [UInt8](repeating: value, count: count) }

    static func isBuffering(_ machine: Machine, _ flow: Machine.Flow) -> Bool {
        if case .buffering(_, let found) = machine.state { return found == flow }
        return false
    }

    @Test func chunksAreBufferedUpToTheLimitThenTheTransferPauses() {
        var machine = Machine(limit: 100)
        guard case .buffered = machine.chunkArrived(Self.chunk(60)) else { Issue.record("\(machine.state)"); return }
        guard case .buffered = machine.chunkArrived(Self.chunk(40)) else { Issue.record("\(machine.state)"); return }
        #expect(machine.bufferedBytes == 100)
        guard case .pause = machine.chunkArrived(Self.chunk(1)) else { Issue.record("the 101st byte pauses: \(machine.state)"); return }
        #expect(Self.isBuffering(machine, .paused))
        #expect(machine.pauses == 1)
        // While paused every chunk is refused again, and it counts as one pause.
        guard case .pause = machine.chunkArrived(Self.chunk(1)) else { Issue.record("\(machine.state)"); return }
        #expect(machine.pauses == 1)
        #expect(machine.bufferedBytes == 100)
        #expect(machine.mostBuffered == 100)
    }

    @Test func aChunkLargerThanTheLimitIsTakenWhenTheBufferIsEmpty() {
        var machine = Machine(limit: 10)
        guard case .buffered = machine.chunkArrived(Self.chunk(5000)) else { Issue.record("\(machine.state)"); return }
        #expect(machine.mostBuffered == 5000)
        guard case .pause = machine.chunkArrived(Self.chunk(1)) else { Issue.record("\(machine.state)"); return }
    }

    @Test(arguments: [Int.min, -1, 0])
    func aLimitBelowOneIsOne(_ limit: Int) {
        var machine = Machine(limit: limit)
        #expect(machine.limit == 1)
        guard case .buffered = machine.chunkArrived(Self.chunk(3)) else { Issue.record("\(machine.state)"); return }
        guard case .pause = machine.chunkArrived(Self.chunk(1)) else { Issue.record("\(machine.state)"); return }
    }

    @Test func readingResumesThePausedTransferAtHalfTheLimit() {
        var machine = Machine(limit: 100)
        for _ in 0..<4 { _ = machine.chunkArrived(Self.chunk(25)) }
        _ = machine.chunkArrived(Self.chunk(25))  // paused with 100 buffered
        guard case .chunk(let first) = machine.next(orWait: nil) else { Issue.record("75 left is above half: \(machine.state)"); return }
        #expect(first.count == 25)
        #expect(Self.isBuffering(machine, .paused))
        guard case .chunkAndResume = machine.next(orWait: nil) else { Issue.record("50 left is half: \(machine.state)"); return }
        #expect(Self.isBuffering(machine, .flowing))
        guard case .buffered = machine.chunkArrived(Self.chunk(25)) else { Issue.record("resumed: \(machine.state)"); return }
        guard case .chunk = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
    }

    @Test func chunksComeOutInOrder() {
        var machine = Machine(limit: 1 << 20)
        for value in 0..<200 { _ = machine.chunkArrived(Self.chunk(3, UInt8(value))) }
        for value in 0..<200 {
            guard case .chunk(let chunk) = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
            #expect(chunk == Self.chunk(3, UInt8(value)))
        }
        #expect(machine.bufferedBytes == 0)
    }

    @Test func aWaitingConsumerGetsTheChunksOfOnePassWithOneWake() {
        var machine = Machine(limit: 100)
        guard case .wait = machine.next(orWait: nil) else { Issue.record("nothing buffered: \(machine.state)"); return }
        guard case .buffering = machine.state else { Issue.record("asking without a waiter stores nothing: \(machine.state)"); return }
        guard case .wait = machine.next(orWait: 1) else { Issue.record("\(machine.state)"); return }
        guard case .consumerWaiting(1) = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .wakeAfterPass = machine.chunkArrived(Self.chunk(30, 1)) else { Issue.record("\(machine.state)"); return }
        guard case .buffered = machine.chunkArrived(Self.chunk(30, 2)) else { Issue.record("one wake per pass: \(machine.state)"); return }
        #expect(machine.bufferedBytes == 60)
        guard case .wake(1, let first, resume: false) = machine.passEnded() else { Issue.record("\(machine.state)"); return }
        #expect(first == Self.chunk(30, 1))
        guard case .none = machine.passEnded() else { Issue.record("woken once: \(machine.state)"); return }
        guard case .chunk(let second) = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
        #expect(second == Self.chunk(30, 2))
    }

    @Test func theBoundHoldsWhileAWakeIsPending() {
        var machine = Machine(limit: 50)
        _ = machine.next(orWait: 1)
        _ = machine.chunkArrived(Self.chunk(30))
        guard case .pause = machine.chunkArrived(Self.chunk(30)) else { Issue.record("60 > 50: \(machine.state)"); return }
        #expect(machine.pauses == 1)
        guard case .wake(1, _, resume: true) = machine.passEnded() else { Issue.record("the buffer is empty again: \(machine.state)"); return }
        #expect(Self.isBuffering(machine, .flowing))
    }

    @Test func aPendingWakeIsCancelledOrEndedWithTheConsumerWoken() {
        var cancelled = Machine(limit: 50)
        _ = cancelled.next(orWait: 1)
        _ = cancelled.chunkArrived(Self.chunk(10))
        guard case .stopTransferAndWake(1) = cancelled.consumerCancelled() else { Issue.record("\(cancelled.state)"); return }
        guard case .none = cancelled.passEnded() else { Issue.record("\(cancelled.state)"); return }

        var ended = Machine(limit: 50)
        _ = ended.next(orWait: 2)
        _ = ended.chunkArrived(Self.chunk(10, 1))
        _ = ended.chunkArrived(Self.chunk(10, 2))
        guard case .wakeWithChunk(2, let first) = ended.transferEnded(.complete) else { Issue.record("\(ended.state)"); return }
        #expect(first == Self.chunk(10, 1))
        guard case .chunk(let second) = ended.next(orWait: nil) else { Issue.record("\(ended.state)"); return }
        #expect(second == Self.chunk(10, 2))
        guard case .end = ended.next(orWait: nil) else { Issue.record("\(ended.state)"); return }
    }

    @Test func aSecondWaiterIsRefused() {
        var machine = Machine(limit: 100)
        _ = machine.next(orWait: 1)
        guard case .fail(let error as CurlError) = machine.next(orWait: 2) else { Issue.record("\(machine.state)"); return }
        #expect(error.code == .invalidArgument)
        guard case .consumerWaiting(1) = machine.state else { Issue.record("the first waiter stays: \(machine.state)"); return }
    }

    @Test func theEndComesAfterWhatIsBuffered() {
        var machine = Machine(limit: 100)
        _ = machine.chunkArrived(Self.chunk(10))
        guard case .none = machine.transferEnded(.complete) else { Issue.record("\(machine.state)"); return }
        guard case .chunk = machine.next(orWait: 1) else { Issue.record("\(machine.state)"); return }
        guard case .end = machine.next(orWait: 1) else { Issue.record("\(machine.state)"); return }
        guard case .end = machine.next(orWait: nil) else { Issue.record("the end stays: \(machine.state)"); return }
    }

    @Test func aFailureComesAfterWhatIsBufferedThenTheEnd() {
        var machine = Machine(limit: 100)
        _ = machine.chunkArrived(Self.chunk(10))
        _ = machine.transferEnded(.failed(CurlError(.partialFile, message: "cut")))
        _ = machine.transferEnded(.complete)  // a later ending is ignored
        guard case .chunk = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
        guard case .fail(let error as CurlError) = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
        #expect(error.code == .partialFile)
        guard case .end = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
    }

    @Test func theEndWakesAWaitingConsumer() {
        var complete = Machine(limit: 100)
        _ = complete.next(orWait: 4)
        guard case .wake(4, .complete) = complete.transferEnded(.complete) else { Issue.record("\(complete.state)"); return }
        guard case .finished = complete.state else { Issue.record("\(complete.state)"); return }

        var failed = Machine(limit: 100)
        _ = failed.next(orWait: 5)
        guard case .wake(5, .failed(let error as CurlError)) = failed.transferEnded(.failed(CurlError(.shutdown, message: "down"))) else {
            Issue.record("\(failed.state)")
            return
        }
        #expect(error.code == .shutdown)
    }

    @Test func cancellingWhileBufferingStopsTheTransferAndTheNextReadThrows() {
        var machine = Machine(limit: 10)
        _ = machine.chunkArrived(Self.chunk(10))
        _ = machine.chunkArrived(Self.chunk(10))  // paused
        guard case .stopTransfer = machine.consumerCancelled() else { Issue.record("\(machine.state)"); return }
        #expect(machine.bufferedBytes == 0, "the buffer is dropped")
        guard case .discard = machine.chunkArrived(Self.chunk(10)) else { Issue.record("late chunks are dropped: \(machine.state)"); return }
        guard case .none = machine.transferEnded(.failed(CancellationError())) else { Issue.record("\(machine.state)"); return }
        guard case .fail(let error) = machine.next(orWait: 1), error is CancellationError else { Issue.record("\(machine.state)"); return }
        guard case .end = machine.next(orWait: 1) else { Issue.record("\(machine.state)"); return }
        guard case .none = machine.consumerCancelled() else { Issue.record("\(machine.state)"); return }
    }

    @Test func cancellingWhileWaitingStopsTheTransferAndWakesTheConsumer() {
        var machine = Machine(limit: 10)
        _ = machine.next(orWait: 9)
        guard case .stopTransferAndWake(9) = machine.consumerCancelled() else { Issue.record("\(machine.state)"); return }
        guard case .discard = machine.chunkArrived(Self.chunk(1)) else { Issue.record("\(machine.state)"); return }
        guard case .end = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
    }

    @Test func cancellingAfterTheTransferEndedDropsTheRestWithoutStoppingAnything() {
        var machine = Machine(limit: 10)
        _ = machine.chunkArrived(Self.chunk(5))
        _ = machine.transferEnded(.complete)
        guard case .none = machine.consumerCancelled() else { Issue.record("\(machine.state)"); return }
        guard case .fail(let error) = machine.next(orWait: nil), error is CancellationError else {
            Issue.record("a cut body never reads as complete: \(machine.state)")
            return
        }
    }

    @Test func cancellingAfterTheEndWasReadDoesNothing() {
        var machine = Machine(limit: 10)
        _ = machine.transferEnded(.complete)
        guard case .end = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
        guard case .none = machine.consumerCancelled() else { Issue.record("\(machine.state)"); return }
        guard case .end = machine.next(orWait: nil) else { Issue.record("\(machine.state)"); return }
    }

    @Test func theChunkBufferStaysFirstInFirstOutAcrossCompactions() {
        var buffer = ChunkBuffer()
        var pushed = 0, popped = 0, bytes = 0
        func chunk(_ index: Int) -> [UInt8] { [UInt8](repeating: UInt8(index % 256), count: 1 + index % 3) }
        for _ in 0..<10 {
            for _ in 0..<100 {
                buffer.append(chunk(pushed))
                bytes += 1 + pushed % 3
                pushed += 1
            }
            for _ in 0..<90 {
                #expect(buffer.removeFirst() == chunk(popped))
                bytes -= 1 + popped % 3
                popped += 1
            }
            #expect(buffer.bytes == bytes)
        }
        while !buffer.isEmpty {
            #expect(buffer.removeFirst() == chunk(popped))
            popped += 1
        }
        #expect(popped == pushed)
        #expect(buffer.bytes == 0)
    }
}
