import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

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
