import Testing

@testable import PromiseUV

/// A streamed output's buffer and its one consumer, alone: no loop, no pipe, no task. A
/// waiter is a string naming it.
@Suite struct OutputStreamStateMachineTests {
    typealias Machine = OutputStreamStateMachine<String>

    static func piece(_ count: Int, _ byte: UInt8 = 0x61) -> [UInt8] { [UInt8](repeating: byte, count: count) }

    @Test func aWaitingConsumerGetsThePieceDirectly() {
        var machine = Machine(limit: 10)
        guard case .wait = machine.nextRequested("first") else { Issue.record("did not wait"); return }
        guard case .resume("first", let piece) = machine.received(Self.piece(3)) else { Issue.record("not handed over"); return }
        #expect(piece.count == 3)
        #expect(machine.bufferedBytes == 0)
    }

    @Test func theLoopPausesAtTheLimitAndResumesOnceTakenBelowIt() {
        var machine = Machine(limit: 10)
        guard case .none = machine.received(Self.piece(6, 1)) else { Issue.record("paused under the limit"); return }
        guard case .pauseReading = machine.received(Self.piece(6, 2)) else { Issue.record("not paused at the limit"); return }
        #expect(machine.bufferedBytes == 12)
        // A piece the pipe delivered after the stop (one read in flight) is kept, not paused again.
        guard case .none = machine.received(Self.piece(1, 3)) else { Issue.record("paused twice"); return }
        guard case .piece(let first, resumeReading: true) = machine.nextRequested("a") else { Issue.record("no resume under the limit"); return }
        #expect(first == Self.piece(6, 1))
        guard case .piece(let second, resumeReading: false) = machine.nextRequested("b") else { Issue.record("resumed twice"); return }
        #expect(second == Self.piece(6, 2))
        guard case .piece(let third, resumeReading: false) = machine.nextRequested("c") else { Issue.record("lost a piece"); return }
        #expect(third == Self.piece(1, 3))
        guard case .wait = machine.nextRequested("d") else { Issue.record("did not wait on an empty buffer"); return }
    }

    @Test func takingAPieceThatLeavesTheBufferFullDoesNotResume() {
        var machine = Machine(limit: 4)
        _ = machine.received(Self.piece(4, 1))
        _ = machine.received(Self.piece(4, 2))
        guard case .piece(_, resumeReading: false) = machine.nextRequested("a") else { Issue.record("resumed with a full buffer"); return }
        #expect(machine.bufferedBytes == 4)
    }

    @Test func theEndComesAfterWhatWasBuffered() {
        var machine = Machine(limit: 100)
        _ = machine.received(Self.piece(2))
        guard case .none = machine.pipeEnded(nil) else { Issue.record("ended a consumer that did not wait"); return }
        guard case .piece = machine.nextRequested("a") else { Issue.record("lost the buffered piece"); return }
        guard case .end(nil) = machine.nextRequested("b") else { Issue.record("no end"); return }
        guard case .end(nil) = machine.nextRequested("c") else { Issue.record("no end after the end"); return }
    }

    @Test func aFailedReadEndsAWaitingConsumerWithItsError() {
        var machine = Machine(limit: 100)
        _ = machine.nextRequested("a")
        let error = UVError(.brokenPipe, operation: "read")
        guard case .finish("a", let ended?) = machine.pipeEnded(error) else { Issue.record("not ended with the error"); return }
        #expect(ended.code == .brokenPipe)
        guard case .none = machine.pipeEnded(nil) else { Issue.record("ended twice"); return }
    }

    @Test func aSecondWaiterIsRefused() {
        var machine = Machine(limit: 100)
        _ = machine.nextRequested("a")
        guard case .refuse("b") = machine.nextRequested("b") else { Issue.record("two waiters"); return }
        guard case .resume("a", _) = machine.received(Self.piece(1)) else { Issue.record("the first waiter lost its place"); return }
    }

    @Test func aCancelledWaiterIsGivenBackOnce() {
        var machine = Machine(limit: 100)
        _ = machine.nextRequested("a")
        #expect(machine.waiterCancelled() == "a")
        #expect(machine.waiterCancelled() == nil)
        guard case .none = machine.received(Self.piece(1)) else { Issue.record("handed to a cancelled waiter"); return }
        guard case .piece = machine.nextRequested("b") else { Issue.record("the piece was lost"); return }
    }

    @Test func aGoneConsumerDropsWhatArrivesAndResumesAPausedLoop() {
        var paused = Machine(limit: 2)
        _ = paused.received(Self.piece(2))
        let resume = paused.consumerGone()
        #expect(resume, "a paused loop must read again")
        #expect(paused.bufferedBytes == 0)
        guard case .none = paused.received(Self.piece(5)) else { Issue.record("kept output nobody reads"); return }
        #expect(paused.bufferedBytes == 0)
        var reading = Machine(limit: 2)
        let resumeReading = reading.consumerGone()
        #expect(!resumeReading, "a loop that reads needs nothing")
        guard case .none = reading.pipeEnded(nil) else { Issue.record("ended a gone consumer"); return }
    }
}

/// The events that cannot happen stop the process.
@Suite struct OutputStreamImpossibleEventTests {
    @Test func outputAfterTheEndStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = OutputStreamStateMachine<String>(limit: 1)
            _ = machine.pipeEnded(nil)
            _ = machine.received([1])
        }
    }

    @Test func aBufferOfNothingStops() async {
        await #expect(processExitsWith: .failure) {
            _ = OutputStreamStateMachine<String>(limit: 0)
        }
    }
}
