import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

@Suite struct ParserTests {
    private func feed(_ lines: [String], limit: Int = 1 << 20) -> (ResponseHeadParser, Bool) {
        var parser = ResponseHeadParser(limit: limit)
        var ok = true
        for line in lines {
            let bytes = Array(line.utf8)
            ok = bytes.withUnsafeBytes { parser.feed($0) } && ok
        }
        return (parser, ok)
    }

    @Test func statusLineAndFields() {
        let (parser, ok) = feed(["HTTP/1.1 404 Not Found\r\n", "Content-Type:  text/plain \r\n", "X-A: 1\r\n", "X-A: 2\r\n", "\r\n"])
        #expect(ok)
        #expect(parser.status == 404)
        #expect(parser.reason == "Not Found")
        #expect(parser.fields[.contentType] == "text/plain")
        #expect(parser.fields[values: HTTPField.Name("X-A")!] == ["1", "2"])
    }

    /// Common names take a prebuilt `HTTPField.Name` only when spelled exactly as it is; every
    /// name keeps the bytes the server sent as its `rawName`, whichever path it took.
    @Test(arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "Content-type", "ETag", "etag", "ETAG", "X-Custom", "Www-Authenticate"])
    func fieldNamesKeepTheirSpelling(_ name: String) throws {
        let (parser, ok) = feed(["HTTP/1.1 200 OK\r\n", "\(name): value\r\n", "\r\n"])
        #expect(ok)
        let field = try #require(parser.fields.first)
        #expect(field.name.rawName == name)
        #expect(field.name.canonicalName == name.lowercased())
        #expect(field.name == HTTPField.Name(name)!)
        #expect(parser.fields[HTTPField.Name(name.lowercased())!] == "value")
    }

    @Test func everyKnownSpellingParsesToItsOwnName() throws {
        let names = [
            "Date", "Server", "Content-Length", "Last-Modified", "Accept-Ranges", "Strict-Transport-Security", "Access-Control-Allow-Credentials", "Link",
            "Via", "Age",
        ]
        let lines = names.flatMap { ["\($0): a\r\n", "\($0.lowercased()): b\r\n"] }
        let (parser, ok) = feed(["HTTP/2 200\r\n"] + lines + ["\r\n"])
        #expect(ok)
        #expect(parser.fields.map(\.name.rawName) == names.flatMap { [$0, $0.lowercased()] })
        for name in names { #expect(parser.fields[values: HTTPField.Name(name)!] == ["a", "b"]) }
    }

    @Test func aLaterHeadReplacesAnEarlierOne() {
        let (parser, _) = feed(["HTTP/1.1 301 Moved\r\n", "Location: /b\r\n", "\r\n", "HTTP/2 200\r\n", "x-final: yes\r\n", "\r\n"])
        #expect(parser.status == 200)
        #expect(parser.reason == "")
        #expect(parser.fields[.location] == nil)
        #expect(parser.fields[HTTPField.Name("x-final")!] == "yes")
    }

    @Test func foldedLinesContinueTheField() {
        let (parser, _) = feed(["HTTP/1.0 200 OK\r\n", "X-Long: first\r\n", "  second\r\n", "X-Next: n\r\n"])
        #expect(parser.fields[HTTPField.Name("X-Long")!] == "first second")
        #expect(parser.fields[HTTPField.Name("X-Next")!] == "n")
    }

    @Test func invalidLinesAreSkipped() {
        let (parser, ok) = feed(["HTTP/1.1 200 OK\r\n", "no colon here\r\n", "Bad Name: v\r\n", ": empty\r\n", "Good: v\r\n"])
        #expect(ok)
        #expect(parser.fields.count == 1)
        #expect(parser.fields[HTTPField.Name("Good")!] == "v")
    }

    @Test func theLimitHolds() {
        let (_, ok) = feed(["HTTP/1.1 200 OK\r\n"] + Array(repeating: "X-Filler: 0123456789\r\n", count: 100), limit: 1000)
        #expect(!ok)
    }

    @Test func oddStatusLines() {
        #expect(feed(["HTTP/1.1 20 OK\r\n"]).0.status == 0)
        #expect(feed(["HTTP/1.1\r\n"]).0.status == 0)
        #expect(feed(["HTTP/1.1 2000\r\n"]).0.status == 0)
        #expect(feed(["HTTP/1.1   200   OK  \r\n"]).0.reason == "OK")
    }

    @Test func urlParts() throws {
        let parts = try URLParts.parse("HTTPS://user:pw@[::1]:8443/a/b?x=1#frag").get()
        #expect(parts.scheme == "https")
        #expect(parts.authority == "user:pw@[::1]:8443")
        #expect(parts.host == "[::1]")
        #expect(parts.path == "/a/b")
        #expect(parts.query == "x=1")
        #expect(parts.string == "https://user:pw@[::1]:8443/a/b?x=1")
        #expect(try URLParts.parse("http://h").get().pathAndQuery == "/")
        #expect(try URLParts.parse("http://h?q").get().string == "http://h/?q")
        #expect(try URLParts.parse("file:///tmp/x").get().path == "/tmp/x")
        #expect((try? URLParts.parse("1http://h/").get()) == nil)
    }

    @Test func percentEncoding() {
        #expect(PercentEncoding.query("a b+c/~_.-") == "a%20b%2Bc%2F~_.-")
        #expect(PercentEncoding.form("a b+c") == "a+b%2Bc")
        #expect(PercentEncoding.query("é") == "%C3%A9")
    }

    @Test func errorDescriptionsAreOneLine() {
        let error = CurlError(.couldNotConnect, message: "connection refused by 127.0.0.1:9", method: "GET", url: "http://127.0.0.1:9/")
        #expect(error.description == "CurlError.couldNotConnect (curl 7): connection refused by 127.0.0.1:9 — GET http://127.0.0.1:9/")
        let own = CurlError(.invalidRequest, message: "bad")
        #expect(own.description == "CurlError.invalidRequest: bad")
        #expect(CurlError.Code(curlCode: 99).name == "CURLcode 99")
        #expect(own.code.curlCode == nil && error.code.curlCode == 7)
    }
}

