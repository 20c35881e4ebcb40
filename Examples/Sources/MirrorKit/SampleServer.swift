import Foundation
import Glibc
import Synchronization

/// The built-in sample's web site: a small HTTP/1.1 server on 127.0.0.1 that `promise-demo`
/// starts when it is given no URLs, so the demo works offline on a fresh machine and sends
/// nothing beyond loopback.
///
/// It serves pages that succeed, a redirect, a 404, a page that answers 503 the first time it
/// is asked (so the retry shows), a slow page (so "in flight" shows) and a 4 MiB file (so the
/// rate shows). Every body is generated from its path, so two runs mirror identical bytes.
///
/// Blocking sockets, a thread per connection, one request per connection (`Connection:
/// close`): plenty for a demo, and no code shared with the library under demonstration.
public final class SampleServer: Sendable {
    /// The port it listens on, chosen by the kernel.
    public let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let flakyServed = Mutex<Set<String>>([])

    /// How long ``/slow.html`` takes to answer.
    public static let slowDelay: Duration = .milliseconds(1500)

    /// The port `promise-demo` asks for first, so that its sample URLs (and the mirror's
    /// directory names) are the same from one run to the next.
    public static let preferredPort = 28_417

    /// Starts listening on 127.0.0.1: on `preferredPort` when it is given and free, otherwise
    /// on a port the kernel picks.
    ///
    /// - Throws: ``MirrorError`` when the socket cannot be bound.
    public init(preferredPort: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MirrorError("sample server: socket() failed: \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        func bindTo(_ port: Int) -> Bool {
            address.sin_port = UInt16(port).bigEndian
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        }
        let bound = (preferredPort != 0 && bindTo(preferredPort)) || bindTo(0)
        guard bound, listen(fd, 128) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw MirrorError("sample server: cannot listen on 127.0.0.1: \(message)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let server = self
        Thread.detachNewThread { server.acceptLoop() }
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The built-in sample: what `promise-demo` mirrors when it is given no URLs. Most succeed;
    /// the rest show how each kind of failure is reported.
    public var sampleURLs: [String] {
        (1...12).map { url("/articles/\($0).html") } + [
            url("/"),
            url("/data/big.bin"),
            url("/old-home"),  // 301 to /
            url("/flaky.json"),  // 503 once, then 200: retried
            url("/slow.html"),
            url("/missing.html"),  // 404
            "http://127.0.0.1:9/unreachable",  // nothing listens on the discard port: refused
            "file:///etc/hostname",  // a scheme the mirror does not allow
            "this line is not a URL",
        ]
    }

    /// Stops accepting connections.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    // MARK: Serving

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // the listener was closed
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let server = self
            Thread.detachNewThread { server.serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.contains(subsequence: [13, 10, 13, 10]) {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 || request.count > 65_536 { return }
            request += buffer[0..<count]
        }
        let requestLine = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { return respond(connection, 400, "Bad Request", body: []) }
        let method = String(parts[0])
        let path = String(parts[1])
        let (status, reason, headers, body) = route(path)
        respond(connection, status, reason, headers: headers, body: method == "HEAD" ? [] : body, length: body.count)
    }

    private func route(_ path: String) -> (Int, String, [(String, String)], [UInt8]) {
        let html = [("Content-Type", "text/html; charset=utf-8")]
        switch path {
        case "/":
            let links = (1...12).map { "<li><a href=\"/articles/\($0).html\">Article \($0)</a></li>" }.joined(separator: "\n")
            return (200, "OK", html, Array("<!doctype html>\n<title>Sample site</title>\n<ul>\n\(links)\n</ul>\n".utf8))
        case "/old-home":
            return (301, "Moved Permanently", [("Location", "/")], Array("moved to /\n".utf8))
        case "/flaky.json":
            let first = flakyServed.withLock { $0.insert(path).inserted }
            if first {
                return (503, "Service Unavailable", [("Retry-After", "1")], Array("busy, try again\n".utf8))
            }
            return (200, "OK", [("Content-Type", "application/json")], Array("{\"status\": \"ok\", \"items\": [1, 2, 3]}\n".utf8))
        case "/slow.html":
            Thread.sleep(forTimeInterval: Double(Self.slowDelay.components.seconds) + Double(Self.slowDelay.components.attoseconds) / 1e18)
            return (200, "OK", html, Array("<!doctype html>\n<title>Slow</title>\n<p>Worth the wait.</p>\n".utf8))
        case "/data/big.bin":
            return (200, "OK", [("Content-Type", "application/octet-stream")], Self.pattern(count: 4 << 20, seed: 7))
        default:
            if path.hasPrefix("/articles/"), let number = Int(path.dropFirst("/articles/".count).dropLast(".html".count)),
                path.hasSuffix(".html"), (1...12).contains(number)
            {
                let paragraph = "<p>Paragraph of article \(number): promises, loops, transfers and transactions.</p>\n"
                let body = "<!doctype html>\n<title>Article \(number)</title>\n" + String(repeating: paragraph, count: number * 40)
                return (200, "OK", html, Array(body.utf8))
            }
            return (404, "Not Found", html, Array("<!doctype html>\n<title>Not found</title>\n".utf8))
        }
    }

    /// Deterministic bytes: the same path gives the same file on every run.
    static func pattern(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    private func respond(_ connection: Int32, _ status: Int, _ reason: String, headers: [(String, String)] = [], body: [UInt8], length: Int? = nil) {
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: \(length ?? body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeMutableBytes { send(connection, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { self[$0..<($0 + subsequence.count)].elementsEqual(subsequence) }
    }
}
