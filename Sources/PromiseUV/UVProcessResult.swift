/// A child process that has ended and been reaped: how it ended and what it wrote to the
/// streams that were captured.
public struct UVProcessResult: Sendable, Hashable {
    /// The child's process ID (no longer in use by it: the child has been reaped).
    public let processID: Int32
    /// How it ended.
    public let exit: UVProcessExit
    /// Its standard output when ``UVCommand/Output/capture(limit:)`` collected it; empty
    /// otherwise.
    public let standardOutput: [UInt8]
    /// Its standard error when ``UVCommand/Output/capture(limit:)`` collected it; empty
    /// otherwise.
    public let standardError: [UInt8]

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - processID: The child's process ID.
    ///   - exit: How it ended.
    ///   - standardOutput: Its captured standard output.
    ///   - standardError: Its captured standard error.
    public init(processID: Int32, exit: UVProcessExit, standardOutput: [UInt8] = [], standardError: [UInt8] = []) {
        self.processID = processID
        self.exit = exit
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The captured standard output as text, or `nil` when it is not UTF-8.
    public var outputText: String? { String(validating: standardOutput, as: UTF8.self) }

    /// The captured standard error as text, or `nil` when it is not UTF-8.
    public var errorText: String? { String(validating: standardError, as: UTF8.self) }

    /// This result when the child exited with status 0.
    ///
    /// - Parameter program: The program's name, for the error.
    /// - Returns: `self`.
    /// - Throws: ``UVError/Code-swift.struct/processFailed`` otherwise, with how it ended and
    ///   the last line of its captured standard error in the message.
    public func requireSuccess(_ program: String = "the child process") throws(UVError) -> UVProcessResult {
        guard exit.isSuccess else {
            var detail = "\(program) (pid \(processID)) \(exit)"
            let lastLine = standardError.split(separator: UInt8(ascii: "\n")).last.map { String(decoding: $0.prefix(200), as: UTF8.self) }
            if let lastLine, !lastLine.isEmpty { detail += ": \(lastLine)" }
            throw UVError(.processFailed, operation: "spawn", detail: detail)
        }
        return self
    }
}
