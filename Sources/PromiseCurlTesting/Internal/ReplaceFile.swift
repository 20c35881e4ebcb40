internal import Glibc
import PromiseCurl
internal import PromiseBasics

/// Writes `bytes` to a temporary sibling of `path` and renames it over `path`, so the file is
/// replaced whole or not at all. Throws a `CurlError` (`fileError`) naming the path.
func replaceFile(at path: String, with bytes: [UInt8]) throws {
    let temporary = path + ".scripted-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw fileError("creating", temporary) }
    if let code = bytes.withUnsafeBytes({ SystemCall.writeAll(fd, $0) }) {
        SystemCall.close(fd)
        unlink(temporary)
        throw fileError("writing", temporary, code: code)
    }
    SystemCall.close(fd)
    guard rename(temporary, path) == 0 else {
        let error = fileError("renaming into", path)
        unlink(temporary)
        throw error
    }
}

private func fileError(_ activity: String, _ path: String, code: Int32 = errno) -> CurlError {
    CurlError(.fileError, message: "\(activity) \(path) failed: \(String(cString: strerror(code)))")
}
