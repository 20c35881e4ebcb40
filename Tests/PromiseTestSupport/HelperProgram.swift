import Dispatch
import Glibc

/// A helper program did not start or did not finish in time.
package struct HelperProgramFailure: Error, CustomStringConvertible {
    package let description: String

    /// A failure that says `description`.
    package init(description: String) {
        self.description = description
    }
}

/// Runs the test helper executable `name` (built next to the test binary) with `arguments`
/// and returns its exit status and its standard output and error, interleaved as written.
/// A helper still running after `timeout` is killed and reported as a hang.
///
/// Under `make test-asan`/`test-tsan` the helper is sanitized too and gets the same
/// settings; `leakChecks: false` turns LeakSanitizer off in it for a scenario that leaks by
/// design.
package func runHelperProgram(
    _ name: String,
    _ arguments: [String],
    timeout: Duration = .seconds(30),
    leakChecks: Bool = true,
    environment: [String] = []
) async throws -> (status: Int32, output: String) {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let me = String(decoding: buffer[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let executable = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/" + name
    guard access(executable, X_OK) == 0 else {
        throw HelperProgramFailure(description: "\(executable) is missing: build the tests with `swift build --build-tests`")
    }
    var template = Array("/tmp/\(name)-\(getpid())-XXXXXX.out".utf8CString)
    let outputFD = mkstemps(&template, 4)
    guard outputFD >= 0 else { throw HelperProgramFailure(description: "mkstemps: errno \(errno)") }
    close(outputFD)
    let output = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)  // standard error into the same file
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let forwarded: [String] = ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"].compactMap { (name: String) -> String? in
        guard let value = getenv(name) else { return nil }
        let extra = name == "ASAN_OPTIONS" && !leakChecks ? ":detect_leaks=0" : ""
        return name + "=" + String(cString: value) + extra
    }
    let envp: [UnsafeMutablePointer<CChar>?] = (["PATH=/usr/bin:/bin"] + forwarded + environment).map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard spawned == 0 else { throw HelperProgramFailure(description: "posix_spawn \(executable): errno \(spawned)") }
    var status: Int32 = 0
    let deadline = ContinuousClock.now + timeout
    while waitpid(pid, &status, WNOHANG) == 0 {
        if ContinuousClock.now > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            let text = readWholeFile(output)
            throw HelperProgramFailure(description: "\(name) \(arguments) did not exit within \(timeout); it printed: \(text)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (code, readWholeFile(output))
}

/// The file's bytes as UTF-8 text (invalid bytes replaced), or "" if it cannot be read.
private func readWholeFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Runs the helper `name` with `[arguments[0], pidFile] + arguments[1...]`, and sends it
/// `signal` once it has written its pid into `pidFile` (which a helper does when it is ready
/// to be signalled).
///
/// The pid file is watched on a Dispatch thread, not in a task: in a full `swift test` run,
/// tests that block Swift's two pool threads could hold a task back for longer than the
/// helper waits, and the signal would come too late.
package func runHelperProgram(
    _ name: String,
    _ arguments: [String],
    signalledWith signal: Int32,
    timeout: Duration = .seconds(30)
) async throws -> (status: Int32, output: String) {
    let pidFile = "/tmp/\(name)-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).pid"
    defer { unlink(pidFile) }
    DispatchQueue.global().async {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let pid = pid(in: pidFile) {
                kill(pid, signal)
                return
            }
            usleep(5_000)
        }
        // No pid in time: the helper is still waiting, and runHelperProgram reports it as a hang.
    }
    let mode = arguments.first.map { [$0] } ?? []
    return try await runHelperProgram(name, mode + [pidFile] + arguments.dropFirst(), timeout: timeout)
}

/// The pid written in `path`, or `nil` while there is none.
private func pid(in path: String) -> pid_t? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[0..<count], as: UTF8.self).split(separator: "\n").first ?? ""
    guard let pid = pid_t(text), pid > 1 else { return nil }
    return pid
}
