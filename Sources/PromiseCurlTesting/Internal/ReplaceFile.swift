internal import Glibc
import PromiseCurl

/// Writes `bytes` to a temporary sibling of `path` and renames it over `path`, so the file is
/// replaced whole or not at all. Throws a `CurlError` (`fileError`) naming the path.
func replaceFile(at path: String, with bytes: [UInt8]) throws {
    let temporary = path + ".scripted-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw fileError("creating", temporary) }
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else {
            let error = fileError("writing", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        written += count
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
        let error = fileError("renaming into", path)
        unlink(temporary)
        throw error
    }
}

private func fileError(_ activity: String, _ path: String) -> CurlError {
    CurlError(.fileError, message: "\(activity) \(path) failed: \(String(cString: strerror(errno)))")
}