extension ParserTests {
    @Test func manyFoldedLinesMakeOneValue() {
        let (parser, ok) = feed(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", " b\r\n", "\tc \r\n", "X-B: 1\r\n", "  2\r\n", "X-C: c\r\n", "\r\n"])
        #expect(ok)
        #expect(parser.fields[HTTPField.Name("X-A")!] == "a b c")
        #expect(parser.fields[HTTPField.Name("X-B")!] == "1 2")
        #expect(parser.fields[HTTPField.Name("X-C")!] == "c")
        #expect(parser.fields.count == 3)
        // A fold that is the last line read (no blank line yet) is part of the value too.
        let (open, _) = feed(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", " b\r\n"])
        #expect(open.fields[HTTPField.Name("X-A")!] == "a b")
        // A fold before any field is dropped; a new head starts afresh.
        let (fresh, _) = feed([
            "HTTP/1.1 100 Continue\r\n", " stray\r\n", "X-A: a\r\n", " b\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "X-D: d\r\n", " e\r\n", "\r\n",
        ])
        #expect(fresh.fields.count == 1)
        #expect(fresh.fields[HTTPField.Name("X-D")!] == "d e")
    }
}

extension ParserTests {
    /// The CPU time of the calling thread, which other threads' load does not change.
    private func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The least CPU time, of three runs, to parse a head with one field folded over `lines` lines.
    private func foldedParseTime(_ lines: Int) -> Duration {
        let head =
            [Array("HTTP/1.1 200 OK\r\n".utf8), Array("X-Folded: start\r\n".utf8)] + Array(repeating: Array(" a\r\n".utf8), count: lines) + [Array("\r\n".utf8)]
        var best = Duration.seconds(1000)
        for _ in 0..<3 {
            var parser = ResponseHeadParser(limit: 1 << 30)
            let start = threadCPUTime()
            for line in head { _ = line.withUnsafeBytes { parser.feed($0) } }
            let value = parser.fields[HTTPField.Name("X-Folded")!]
            best = min(best, threadCPUTime() - start)
            #expect(value?.utf8.count == 5 + 2 * lines)
        }
        return best
    }

    @Test func foldedLinesParseInLinearTime() {
        // Ten times the lines: about ten times the work when linear, a hundred when each
        // continuation copies the value so far (20 000 lines take seconds that way).
        let small = foldedParseTime(2_000)
        let large = foldedParseTime(20_000)
        #expect(large < small * 30, "2 000 lines: \(small), 20 000 lines: \(large)")
        expectTimeLimit(large, under: .seconds(2), "parsing 20 000 folded lines")
    }
}
