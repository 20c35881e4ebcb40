import Foundation

/// nginx on 127.0.0.1, started by `scripts/testservers/serve.py` (which stops it when this
/// process exits, or on `stop()`).
final class LoopbackNginx {
    let port: Int
    private let process: Process
    private let output: Pipe

    /// The repository's `scripts/testservers/serve.py`, found from this source file's path.
    static var script: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/testservers/serve.py").path
    }

    /// Starts nginx with one worker and waits for the JSON line that names its ports.
    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script, "nginx", "--parent", String(ProcessInfo.processInfo.processIdentifier)]
        output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let port = object["http"] as? Int
        else {
            process.terminate()
            throw SoakSetupError(
                "nginx did not start (\(Self.script) printed '\(String(decoding: line, as: UTF8.self))'); run scripts/bootstrap to install it"
            )
        }
        self.port = port
    }

    /// Stops nginx and waits for serve.py to exit.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? output.fileHandleForReading.close()
    }
}

struct SoakSetupError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
