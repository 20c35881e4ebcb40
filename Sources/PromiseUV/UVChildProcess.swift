import PromiseCore

/// A child process started with ``UVLoop/start(_:)``: its pid as soon as it runs, signals
/// while it runs, its exit as soon as it is reaped, and its whole result once its output pipes
/// have closed too.
///
/// ```swift
/// let server = loop.start(UVCommand("my-server", standardOutput: .inherit))
/// server.processID.then { pid in print("started as \(pid)") }
/// server.send(.hangup)                                // reload its configuration
/// server.exit.then { exit in print("server \(exit)") } // before its pipes close
/// ```
///
/// Node's `ChildProcess` in promises: ``processID`` is its `pid` once `spawn` is emitted,
/// ``exit`` its `exit` event, ``result`` its `close` event. ``result`` is what
/// ``UVLoop/spawn(_:)`` returns, with the same errors and the same cancellation: cancelling it
/// stops the child with its ``UVCommand/teardown``.
public final class UVChildProcess: Sendable {
    /// The child's process ID, as soon as it has been spawned (on the loop thread). Rejected
    /// with ``result``'s error when the child never starts (the command was refused, the
    /// loop shut down, the result cancelled first); such a rejection is not reported as
    /// unhandled, since ``result`` carries it too. Cancelling it stops nothing.
    public let processID: Promise<Int32>
    /// How the child ended, as soon as it has been reaped, before its output pipes have
    /// necessarily closed (a grandchild may hold them open). A stopped child's exit is the
    /// signal that ended it. Rejected as ``processID`` is when the child never starts.
    /// Cancelling it stops nothing.
    public let exit: Promise<UVProcessExit>
    /// The child's ``UVProcessResult`` once it has been reaped and its output pipes have
    /// closed, as ``UVLoop/spawn(_:)`` gives it. Cancelling it stops the child.
    public let result: Promise<UVProcessResult>
    /// The child's standard input, to write while it runs, when the command's
    /// ``UVCommand/standardInput`` is ``UVCommand/Input/writer``; `nil` otherwise.
    public let standardInput: UVStandardInput?
    /// The child's standard output as it arrives, when the command's
    /// ``UVCommand/standardOutput`` is ``UVCommand/Output/stream(bufferLimit:)``; `nil`
    /// otherwise. Fails with ``result``'s error when the child never starts.
    public let standardOutput: UVOutputStream?
    /// The child's standard error as it arrives, when the command's
    /// ``UVCommand/standardError`` is ``UVCommand/Output/stream(bufferLimit:)``; `nil`
    /// otherwise.
    public let standardError: UVOutputStream?
    private let core: LoopCore
    private let child: LoopOwned<ChildProcess>?

    init(
        core: LoopCore, child: LoopOwned<ChildProcess>?, processID: Promise<Int32>, exit: Promise<UVProcessExit>, result: Promise<UVProcessResult>,
        standardInput: UVStandardInput?, standardOutput: UVOutputStream?, standardError: UVOutputStream?
    ) {
        self.core = core
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.child = child
        self.processID = processID
        self.exit = exit
        self.result = result
    }

    /// Sets the window size of the child's terminal (``UVCommand/terminal``), from the loop
    /// thread: the kernel sends `SIGWINCH` to what runs in the terminal's foreground, which
    /// reads the new size (`stty size`, `TIOCGWINSZ`). Asked before the child has been spawned,
    /// the child starts with the new size.
    ///
    /// - Parameters:
    ///   - columns: The width, in character cells: 1 to ``UVCommand/Terminal/maximumSize``.
    ///   - rows: The height, in lines: 1 to ``UVCommand/Terminal/maximumSize``.
    /// - Returns: A promise fulfilled once the size is set; rejected with
    ///   ``UVError/Code-swift.struct/invalidArgument`` for a size out of range or a child
    ///   without a terminal, with libuv's `EBADF` once the terminal has closed (the child and
    ///   what it started closed it, or it never started), and with
    ///   ``UVError/Code-swift.struct/loopClosed`` when the loop was shut down.
    @discardableResult
    public func resizeTerminal(columns: Int, rows: Int) -> Promise<Void> {
        let resized = Promise<Void>.pending(resolvedOn: core.contextID)
        let size: (rows: UInt16, columns: UInt16)
        do throws(UVError) {
            size = try UVCommand.Terminal(columns: columns, rows: rows).checkedSize(operation: "ioctl")
        } catch {
            resized.reject(error)
            return resized
        }
        guard let child else {
            // Refused before it was queued: the result holds why.
            resized.reject(result.error ?? UVError(.loopClosed, operation: "ioctl", detail: "the terminal was not resized: the child never started"))
            return resized
        }
        if !child.run(.late, { $0.resizeTerminal(rows: size.rows, columns: size.columns, resized) }) {
            resized.reject(UVError(.loopClosed, operation: "ioctl", detail: "the UVLoop was shut down; the terminal was not resized"))
        }
        return resized
    }

    /// Sends `signal` to the child, or to its whole process group when it has one of its own
    /// (``UVCommand/ProcessGroup/ownGroup`` or ``UVCommand/ProcessGroup/ownSession``), from
    /// the loop thread.
    ///
    /// A signal asked for before the child has been spawned goes out once it is. Once the
    /// child has been reaped, nothing is sent (its pid may belong to another process by then)
    /// and the promise is rejected with libuv's `ESRCH`, operation `kill`.
    ///
    /// - Parameter signal: The signal, such as ``UVSignal/hangup`` or ``UVSignal/user1``.
    /// - Returns: A promise fulfilled once the signal was sent; rejected with `ESRCH` when the
    ///   child is not running (never started, or reaped), with the error of a `kill` that
    ///   failed (`EINVAL` for a number that is no signal, `EPERM` for a child this process may
    ///   not signal), or with ``UVError/Code-swift.struct/loopClosed`` when the loop was shut
    ///   down.
    @discardableResult
    public func send(_ signal: UVSignal) -> Promise<Void> {
        let sent = Promise<Void>.pending(resolvedOn: core.contextID)
        guard let child else {
            // Refused before it was queued: the result holds why.
            sent.reject(result.error ?? UVError(.loopClosed, operation: "kill", detail: "\(signal) was not sent: the child never started"))
            return sent
        }
        if !child.run(.late, { $0.deliver(signal, sent) }) {
            sent.reject(UVError(.loopClosed, operation: "kill", detail: "the UVLoop was shut down; \(signal) was not sent"))
        }
        return sent
    }
}
