import PromiseCore

/// The standard input of a running child, for a command started by ``UVLoop/start(_:)`` with
/// ``UVCommand/Input/writer``: bytes written while the child runs, with backpressure, then
/// end-of-file.
///
/// ```swift
/// let sorter = loop.start(UVCommand("sort", standardInput: .writer))
/// let input = sorter.standardInput!
/// input.write("pear\n")
/// input.write("apple\n")
/// input.finish()                          // sort reads end-of-file, then prints
/// let sorted = sorter.result.then { $0.outputText ?? "" }   // "apple\npear\n"
/// ```
///
/// Each call works from any thread; writes from one thread reach the child in the order they
/// were made. A write's promise is fulfilled once all its bytes are in the pipe: a child that
/// reads slowly, or not at all, keeps it pending, so a program that waits for each write
/// before the next holds no more than one write's bytes. This process never blocks on the
/// pipe and never receives `SIGPIPE` from it.
///
/// Node's `child.stdin` (`write`, `end`) and swift-subprocess's `StandardInputWriter` in
/// promises. Dropping the last reference to it finishes it, as ``finish()`` does, so a child
/// that reads its input to the end is never left waiting for more.
public final class UVStandardInput: Sendable {
    private let core: LoopCore
    private let child: LoopOwned<ChildProcess>?
    /// The child's result, whose error a writer of a refused command gives.
    private let result: Promise<UVProcessResult>

    init(core: LoopCore, child: LoopOwned<ChildProcess>?, result: Promise<UVProcessResult>) {
        self.core = core
        self.child = child
        self.result = result
    }

    deinit {
        guard child != nil else { return }
        let finished = Self.submit(core: core, child: child, result: result, operation: "finish") { writer, promise in writer.finish(promise) }
        // Nobody is left to handle how it ends: a child that had exited is the result's news.
        finished.catch(on: .inline) { _ in }
    }

    /// Writes `bytes` to the child's standard input, after the writes made before.
    ///
    /// Cancelling the promise drops what of the bytes has not gone out yet; what went out
    /// stays in the pipe, so a child reading records may see part of one.
    ///
    /// - Parameter bytes: The bytes; an empty array is fulfilled in its turn, sending nothing.
    /// - Returns: A promise fulfilled on the loop thread once every byte is in the pipe.
    ///   Rejected with ``UVError/Code-swift.struct/brokenPipe`` once the child has closed
    ///   its standard input, exited or been reaped (the rest of the bytes were not sent, and
    ///   later writes fail the same way), with ``UVError/Code-swift.struct/invalidArgument``
    ///   after ``finish()``, with ``UVError/Code-swift.struct/loopClosed`` when the loop shuts
    ///   down first, and with the error of ``UVChildProcess/result`` when the child never
    ///   started.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Promise<Void> {
        Self.submit(core: core, child: child, result: result, operation: "write") { writer, promise in writer.write(bytes, promise) }
    }

    /// Writes the UTF-8 bytes of `text`, as ``write(_:)-([UInt8])`` does.
    ///
    /// - Parameter text: The text.
    /// - Returns: The promise ``write(_:)-([UInt8])`` returns.
    @discardableResult
    public func write(_ text: String) -> Promise<Void> {
        write(Array(text.utf8))
    }

    /// Closes the child's standard input once every write made before has gone out: the child
    /// then reads end-of-file. Later writes are rejected. Calling it again changes nothing and
    /// returns a promise that settles the same way.
    ///
    /// - Returns: A promise fulfilled on the loop thread once the pipe is closed; rejected as
    ///   a write is when the writer fails before that.
    @discardableResult
    public func finish() -> Promise<Void> {
        Self.submit(core: core, child: child, result: result, operation: "finish") { writer, promise in writer.finish(promise) }
    }

    /// Runs `request` with the child's writer on the loop thread, or rejects its promise.
    private static func submit(
        core: LoopCore, child: LoopOwned<ChildProcess>?, result: Promise<UVProcessResult>, operation: String,
        _ request: @escaping @Sendable (InputWriter, Promise<Void>) -> Void
    ) -> Promise<Void> {
        let promise = Promise<Void>.pending(resolvedOn: core.contextID)
        guard let child else {
            // Refused before it was queued: the result holds why.
            promise.reject(result.error ?? UVError(.loopClosed, operation: operation, detail: "the child never started"))
            return promise
        }
        let queued = child.run(.late) { child in
            guard let writer = child.input else { preconditionFailure("a UVStandardInput for a child whose input is not .writer") }
            request(writer, promise)
        }
        if !queued {
            promise.reject(UVError(.loopClosed, operation: operation, detail: "the UVLoop was shut down; the child's standard input is closed"))
        }
        return promise
    }
}
