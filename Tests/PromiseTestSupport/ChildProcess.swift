package import Glibc

/// Waits for child process `pid` to exit: its exit status, or 128 + the signal that ended it
/// (as a shell reports it), or -1 if it is not a child of this process.
///
/// It polls `waitpid(…, WNOHANG)` every 2 ms instead of blocking in `waitpid`: a blocked call
/// would hold one of the cooperative pool's threads (two on a 2-core machine) for as long as
/// the child runs, and every other test's task would queue behind it.
package func exitStatus(of pid: pid_t) async throws -> Int32 {
    var status: Int32 = 0
    while true {
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { break }
        if result < 0 && errno != EINTR { return -1 }
        try await Task.sleep(for: .milliseconds(2))
    }
    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}
