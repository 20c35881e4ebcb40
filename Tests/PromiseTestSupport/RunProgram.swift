import Foundation

/// Runs `executable` with `arguments` to its end, off the cooperative pool (it blocks reading
/// the output), and gives its exit status and standard output; standard error is discarded.
///
/// - Parameter environment: The child's whole environment; `nil` passes this process's on.
package func runProgram(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) async throws -> (status: Int32, output: String) {
    try await offCooperativePool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
