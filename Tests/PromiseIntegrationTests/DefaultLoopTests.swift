import Glibc
import PromiseTestSupport
import Testing

/// A `UVLoop` as `Promises.defaultContext` while other products finish the work: the loop
/// keeps running while callbacks wait for it, prints every line, and `run()` returns after
/// them. Each case runs `promise-integration-helper` in a process of its own.
@Suite struct DefaultLoopTests {
    @Test func anHTTPResponseIsDeliveredOnTheLoopBeforeRunReturns() async throws {
        let url = TestServer.httpbin.url("/get")
        let result = try await runHelperProgram("promise-integration-helper", ["curl", url])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["http 200", "run returned"], "\(result.output)")
    }

    @Test func aFileReadIsDeliveredOnTheLoopBeforeRunReturns() async throws {
        let path = try textFile("hello, loop\n")
        defer { removeTextFile(path) }
        let result = try await runHelperProgram("promise-integration-helper", ["fs", path])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["fs 12", "run returned"], "\(result.output)")
    }

    @Test func aQueryIsDeliveredOnTheLoopBeforeRunReturns() async throws {
        let result = try await runHelperProgram("promise-integration-helper", ["sql"])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["sql 42", "run returned"], "\(result.output)")
    }

    @Test func theHeadlineProgramPrintsItsThreeLinesThenRunReturns() async throws {
        let path = try textFile("twelve bytes")
        defer { removeTextFile(path) }
        let result = try await runHelperProgram("promise-integration-helper", ["all", TestServer.httpbin.url("/get"), path])
        #expect(result.status == 0, "\(result.output)")
        let printed = lines(result.output)
        #expect(Set(printed.dropLast()) == ["http 200", "fs 12", "sql 42"], "\(result.output)")
        #expect(printed.last == "run returned", "\(result.output)")
    }

    @Test func awaitPromiseBeforeTheFirstRunDrivesTheLoopOnTheCallingThread() async throws {
        let path = try textFile("four")
        defer { removeTextFile(path) }
        let result = try await runHelperProgram("promise-integration-helper", ["await", path])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["awaited 4", "run returned"], "\(result.output)")
    }

    @Test func awaitPromiseInsideALoopCallbackThrowsDeadlockNamingTheLoop() async throws {
        let path = try textFile("x")
        defer { removeTextFile(path) }
        let result = try await runHelperProgram("promise-integration-helper", ["await-inside", path])
        #expect(result.status == 0, "\(result.output)")
        let printed = lines(result.output)
        #expect(printed.first?.hasPrefix("deadlock: awaitPromise") == true, "\(result.output)")
        #expect(printed.first?.contains("UVLoop") == true, "\(result.output)")
        #expect(printed.last == "run returned", "\(result.output)")
    }

    @Test func anUnreferencedCallbackDoesNotKeepTheLoopRunningButALoopCallbackDoes() async throws {
        let result = try await runHelperProgram("promise-integration-helper", ["unreferenced"])
        #expect(result.status == 0, "\(result.output)")
        #expect(
            lines(result.output) == [
                "run returned with a background callback waiting", "foreground 7", "background callback ran", "run returned",
            ],
            "\(result.output)"
        )
    }
}

/// The output's non-empty lines.
private func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
}

/// A new file holding `text` in a directory of its own; returns its path.
private func textFile(_ text: String) throws -> String {
    var template = Array("/tmp/promise-integration-XXXXXX".utf8CString)
    guard let directory = mkdtemp(&template) else { throw HelperProgramFailure(description: "mkdtemp: errno \(errno)") }
    let path = String(cString: directory) + "/input.txt"
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw HelperProgramFailure(description: "open \(path): errno \(errno)") }
    defer { close(fd) }
    let written = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
    guard written == text.utf8.count else { throw HelperProgramFailure(description: "write \(path): errno \(errno)") }
    return path
}

/// Removes a file made by ``textFile(_:)`` and its directory.
private func removeTextFile(_ path: String) {
    unlink(path)
    rmdir(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
}
