import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// Requests over a Unix-domain socket (`CurlRequest.unixSocketPath`), against httpbin listening
/// on one, and next to the curl CLI's `--unix-socket` with the same settings.
@Suite struct UnixSocketTests {
    let client: CurlClient
    let httpbin = TestServer.httpbin

    init() throws { client = try CurlClient() }

    private var socket: String { httpbin.unixSocket! }

    private func request(_ path: String, method: HTTPRequest.Method = .get, socket: String? = nil) -> CurlRequest {
        var request = CurlRequest(method, "http://localhost\(path)")
        request.unixSocketPath = socket ?? self.socket
        return request
    }

    @Test func aRequestGoesOverTheSocket() async throws {
        let response = try await client.execute(request("/get?q=1")).validate().get()
        let echo = try response.decode(Echo.self)
        #expect(echo.url == "http://localhost/get?q=1")
        #expect(echo.args == ["q": "1"])
        #expect(echo.headers?["Host"] == "localhost")
    }

    @Test func bodiesHeadersAndRedirectsWorkAsOverTCP() async throws {
        var post = request("/post", method: .post)
        post.body = try .json(["item": "tea"])
        post.setHeader("X-Order-Source", "socket")
        let echo = try await client.execute(post).validate().get().decode(Echo.self)
        #expect(echo.json == ["item": "tea"])
        #expect(echo.headers?["X-Order-Source"] == "socket")

        // A redirect is followed over the same socket, as the curl CLI does.
        let redirected = try await client.execute(request("/redirect-to?url=%2Fget%3Fafter%3Dredirect")).validate().get()
        #expect(try redirected.decode(Echo.self).args == ["after": "redirect"])
    }

    /// A handle reused after a socket request must not keep the socket: a TCP request to a
    /// refused port then fails as a TCP request, and a socket request after a TCP one uses the
    /// socket again.
    @Test func theSocketNeverLeaksIntoAnotherRequestOfTheSameClient() async throws {
        let refused = refusedPort()
        for _ in 0..<5 {
            let overSocket = try await client.execute(request("/get")).validate().get()
            #expect(try overSocket.decode(Echo.self).url == "http://localhost/get")
            let error = await #expect(throws: CurlError.self) { try await client.get("http://127.0.0.1:\(refused)/").get() }
            #expect(error?.message.hasPrefix("connection refused by 127.0.0.1:\(refused)") == true, "\(String(describing: error))")
            let overTCP = try await client.get(httpbin.url("/get")).validate().get()
            #expect(try overTCP.decode(Echo.self).url == httpbin.url("/get"))
        }
    }

    @Test func whatIsAtTheWrongPathIsNamed() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/plain"
        try "not a socket".write(toFile: file, atomically: true, encoding: .utf8)
        let stale = directory + "/stale.sock"
        try makeStaleSocket(at: stale)

        let cases: [(path: String, says: String)] = [
            (directory + "/missing.sock", "no Unix socket at '\(directory)/missing.sock': nothing is there"),
            (file, "'\(file)' is not a Unix socket (it is a regular file)"),
            (directory, "'\(directory)' is not a Unix socket (it is a directory)"),
            (stale, "nothing accepts connections on the Unix socket '\(stale)'"),
        ]
        for (path, says) in cases {
            let error = await #expect(throws: CurlError.self) { try await client.execute(request("/get", socket: path)).get() }
            #expect(error?.code == .couldNotConnect, "\(path)")
            #expect(error?.message.hasPrefix(says) == true, "\(String(describing: error))")
            // The curl CLI fails the same way: exit status 7, couldNotConnect's libcurl code.
            let cli = try await runCurlCLI(["--unix-socket", path, "http://localhost/get"])
            #expect(cli.status == 7, "curl --unix-socket \(path): \(cli.status)")
        }
    }

    @Test func pathsThatCannotBeSocketAddressesAreRefusedBeforeAnythingIsSent() async throws {
        let longest = "/tmp/" + String(repeating: "s", count: CurlRequest.maxUnixSocketPathBytes - 5)
        #expect(longest.utf8.count == 107)
        // 107 bytes fit: the request is made, and fails only because nothing is there.
        let fits = await #expect(throws: CurlError.self) { try await client.execute(request("/get", socket: longest)).get() }
        #expect(fits?.code == .couldNotConnect)

        let tooLong = longest + "s"
        let long = await #expect(throws: CurlError.self) { try await client.execute(request("/get", socket: tooLong)).get() }
        #expect(long?.code == .invalidRequest)
        #expect(long?.message.contains("is 108 bytes; a socket address holds at most 107") == true, "\(String(describing: long))")

        let empty = await #expect(throws: CurlError.self) { try await client.execute(request("/get", socket: "")).get() }
        #expect(empty?.code == .invalidRequest)
        #expect(empty?.message == "the Unix socket path is empty")

        let withNUL = await #expect(throws: CurlError.self) { try await client.execute(request("/get", socket: socket + "\0x")).get() }
        #expect(withNUL?.code == .invalidArgument)
        #expect(withNUL?.message.contains("contains a NUL byte") == true)
    }

    @Test func cancellingStopsARequestOverTheSocketAtAnyPoint() async throws {
        // Before the transfer is added, while it waits for the response, and after it settled.
        let early = client.execute(request("/delay/10"))
        early.cancel()
        await #expect(throws: CancellationError.self) { try await early.get() }

        // A socket that takes connections into its backlog and never answers: the request
        // is sent and then waits for good, so only the cancellation can end it, however late
        // this test's task gets to run.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let silent = try boundUnixSocket(at: directory + "/silent.sock", listening: true)
        defer { close(silent) }
        var never = request("/get", socket: directory + "/silent.sock")
        never.stallTimeout = .seconds(3_600)
        let waiting = client.execute(never)
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.get() }

        let done = client.execute(request("/get"))
        _ = try await done.get()
        done.cancel()
        #expect(done.isFulfilled)
        // The socket still serves the client afterwards.
        #expect(try await client.execute(request("/status/204")).get().status.code == 204)
    }

    /// The same request through the curl CLI and through PromiseCurl gets the same answer.
    @Test func answersMatchTheCurlCLI() async throws {
        let cli = try await runCurlCLI(["--unix-socket", socket, "-X", "PUT", "-H", "X-Check: 7", "-d", "a=1&b=two", "http://localhost/anything/path?x=y"])
        #expect(cli.status == 0)
        let expected = try JSONDecoder().decode(Echo.self, from: Data(cli.output.utf8))

        var put = request("/anything/path?x=y", method: .put)
        put.body = .form([("a", "1"), ("b", "two")])
        put.setHeader("X-Check", "7")
        let echo = try await client.execute(put).validate().get().decode(Echo.self)
        #expect(echo.url == expected.url)
        #expect(echo.method == expected.method)
        #expect(echo.args == expected.args)
        #expect(echo.form == expected.form)
        #expect(echo.headers?["X-Check"] == expected.headers?["X-Check"])
        #expect(echo.headers?["Host"] == expected.headers?["Host"])
    }

    // MARK: Helpers

    /// A socket file nothing listens on: bound, then closed.
    private func makeStaleSocket(at path: String) throws {
        close(try boundUnixSocket(at: path, listening: false))
    }

    /// A Unix socket bound at `path`, listening (but never accepting) if asked; the caller
    /// closes the returned descriptor.
    private func boundUnixSocket(at path: String, listening: Bool) throws -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): errno \(errno)")
        if listening { try #require(listen(descriptor, 8) == 0, "listen \(path): errno \(errno)") }
        return descriptor
    }
}
