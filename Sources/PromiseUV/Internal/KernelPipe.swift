internal import Glibc
import PromiseCore
internal import PromiseSystem

/// A close-on-exec kernel pipe, for ``UVPipe``.
enum KernelPipe {
    /// Opens one: its reading and writing ends.
    ///
    /// - Throws: ``UVError`` with the code of `pipe2`'s `errno`.
    static func open() throws(UVError) -> (read: Int32, write: Int32) {
        var pair: [Int32] = [-1, -1]
        guard openPipe(&pair) == 0 else {
            let code = errno
            throw UVError(UVError.Code(uvCode: -code), operation: "pipe2", detail: "opening a UVPipe: \(ErrnoText.describe(code))")
        }
        return (pair[0], pair[1])
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
