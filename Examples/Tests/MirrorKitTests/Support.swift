import Foundation
import MirrorKit
import PromiseUV

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
