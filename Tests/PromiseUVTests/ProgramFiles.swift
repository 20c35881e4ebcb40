import Foundation
import Testing

/// Writes `text` to a new or truncated file at `path` with permissions `mode`, through a
/// close-on-exec descriptor, and closes it.
///
/// Every file the tests of this target write goes through here or through `writeInPlace`, which
/// leaves an existing file's mode alone for the watch tests. The tests of every target share
/// one process, and children start from many threads at once: a descriptor without close-on-exec
/// is copied into each child started while it is open, and a child such as a test's HTTP server
/// keeps it for its whole life. A program file left open for writing in any process cannot be
/// run (`ETXTBSY`). Foundation's `write(toFile:atomically:)` opens its file without
/// close-on-exec, so it is not used in this target (`ProgramFileRuleTests`).
func writeFile(_ text: String, to path: String, mode: mode_t = 0o644) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
    defer { close(descriptor) }
    // The mode given to `open` is narrowed by the umask; the file gets exactly `mode`.
    guard fchmod(descriptor, mode) == 0 else { throw TestFailure("fchmod \(path): errno \(errno)") }
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
        if result < 0 && errno == EINTR { continue }
        guard result > 0 else { throw TestFailure("write \(path): errno \(errno)") }
        written += result
    }
}

/// Writes an executable program (a script) to `path`; see ``writeFile(_:to:mode:)``.
func writeProgram(_ text: String, to path: String) throws {
    try writeFile(text, to: path, mode: 0o755)
}

@Suite struct ProgramFileRuleTests {
    /// No test source of this target writes a file with Foundation, whose descriptor a child
    /// started meanwhile keeps: each goes through ``writeFile(_:to:mode:)`` or `writeInPlace`.
    @Test func everyFileThisTargetWritesIsWrittenCloseOnExec() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("ProcessTests.swift"), "the scan reads this target's sources")
        let forbidden = ["write" + "(toFile:", ".write" + "(to:", "createFile" + "(atPath:"]
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: directory.path + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && forbidden.contains(where: { line.contains($0) }) {
                offenders.append("\(file):\(number + 1)")
            }
        }
        #expect(offenders == [], "write these files with writeFile(_:to:mode:) or writeProgram(_:to:)")
    }

    /// The helper's descriptor does not outlive it, and its file gets exactly the mode asked for:
    /// group and other write permission included, which the usual umask (022) would take away.
    @Test func theHelperLeavesNoDescriptorAndSetsTheMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/tool"
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))
        try writeFile("#!/bin/sh\nexit 0\n", to: path, mode: 0o777)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o777)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "#!/bin/sh\nexit 0\n")
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))
        let links = after.subtracting(before).compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
        #expect(!links.contains(path))
    }
}
