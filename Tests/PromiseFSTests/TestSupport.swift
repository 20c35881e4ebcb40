import Glibc
import PromiseFS
import Testing

/// A fresh directory under /tmp for one test, removed (with everything in it) by `cleanUp`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/promisefs-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else { throw FSError(FSError.Code(errno: errno), operation: "mkdtemp", path: "/tmp") }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func callAsFunction(_ name: String) -> String { "\(path)/\(name)" }

    /// Removes the directory through the raw shell tool, independent of the code under test.
    func cleanUp() {
        _ = system("rm -rf '\(path)'")
    }
}

/// Writes a file with plain libc, independent of the code under test.
func plainWrite(_ path: String, _ text: String, mode: mode_t = 0o644) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    precondition(fd >= 0, "test setup: cannot create \(path)")
    _ = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count - 1) }
    close(fd)
}

/// Reads a file with plain libc, or nil if it cannot be opened.
func plainRead(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The permission bits of `path`, read with plain libc.
func plainMode(_ path: String) -> UInt32 {
    var info = stat()
    precondition(lstat(path, &info) == 0, "test setup: cannot lstat \(path)")
    return UInt32(info.st_mode) & 0o7777
}

/// The names in a directory, read with plain libc.
func plainList(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// The error a promise rejects with, as an FSError (fails the test otherwise).
func fsError<T: Sendable>(_ promise: Promise<T>, sourceLocation: SourceLocation = #_sourceLocation) async -> FSError? {
    do {
        _ = try await promise.get()
        Issue.record("expected a rejection", sourceLocation: sourceLocation)
        return nil
    } catch let error as FSError {
        return error
    } catch {
        Issue.record("expected an FSError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
