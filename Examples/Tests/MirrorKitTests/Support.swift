import Foundation
import MirrorKit
import PromiseUV
import Synchronization

/// httpbin on 127.0.0.1, started once per test process by the repository's
/// `scripts/testservers/serve.py` and stopped by it when this process exits.
enum HTTPBin {
    static let port: Int = {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = repository.appendingPathComponent("scripts/testservers/serve.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "httpbin", "--parent", String(ProcessInfo.processInfo.processIdentifier), "--workers", "4"]
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch { fatalError("cannot start httpbin (\(script)): \(error); run scripts/bootstrap") }
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let port = object["http"] as? Int else {
            fatalError("httpbin did not start (serve.py printed '\(String(decoding: line, as: UTF8.self))'); run scripts/bootstrap")
        }
        return port
    }()

    static func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "mirror-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Runs a mirror of `lines` on a loop thread of its own and returns its report and output.
func mirror(_ lines: [String], into output: String, configure: (inout MirrorOptions) -> Void = { _ in }) async throws -> (MirrorReport, [String]) {
    let loop = try UVLoop()
    try loop.startThread(named: "mirror-test")
    var options = MirrorOptions(outputDirectory: output)
    options.backoff = .milliseconds(50)
    configure(&options)
    let console = Console(interactive: false) { _ in }
    let mirror = try Mirror(options: options, loop: loop, console: console)
    let report = try await Promise<MirrorReport>(on: loop) { mirror.run(lines) }.get()
    try await loop.shutdown().get()
    return (report, console.lines)
}

/// Every regular file below `directory`, relative to it, with its bytes.
func filesBelow(_ directory: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let relative = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let path = directory + "/" + relative
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
    return files
}

/// The files a mirror stored: everything but the index and its WAL files.
func storedFiles(_ directory: String) throws -> [String: Data] {
    try filesBelow(directory).filter { !$0.key.hasPrefix("index.sqlite") }
}

/// Reads every row of the index at `path`.
func indexRows(_ path: String) async throws -> [IndexRow] {
    let index = try await MirrorIndex.open(path).get()
    let rows = try await index.allRows().get()
    try await index.close().get()
    return rows
}

/// The index and the disk agree: every row's file exists with the row's size, and every
/// stored file belongs to a row. No temporary file is left anywhere.
func checkConsistency(_ output: String, _ rows: [IndexRow]) throws -> [String] {
    var problems: [String] = []
    let files = try storedFiles(output)
    for row in rows {
        if let file = row.file {
            if let data = files[file] {
                if data.count != row.bytes { problems.append("\(file): \(data.count) bytes on disk, \(row.bytes ?? -1) in the index") }
            } else {
                problems.append("\(row.url): the index names \(file), which is not on disk")
            }
        }
    }
    let named = Set(rows.compactMap(\.file))
    for file in files.keys where !named.contains(file) {
        problems.append("\(file) is on disk but no row names it (a partial or temporary file?)")
    }
    return problems
}

/// One of the example programs (built next to this test bundle: the test target depends on
/// it) running as a child process, its standard output and error collected together.
///
/// `@unchecked Sendable`: `Process` is not, but only the test that started the program uses
/// it; the pipe's handler touches `collected` alone, under its lock.
final class RunningProgram: @unchecked Sendable {
    private let process: Process
    private let pipe: Pipe
    private let collected = Collected()

    /// The bytes the program wrote, appended by the pipe's handler.
    private final class Collected: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    /// Starts `name` with `arguments`.
    init(_ name: String, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        process.arguments = arguments
        pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [collected] handle in
            let data = handle.availableData
            collected.bytes.withLock { $0 += data }
        }
        try process.run()
    }

    /// What the program has written so far.
    var output: String { collected.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Sends the program `signal`.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits up to `limit` for the program to exit, terminating it if it has not, and
    /// collects the rest of its output. Returns whether it exited by itself.
    func waitForExit(within limit: Duration) async throws -> Bool {
        let exited = try await eventually(limit) { [process] in !process.isRunning }
        if !exited { process.terminate() }
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        collected.bytes.withLock { $0 += rest }
        return exited
    }

    /// The exit status, or the signal's number when `reason` is `.uncaughtSignal`.
    var status: Int32 { process.terminationStatus }
    /// Whether the program exited (`.exit`) or was killed by a signal.
    var reason: Process.TerminationReason { process.terminationReason }
}
