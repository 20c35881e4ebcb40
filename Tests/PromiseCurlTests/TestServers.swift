import Foundation
import Testing

@testable import PromiseCurl

/// Loopback servers for the tests, started once per test process by `scripts/testservers/serve.py`
/// and stopped by it when this process exits. Nothing here contacts anything but 127.0.0.1.
struct TestServer: Sendable {
    let ports: [String: Int]
    let caFile: String?
    let root: String?

    /// `http://127.0.0.1:PORT` + path, on the server's plain HTTP port.
    func url(_ path: String) -> String { "http://127.0.0.1:\(ports["http"]!)\(path)" }
    /// The same on another port kind (`https`, `h2c`).
    func url(_ path: String, port kind: String, scheme: String = "http", host: String = "127.0.0.1") -> String {
        "\(scheme)://\(host):\(ports[kind]!)\(path)"
    }

    static let httpbin = start("httpbin", ["--workers", "2"])
    static let nginx = start("nginx")
    static let faults = start("faults")

    private static func start(_ kind: String, _ extra: [String] = []) -> TestServer {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = repository.appendingPathComponent("scripts/testservers/serve.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, kind, "--parent", String(ProcessInfo.processInfo.processIdentifier)] + extra
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            fatalError("cannot start the \(kind) test server (\(script)): \(error); run scripts/bootstrap")
        }
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            fatalError("the \(kind) test server did not start (scripts/testservers/serve.py printed '\(String(decoding: line, as: UTF8.self))'); run scripts/bootstrap to install httpbin, gunicorn and nginx")
        }
        var ports = [String: Int]()
        for (key, value) in object { if let port = value as? Int { ports[key] = port } }
        return TestServer(ports: ports, caFile: object["ca"] as? String, root: object["root"] as? String)
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then closed without listening).
func refusedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "promisecurl-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Decodes httpbin's JSON echo.
struct Echo: Decodable, Sendable {
    let args: [String: String]?
    let headers: [String: String]?
    let json: [String: String]?
    let form: [String: String]?
    let data: String?
    let url: String?
    let method: String?
    let gzipped: Bool?
}

/// The calling thread's name (the driver thread is called `promise-curl`).
func currentThreadName() -> String {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return name.trimmingCharacters(in: .whitespacesAndNewlines)
}
