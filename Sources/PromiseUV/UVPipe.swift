internal import Glibc
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
        var pair: [Int32] = [-1, -1]
        guard openPipe(&pair) == 0 else {
            let code = errno
            throw UVError(UVError.Code(uvCode: -code), operation: "pipe2", detail: "opening a UVPipe: \(ErrnoText.describe(code))")
        }
        ends = Lock((read: pair[0], write: pair[1]))
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

/// `pipe2(ends, O_CLOEXEC)`; `pipe2` is a GNU function that Glibc's Swift module does not
/// import, looked up once (`pipe` then `FD_CLOEXEC` on each end without it).
private func openPipe(_ ends: inout [Int32]) -> Int32 {
    if let pipe2 = pipeWithFlags { return pipe2(&ends, O_CLOEXEC) }
    guard pipe(&ends) == 0 else { return -1 }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return 0
}

private let pipeWithFlags: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
}()
