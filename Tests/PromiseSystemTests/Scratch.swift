import Glibc

/// A fresh temporary directory for one test, removed with everything in it when released.
final class Scratch {
    let root: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        var template = Array("\(ProcessInfoLite.temporaryDirectory)/promisesystem-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp: errno \(errno)") }
        root = String(cString: made)
    }

    deinit {
        _ = system("rm -rf '\(root)'")
    }

    /// `name` inside the directory, as bytes.
    func path(_ name: String) -> [UInt8] {
        Array("\(root)/\(name)".utf8)
    }

    /// Creates (or truncates) `path` with `contents` and exactly `mode`, the umask aside.
    func create(_ path: [UInt8], _ contents: String, mode: mode_t) throws {
        let fd = open(String(decoding: path, as: UTF8.self), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "open: errno \(errno)") }
        defer { close(fd) }
        try write(fd, contents)
        guard fchmod(fd, mode) == 0 else { throw Failure(description: "fchmod: errno \(errno)") }
    }

    /// Writes all of `contents` to `fd`.
    func write(_ fd: Int32, _ contents: String) throws {
        let bytes = Array(contents.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw Failure(description: "write: errno \(errno)")
        }
    }

    /// The permission bits of `path` (following links).
    func mode(_ path: [UInt8]) throws -> UInt32 {
        var info = stat()
        guard stat(String(decoding: path, as: UTF8.self), &info) == 0 else { throw Failure(description: "stat: errno \(errno)") }
        return UInt32(info.st_mode) & 0o7777
    }

    /// The contents of `path` as text.
    func contents(_ path: [UInt8]) throws -> String {
        guard let file = fopen(String(decoding: path, as: UTF8.self), "r") else { throw Failure(description: "fopen: errno \(errno)") }
        defer { fclose(file) }
        var bytes = [UInt8]()
        while case let byte = fgetc(file), byte != EOF { bytes.append(UInt8(byte)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The names in the directory, sorted, without `.` and `..`.
    func names() throws -> [String] {
        guard let stream = opendir(root) else { throw Failure(description: "opendir: errno \(errno)") }
        defer { closedir(stream) }
        var names = [String]()
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

/// `$TMPDIR`, or `/tmp`.
enum ProcessInfoLite {
    static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}
