import PromiseCore
internal import PromiseSystem

/// A pipe from one child to another, as a shell's `|`: one child's standard output (or
/// error) writes into it, another's standard input reads from it, and the bytes never pass
/// through this program.
///
/// ```swift
/// let pipe = try UVPipe()
/// let list = loop.start(UVCommand("ls", arguments: ["-1", "/etc"], standardOutput: .pipe(pipe)))
/// let count = loop.spawn(UVCommand("wc", arguments: ["-l"], standardInput: .pipe(pipe)))
/// ```
///
/// Each end goes to the first command that names it, when the command is handed to
/// ``UVLoop/spawn(_:)`` or ``UVLoop/start(_:)``: from then on this program holds that end no
/// more, so the reader sees end-of-file as soon as the writer (and whatever it started)
/// has exited, and the writer gets `EPIPE` once the reader is gone, as in a shell. A second
/// command naming an end already given away is refused with
/// ``UVError/Code-swift.struct/invalidArgument``. An end that no command took is closed
/// when the `UVPipe` is deallocated; a child that reads from a pipe nothing writes to reads
/// end-of-file at once.
///
/// Safe to use from any thread.
public final class UVPipe: Sendable {
    /// The two ends, -1 once given to a command or closed.
    private let ends: Lock<(read: Int32, write: Int32)>

    /// Opens the pipe: a kernel pipe, as a shell's (a writer whose reader has gone gets
    /// `SIGPIPE`, not a socket's `ECONNRESET`), close-on-exec.
    ///
    /// - Throws: ``UVError`` with the code of `pipe2`'s `errno`, such as `EMFILE` when this
    ///   process has no descriptors left.
    public init() throws(UVError) {
        ends = Lock(try KernelPipe.open())
    }

    deinit {
        let (read, write) = ends.withLock { $0 }
        if read >= 0 { SystemCall.close(read) }
        if write >= 0 { SystemCall.close(write) }
    }

    /// Hands over the reading end, once; `nil` when it was given before.
    func takeReadingEnd() -> Int32? {
        ends.withLock { ends in
            guard ends.read >= 0 else { return nil }
            defer { ends.read = -1 }
            return ends.read
        }
    }

    /// Hands over the writing end, once; `nil` when it was given before.
    func takeWritingEnd() -> Int32? {
        ends.withLock { ends in
            guard ends.write >= 0 else { return nil }
            defer { ends.write = -1 }
            return ends.write
        }
    }
}
