import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

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

/// Runs the curl CLI (`/usr/bin/curl -s --max-time 20` and `arguments`) off the cooperative
/// pool, for tests that compare PromiseCurl with it: its exit status and standard output.
///
/// - Parameter environment: The CLI's whole environment; `nil` passes this process's on.
func runCurlCLI(_ arguments: [String], environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
    try await runProgram("/usr/bin/curl", ["-s", "--max-time", "20"] + arguments, environment: environment)
}
