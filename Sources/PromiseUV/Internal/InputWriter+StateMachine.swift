/// The phases of a child's standard input written while it runs (``InputWriter``), and the
/// decisions between them: when queued writes go out, when the writer waits for room in the
/// pipe, when the pipe closes (everything written, or never) and how a failure ends it. Pure:
/// it never touches the descriptor and never settles a promise; ``InputWriter`` performs what
/// each event returns.
///
/// Generic over the error that ends a writer, which it carries and never inspects.
struct InputWriterStateMachine<Failure> {
    enum State {
        /// The child is not spawned yet: writes wait. `finishRequested` once `finish()` came.
        case awaitingSpawn(finishRequested: Bool)
        /// Writes go out as the pipe takes them. `waitingForRoom` while the pipe is full and
        /// the loop polls it for room.
        case open(waitingForRoom: Bool)
        /// `finish()` came with writes still queued: the pipe closes once they are out.
        case finishing(waitingForRoom: Bool)
        /// Everything was written and the pipe closed: the child read end-of-file.
        case finished
        /// Ended before finishing (the child closed its end or was reaped, the spawn failed,
        /// the loop shut down): every queued and later write fails with the error.
        case failed(Failure)
    }

    private(set) var state: State = .awaitingSpawn(finishRequested: false)

    // MARK: Writing

    enum WriteAction {
        /// Queue the write; `sendNow`: and send what is queued.
        case queue(sendNow: Bool)
        /// Refuse it: `finish()` was called.
        case refuseFinished
        /// Refuse it with the error that ended the writer.
        case refuse(Failure)
    }

    /// A write was asked for (loop thread).
    mutating func writeRequested() -> WriteAction {
        switch state {
        case .awaitingSpawn(finishRequested: false): return .queue(sendNow: false)
        case .open(let waitingForRoom): return .queue(sendNow: !waitingForRoom)
        case .awaitingSpawn(finishRequested: true), .finishing, .finished: return .refuseFinished
        case .failed(let failure): return .refuse(failure)
        }
    }

    enum SendAction {
        /// Send what is queued.
        case send
        /// Close the pipe and fulfil the promises of `finish()`: everything is out.
        case close
        /// Start polling the pipe for room.
        case waitForRoom
        /// Nothing.
        case none
    }

    /// The child was spawned with the pipe's other end as its standard input.
    mutating func spawned(hasQueuedWrites: Bool) -> SendAction {
        guard case .awaitingSpawn(let finishRequested) = state else {
            preconditionFailure("a child's standard input was told of a spawn twice (\(state))")
        }
        switch (finishRequested, hasQueuedWrites) {
        case (false, let queued):
            state = .open(waitingForRoom: false)
            return queued ? .send : .none
        case (true, true):
            state = .finishing(waitingForRoom: false)
            return .send
        case (true, false):
            state = .finished
            return .close
        }
    }

    /// A send found the pipe full.
    mutating func pipeFull() -> SendAction {
        switch state {
        case .open(waitingForRoom: false):
            state = .open(waitingForRoom: true)
        case .finishing(waitingForRoom: false):
            state = .finishing(waitingForRoom: true)
        case .awaitingSpawn, .open(waitingForRoom: true), .finishing(waitingForRoom: true), .finished, .failed:
            preconditionFailure("a child's standard input was full while it was not sending (\(state))")
        }
        return .waitForRoom
    }

    /// The poll found room in the pipe: it stops polling, and what is queued goes out.
    mutating func roomAvailable() -> SendAction {
        switch state {
        case .open(waitingForRoom: true):
            state = .open(waitingForRoom: false)
            return .send
        case .finishing(waitingForRoom: true):
            state = .finishing(waitingForRoom: false)
            return .send
        case .awaitingSpawn, .open(waitingForRoom: false), .finishing(waitingForRoom: false), .finished, .failed:
            preconditionFailure("a child's standard input had room while nobody waited for it (\(state))")
        }
    }

    /// Every queued write is out.
    mutating func queueEmptied() -> SendAction {
        switch state {
        case .open(waitingForRoom: false):
            return .none
        case .finishing(waitingForRoom: false):
            state = .finished
            return .close
        case .awaitingSpawn, .open(waitingForRoom: true), .finishing(waitingForRoom: true), .finished, .failed:
            preconditionFailure("a child's standard input emptied its queue while it was not sending (\(state))")
        }
    }

    // MARK: Ending

    enum FinishAction {
        /// Wait: the promise is fulfilled when the pipe closes, or rejected if it fails first.
        case wait
        /// Close the pipe now and fulfil the promise: nothing is queued.
        case close
        /// Fulfil the promise: the pipe was closed before.
        case fulfil
        /// Reject the promise with the error that ended the writer.
        case refuse(Failure)
    }

    /// `finish()` was called (loop thread).
    mutating func finishRequested(hasQueuedWrites: Bool) -> FinishAction {
        switch state {
        case .awaitingSpawn:
            state = .awaitingSpawn(finishRequested: true)
            return .wait
        case .open(let waitingForRoom):
            guard hasQueuedWrites else {
                state = .finished
                return .close
            }
            state = .finishing(waitingForRoom: waitingForRoom)
            return .wait
        case .finishing:
            return .wait
        case .finished:
            return .fulfil
        case .failed(let failure):
            return .refuse(failure)
        }
    }

    enum FailAction {
        /// Reject every queued write and waiting `finish()` with the error, and close the
        /// pipe (and the poll for room, if one waits).
        case fail(Failure)
        /// Nothing: the writer had ended already.
        case none
    }

    /// The writer cannot go on: the child closed its end or was reaped, the spawn failed, or
    /// the loop shut down. The first failure is kept.
    mutating func failed(_ failure: Failure) -> FailAction {
        switch state {
        case .awaitingSpawn, .open, .finishing:
            state = .failed(failure)
            return .fail(failure)
        case .finished, .failed:
            return .none
        }
    }
}
