import Glibc
import PromiseCurlTesting
import PromiseTestSupport
import Synchronization
import Testing

/// A fresh directory under /tmp for one test case.
private func freshDirectory() -> String {
    var template = Array("/tmp/promisecurltesting-test.XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    precondition(made, "test setup: mkdtemp failed")
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The bytes of the file at `path`, read with plain libc, or `nil`.
private func contents(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { return bytes }
        bytes += buffer[..<count]
    }
}

/// The names in `path`, with plain libc.
private func names(in path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var found: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name != "." && name != ".." { found.append(name) }
    }
    return found.sorted()
}

/// One body of expectations run against the real `CurlClient` (nginx on loopback) and against
/// `ScriptedCurlClient` scripted with the same answers: whatever a test can observe of a
/// download must be the same through both, or a test passes against the stand-in and fails in
/// production.
@Suite struct ParityTests {
    enum Kind: String, CaseIterable, Sendable { case real, scripted }

    /// A client of `kind` that answers `missing` with 404 and `present` with 200.
    private func client(_ kind: Kind, missing: String, present: String) throws -> any CurlExecuting & Sendable {
        switch kind {
        case .real:
            return try CurlClient()
        case .scripted:
            let scripted = ScriptedCurlClient()
            scripted.reply(to: missing, with: .status(404, "<html>not found</html>"))
            scripted.reply(to: present, with: .status(200, "fresh\n"))
            return scripted
        }
    }

    /// A download of a 404 rejects with `badStatus`, carrying the response, and keeps the file
    /// and leaves no temporary file; without `requireSuccess` the body is saved; a 200 replaces
    /// the file and fulfils with an empty body.
    @Test(arguments: Kind.allCases) func aRefusedStatusKeepsTheCachedFile(_ kind: Kind) async throws {
        let nginx = TestServer.nginx
        let missing = nginx.url("/missing")
        let present = nginx.url("/small.txt")
        let http = try client(kind, missing: missing, present: present)
        defer { shutDown(http) }
        let directory = freshDirectory()
        defer { _ = system("rm -rf '\(directory)'") }
        let target = directory + "/cached.txt"
        let old = Array("cached copy".utf8)
        #expect(fopen(target, "wb").map { file in fwrite(old, 1, old.count, file) == old.count && fclose(file) == 0 } == true)

        let refused = await #expect(throws: CurlError.self, "\(kind)") { try await http.download(missing, to: target).get() }
        #expect(refused?.code == .badStatus, "\(kind)")
        #expect(refused?.response?.status.code == 404, "\(kind)")
        #expect(refused?.response?.body == [], "\(kind)")
        #expect(refused?.method == "GET" && refused?.url == missing, "\(kind)")
        #expect(
            refused?.message == "status 404 Not Found, not saved to '\(target)' (the file was left as it was)",
            "\(kind): \(String(describing: refused))")
        #expect(contents(target) == old, "\(kind): a 404 must not clobber the cached file")
        #expect(names(in: directory) == ["cached.txt"], "\(kind): no temporary file left behind")

        var anyStatus = CurlDownloadOptions()
        anyStatus.requireSuccess = false
        let saved = try await http.download(CurlRequest(.get, missing), to: directory + "/error.html", options: anyStatus).get()
        #expect(saved.status.code == 404, "\(kind)")
        #expect(contents(directory + "/error.html")?.isEmpty == false, "\(kind): without requireSuccess the body is saved")

        let fresh = try await http.download(present, to: target).get()
        #expect(fresh.status.code == 200 && fresh.body.isEmpty, "\(kind)")
        #expect(contents(target) != old && contents(target)?.isEmpty == false, "\(kind): a 200 replaces the file")
        #expect(names(in: directory) == ["cached.txt", "error.html"], "\(kind)")
    }

    private func shutDown(_ http: any CurlExecuting) {
        if let real = http as? CurlClient { _ = real.shutdown() }
        if let scripted = http as? ScriptedCurlClient { scripted.shutdown() }
    }
}

@Suite struct ScriptedMatcherTests {
    /// A matcher runs outside the client's lock: it may read `requests` (and script more
    /// replies) without trapping on a recursive lock.
    @Test func aMatcherMayReadTheClientsRequests() async throws {
        let http = ScriptedCurlClient()
        let seen = Mutex<[Int]>([])
        http.reply(
            when: { [unowned http] request in
                let count = http.requests.count
                seen.withLock { $0.append(count) }
                return count > 1 && request.url == "https://api.example/retry"
            },
            with: [.status(200, "second")])
        http.reply(to: "https://api.example/retry", with: .status(503))
        #expect(try await http.get("https://api.example/retry").get().status.code == 503)
        #expect(try await http.get("https://api.example/retry").get().status.code == 200)
        #expect(seen.withLock { $0 } == [1, 2])
    }
}
