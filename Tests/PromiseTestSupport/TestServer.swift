import Foundation

/// Loopback servers for the tests, started once per test process by `scripts/testservers/serve.py`
/// and stopped by it when this process exits. Nothing here contacts anything but 127.0.0.1.
package struct TestServer: Sendable {
    package let ports: [String: Int]
    package let caFile: String?
    package let root: String?
    /// The Unix-domain socket the server also listens on (httpbin's), if any.
    package let unixSocket: String?

    /// `http://127.0.0.1:PORT` + path, on the server's plain HTTP port.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(ports["http"]!)\(path)" }
    /// The same on another port kind (`https`, `h2c`).
    package func url(_ path: String, port kind: String, scheme: String = "http", host: String = "127.0.0.1") -> String {
        "\(scheme)://\(host):\(ports[kind]!)\(path)"
    }

    package static let httpbin = start("httpbin", ["--workers", "2"])
    package static let nginx = start("nginx")
    package static let faults = start("faults")
    /// pproxy: an HTTP and SOCKS5 proxy on `ports["http"]`, and one asking for the user `user`
    /// with the password `s3cret` on `ports["auth"]`.
    package static let proxy = start("proxy")

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
            fatalError(
                "the \(kind) test server did not start (scripts/testservers/serve.py printed '\(String(decoding: line, as: UTF8.self))'); run scripts/bootstrap to install httpbin, gunicorn and nginx"
            )
        }
        var ports = [String: Int]()
        for (key, value) in object { if let port = value as? Int { ports[key] = port } }
        return TestServer(ports: ports, caFile: object["ca"] as? String, root: object["root"] as? String, unixSocket: object["unix"] as? String)
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then closed without listening).
package func refusedPort() -> Int {
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
