import Foundation
import PromiseCore
import PromiseFS
@testable import PromiseUV
import Synchronization
import Testing

/// Every test that makes inotify instances (file watches) runs in this serialized suite, so
/// that a test counting the process's inotify descriptors sees only its own.
@Suite(.serialized) enum InotifyTests {}

/// A fresh directory under /tmp for one test, removed with the shell's `rm -rf`.
struct WatchDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/promiseuv-watch.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else { throw TestFailure("mkdtemp failed: errno \(errno)") }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func callAsFunction(_ name: String) -> String { "\(path)/\(name)" }

    func cleanUp() {
        _ = system("rm -rf '\(path)'")
    }
}

/// Changes a callback received, in order, and on which thread.
final class ChangeLog: Sendable {
    private let state = Lock<(changes: [UVFileChange], offLoop: Int)>(([], 0))

    func record(_ change: UVFileChange, onLoop: Bool) {
        state.withLock { state in
            state.changes.append(change)
            if !onLoop { state.offLoop += 1 }
        }
    }

    var changes: [UVFileChange] { state.withLock { $0.changes } }
    var count: Int { state.withLock { $0.changes.count } }
    var callsOffTheLoopThread: Int { state.withLock { $0.offLoop } }
}

/// Runs `body` on the loop thread and returns what it returns. Work from one thread runs in
/// submission order, so everything this thread submitted before (a watch's start) has run.
func onLoopThread<T: Sendable>(_ loop: UVLoop, _ body: @escaping @Sendable () -> T) async throws -> T {
    let (result, resultResolver) = Promise<T>.pending()
    loop.execute { resultResolver.fulfill(body()) }
    return try await result.get()
}

/// How many of this process's descriptors are inotify instances.
func inotifyInstanceCount() -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.filter { entry in
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")) == "anon_inode:inotify"
    }.count
}

/// How many watches the kernel holds on the inotify descriptor `fd` (its `fdinfo` lines).
func kernelWatchCount(_ fd: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8) else { return -1 }
    return text.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
}

/// Writes `text` in place (open, truncate, write, close) with plain libc: `IN_MODIFY` events
/// on the same inode, not a rename.
func writeInPlace(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
}

/// ``eventually(_:_:)`` for a condition that awaits: polls every 2 ms until it holds or
/// `timeout` passes.
func eventuallyAsync(_ timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(2))
    }
    return try await condition()
}

/// How many file watches `loop` holds, read on its thread.
func liveWatches(_ loop: UVLoop) async throws -> Int {
    try await onLoopThread(loop) { loop.core.liveFileWatchCount }
}

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let value = Lock(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Expects `body` to throw a ``UVError`` with `code`, and returns it.
@discardableResult
func expectUVError(
    _ code: UVError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> UVError? {
    do {
        try await body()
        Issue.record("expected UVError.\(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as UVError {
        #expect(error.code == code, "expected UVError.\(code), got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected UVError.\(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
