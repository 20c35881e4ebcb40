import Glibc
import PromiseFS
import PromiseTestSupport
import Testing

/// `FSError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct FSErrorModelTests {
    @Test func fsErrorFollowsTheModel() {
        expectTheErrorModel { FSError(.permissionDenied, operation: "open", path: "/etc/shadow", activity: "opening /etc/shadow for reading", underlying: $0) }
        let error = FSError(.permissionDenied, operation: "open", path: "/etc/shadow", activity: "opening /etc/shadow for reading")
        #expect(error.message == "permission denied opening /etc/shadow for reading")
        #expect(error.description == "FSError.permissionDenied (errno 13): permission denied opening /etc/shadow for reading")
        let own = FSError(.tooLarge, operation: "read", path: "/a", activity: "reading /a")
        #expect(own.description == "FSError.tooLarge: file larger than the size cap reading /a")
        #expect(own.code.errno == nil && error.code.errno == EACCES)
        #expect(own.logFields["fs.code"] == nil && error.logFields["fs.code"] == "13")
        #expect(FSError.Code.invalidArgument.name == "invalidArgument" && FSError.Code.poolUnavailable.name == "poolUnavailable")
    }
}

/// The adapters' deinit policy: a file dropped without `close()` has its descriptor closed;
/// a close that succeeds loses nothing and is not reported.
@Suite struct FSDeinitPolicyTests {
    @Test func aFileDroppedWithoutCloseGivesItsDescriptorBack() async throws {
        NotShutDownRecorder.install
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fs = PromiseFileSystem()
        try await fs.writeText(dir("dropped.txt"), "x").get()
        // Descriptors are counted by what they point to: other tests open files at the same time.
        let target = dir("dropped.txt")
        for _ in 0..<50 { _ = try await fs.open(target).get() }
        let released = try await eventually(.seconds(10)) { descriptors(pointingTo: target) == 0 }
        #expect(released, "dropped files keep \(descriptors(pointingTo: target)) descriptors of \(target)")
        #expect(NotShutDownRecorder.reports(mentioning: dir("dropped.txt")).isEmpty)
    }
}

/// How many of the process's descriptors are open on `path` (read from `/proc/self/fd`).
private func descriptors(pointingTo path: String) -> Int {
    guard let directory = opendir("/proc/self/fd") else { return 0 }
    defer { closedir(directory) }
    var count = 0
    var buffer = [CChar](repeating: 0, count: 4096)
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let length = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
        guard length > 0 else { continue }
        if String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path { count += 1 }
    }
    return count
}
