import Testing

@testable import PromiseUV

/// `InputWriterStateMachine` alone: every transition, with no loop, descriptor or process.
@Suite struct InputWriterStateMachineTests {
    typealias Machine = InputWriterStateMachine<String>

    /// A machine driven into `open`, waiting for room or not.
    private func open(waitingForRoom: Bool) -> Machine {
        var machine = Machine()
        _ = machine.spawned(hasQueuedWrites: false)
        if waitingForRoom {
            _ = machine.writeRequested()
            _ = machine.pipeFull()
        }
        return machine
    }

    @Test func writesWaitForTheSpawnThenGoOut() {
        var machine = Machine()
        guard case .queue(sendNow: false) = machine.writeRequested() else { Issue.record("a write before the spawn was sent"); return }
        guard case .send = machine.spawned(hasQueuedWrites: true) else { Issue.record("the spawn did not send the queue"); return }
        guard case .none = machine.queueEmptied() else { Issue.record("an empty queue acted while open"); return }
        guard case .queue(sendNow: true) = machine.writeRequested() else { Issue.record("a write while open was not sent"); return }
        guard case .open(waitingForRoom: false) = machine.state else { Issue.record("state \(machine.state)"); return }
    }

    @Test func aFullPipeWaitsForRoomAndQueuesTheWritesAfter() {
        var machine = open(waitingForRoom: false)
        _ = machine.writeRequested()
        guard case .waitForRoom = machine.pipeFull() else { Issue.record("a full pipe did not wait"); return }
        guard case .queue(sendNow: false) = machine.writeRequested() else { Issue.record("a write was sent into a full pipe"); return }
        guard case .send = machine.roomAvailable() else { Issue.record("room did not send"); return }
        guard case .open(waitingForRoom: false) = machine.state else { Issue.record("state \(machine.state)"); return }
    }

    @Test func finishClosesAtOnceOrAfterTheQueue() {
        var idle = open(waitingForRoom: false)
        guard case .close = idle.finishRequested(hasQueuedWrites: false) else { Issue.record("an idle finish did not close"); return }
        guard case .finished = idle.state else { Issue.record("state \(idle.state)"); return }
        guard case .fulfil = idle.finishRequested(hasQueuedWrites: false) else { Issue.record("a second finish did not fulfil"); return }
        guard case .refuseFinished = idle.writeRequested() else { Issue.record("a write after finish was taken"); return }

        var busy = open(waitingForRoom: true)
        guard case .wait = busy.finishRequested(hasQueuedWrites: true) else { Issue.record("a busy finish did not wait"); return }
        guard case .finishing(waitingForRoom: true) = busy.state else { Issue.record("state \(busy.state)"); return }
        guard case .refuseFinished = busy.writeRequested() else { Issue.record("a write while finishing was taken"); return }
        guard case .wait = busy.finishRequested(hasQueuedWrites: true) else { Issue.record("a second finish did not wait"); return }
        guard case .send = busy.roomAvailable() else { Issue.record("room did not send while finishing"); return }
        guard case .waitForRoom = busy.pipeFull() else { Issue.record("a full pipe did not wait while finishing"); return }
        _ = busy.roomAvailable()
        guard case .close = busy.queueEmptied() else { Issue.record("the emptied queue did not close"); return }
        guard case .finished = busy.state else { Issue.record("state \(busy.state)"); return }
    }

    @Test func aFinishBeforeTheSpawnClosesOnceTheQueueIsOut() {
        var empty = Machine()
        guard case .wait = empty.finishRequested(hasQueuedWrites: false) else { Issue.record("finish before the spawn did not wait"); return }
        guard case .refuseFinished = empty.writeRequested() else { Issue.record("a write after finish was taken"); return }
        guard case .close = empty.spawned(hasQueuedWrites: false) else { Issue.record("the spawn did not close"); return }

        var queued = Machine()
        _ = queued.writeRequested()
        _ = queued.finishRequested(hasQueuedWrites: true)
        guard case .send = queued.spawned(hasQueuedWrites: true) else { Issue.record("the spawn did not send"); return }
        guard case .finishing(waitingForRoom: false) = queued.state else { Issue.record("state \(queued.state)"); return }
    }

    @Test func theFirstFailureEndsEveryStateThatIsNotOver() {
        var finishing = open(waitingForRoom: true)
        _ = finishing.finishRequested(hasQueuedWrites: true)
        for var machine in [Machine(), open(waitingForRoom: false), open(waitingForRoom: true), finishing] {
            guard case .fail("reaped") = machine.failed("reaped") else { Issue.record("no failure from \(machine.state)"); return }
            guard case .failed("reaped") = machine.state else { Issue.record("state \(machine.state)"); return }
            guard case .none = machine.failed("later") else { Issue.record("a second failure acted"); return }
            guard case .refuse("reaped") = machine.writeRequested() else { Issue.record("a write after the failure was taken"); return }
            guard case .refuse("reaped") = machine.finishRequested(hasQueuedWrites: false) else { Issue.record("finish after the failure"); return }
        }
        var finished = open(waitingForRoom: false)
        _ = finished.finishRequested(hasQueuedWrites: false)
        guard case .none = finished.failed("reaped") else { Issue.record("a failure after the pipe closed acted"); return }
        guard case .finished = finished.state else { Issue.record("state \(finished.state)"); return }
    }

    @Test func impossibleEventsStopTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var machine = InputWriterStateMachine<String>()
            _ = machine.spawned(hasQueuedWrites: false)
            _ = machine.spawned(hasQueuedWrites: false)
        }
        await #expect(processExitsWith: .failure) {
            var machine = InputWriterStateMachine<String>()
            _ = machine.pipeFull()
        }
        await #expect(processExitsWith: .failure) {
            var machine = InputWriterStateMachine<String>()
            _ = machine.spawned(hasQueuedWrites: false)
            _ = machine.roomAvailable()
        }
        await #expect(processExitsWith: .failure) {
            var machine = InputWriterStateMachine<String>()
            _ = machine.queueEmptied()
        }
    }
}
