import Testing

@testable import PromiseCurl

/// A produced request body's buffer, alone: every event in every state it can arrive in, the
/// waiter a number. No libcurl, no task, no timing.
@Suite struct UploadStreamStateMachineTests {
    typealias Machine = UploadStreamStateMachine<Int>

    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 256) } }

    @Test func writesAreTakenWholeAndTheProducerWaitsPastTheLimit() {
        var machine = Machine(limit: 100, length: nil)
        guard case .proceed(resumeReader: false) = machine.write(Self.bytes(100)) else { Issue.record("\(machine.state)"); return }
        guard case .waitForRoom(resumeReader: false) = machine.write(Self.bytes(30)) else { Issue.record("\(machine.state)"); return }
        let waiting = machine.waitForRoom(1)
        #expect(waiting == .stored)
        // Reading down to 70 leaves it waiting; to 50 wakes it.
        guard case .bytes(let first, wake: nil) = machine.read(capacity: 60) else { Issue.record("\(machine.state)"); return }
        #expect(first == Array(Self.bytes(100)[..<60]))
        guard case .bytes(_, wake: 1) = machine.read(capacity: 20) else { Issue.record("\(machine.state)"); return }
        guard case .proceed = machine.write(Self.bytes(1)) else { Issue.record("\(machine.state)"); return }
    }

    @Test func aProducerFindingRoomAlreadyDoesNotWait() {
        var machine = Machine(limit: 100, length: nil)
        _ = machine.write(Self.bytes(150))
        _ = machine.read(capacity: 120)
        let room = machine.waitForRoom(1)
        #expect(room == .proceed)
    }

    @Test func anEmptyBufferPausesTheReaderAndTheNextWriteResumesIt() {
        var machine = Machine(limit: 100, length: nil)
        guard case .pause = machine.read(capacity: 16) else { Issue.record("\(machine.state)"); return }
        guard case .proceed(resumeReader: true) = machine.write(Self.bytes(5)) else { Issue.record("\(machine.state)"); return }
        guard case .bytes(let bytes, _) = machine.read(capacity: 16) else { Issue.record("\(machine.state)"); return }
        #expect(bytes == Self.bytes(5))
        guard case .proceed(resumeReader: false) = machine.write(Self.bytes(5)) else { Issue.record("not paused now: \(machine.state)"); return }
    }

    /// A writer used by two tasks at once: the second write fails with a clear error, and the
    /// one waiting for room goes on as if nothing happened.
    @Test func aWriteWhileAnotherWaitsForRoomFailsAndTheWaitingOneGoesOn() {
        var machine = Machine(limit: 100, length: nil)
        _ = machine.write(Self.bytes(150))
        #expect(machine.waitForRoom(1) == .stored)
        guard case .fail(let error, resumeReader: false) = machine.write(Self.bytes(1)) else { Issue.record("\(machine.state)"); return }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("one task at a time"), "\(error)")
        guard case .bytes(let bytes, wake: 1) = machine.read(capacity: 150) else { Issue.record("\(machine.state)"); return }
        #expect(bytes == Self.bytes(150))
    }

    /// A writer kept past the end of its closure: its write fails, and the complete body is sent
    /// as it was.
    @Test func aWriteAfterTheProducerFinishedFailsAndTheBodyStaysWhole() {
        var machine = Machine(limit: 100, length: nil)
        _ = machine.write(Self.bytes(10))
        _ = machine.producerFinished()
        guard case .fail(let error, resumeReader: false) = machine.write(Self.bytes(1)) else { Issue.record("\(machine.state)"); return }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("after its closure returned"), "\(error)")
        guard case .bytes(let bytes, nil) = machine.read(capacity: 100) else { Issue.record("\(machine.state)"); return }
        #expect(bytes == Self.bytes(10))
        guard case .end = machine.read(capacity: 100) else { Issue.record("\(machine.state)"); return }
    }

    @Test func theEndComesAfterTheBufferedBytes() {
        var machine = Machine(limit: 100, length: nil)
        _ = machine.write(Self.bytes(10))
        let resumes = machine.producerFinished()
        #expect(!resumes)
        guard case .bytes(let bytes, nil) = machine.read(capacity: 4) else { Issue.record("\(machine.state)"); return }
        #expect(bytes.count == 4)
        guard case .bytes(let rest, nil) = machine.read(capacity: 100) else { Issue.record("\(machine.state)"); return }
        #expect(rest.count == 6)
        guard case .end = machine.read(capacity: 100) else { Issue.record("\(machine.state)"); return }
    }

    @Test func finishingResumesAPausedReader() {
        var machine = Machine(limit: 100, length: nil)
        _ = machine.read(capacity: 16)
        let resumes = machine.producerFinished()
        #expect(resumes)
        guard case .end = machine.read(capacity: 16) else { Issue.record("\(machine.state)"); return }
    }

    @Test func theDeclaredLengthIsEnforcedBothWays() {
        var over = Machine(limit: 100, length: 10)
        guard case .proceed = over.write(Self.bytes(10)) else { Issue.record("\(over.state)"); return }
        guard case .fail(let failure, _) = over.write(Self.bytes(1)) else { Issue.record("\(over.state)"); return }
        #expect(failure.code == .invalidArgument)
        guard case .abort(let aborted) = over.read(capacity: 100) else { Issue.record("the reader aborts: \(over.state)"); return }
        #expect(aborted.message == failure.message)

        var under = Machine(limit: 100, length: 10)
        _ = under.write(Self.bytes(9))
        _ = under.producerFinished()
        guard case .abort(let short) = under.read(capacity: 100) else { Issue.record("\(under.state)"); return }
        #expect(short.message.contains("after 9 of the declared 10 bytes"))
    }

    @Test func aProducerFailureAbortsTheReader() {
        struct Gone: Error {}
        var machine = Machine(limit: 100, length: nil)
        _ = machine.read(capacity: 16)
        let resumes = machine.producerFailed(Gone())
        #expect(resumes, "the paused reader is resumed to abort")
        guard case .abort(let failure) = machine.read(capacity: 16) else { Issue.record("\(machine.state)"); return }
        #expect(failure.code == .readError)
        #expect(failure.underlying is Gone)
    }

    @Test func theTransferEndingWakesTheProducerAndFailsItsNextWrite() {
        var machine = Machine(limit: 10, length: nil)
        _ = machine.write(Self.bytes(20))
        _ = machine.waitForRoom(3)
        let woken = machine.transferEnded()
        #expect(woken == 3)
        guard case .fail(let failure, resumeReader: false) = machine.write(Self.bytes(1)) else { Issue.record("\(machine.state)"); return }
        #expect(failure.message.contains("ended before its body was sent"))
        let wokenAgain = machine.transferEnded()
        #expect(wokenAgain == nil)
        let resumesAfterEnd = machine.producerFinished()
        #expect(!resumesAfterEnd)
        let roomAfterEnd = machine.waitForRoom(4)
        #expect(roomAfterEnd == .proceed)
    }

    @Test(arguments: [Int.min, 0])
    func aLimitBelowOneIsOne(_ limit: Int) {
        var machine = Machine(limit: limit, length: nil)
        #expect(machine.limit == 1)
        guard case .waitForRoom = machine.write(Self.bytes(2)) else { Issue.record("\(machine.state)"); return }
    }
}
