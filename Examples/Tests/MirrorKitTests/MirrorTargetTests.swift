@testable import MirrorKit
import Testing

@Suite struct MirrorTargetTests {
    private func path(_ line: String) -> String? {
        try? MirrorTarget.parse(line).get().relativePath
    }

    private func rejection(_ line: String) -> String? {
        if case .failure(let error) = MirrorTarget.parse(line) { return error.description }
        return nil
    }

    @Test func urlsMapToHostAndPathBelowTheOutputDirectory() {
        #expect(path("http://127.0.0.1:8080/articles/1.html") == "127.0.0.1_8080/articles/1.html")
        #expect(path("https://example.org") == "example.org/index.html")
        #expect(path("https://example.org/docs/") == "example.org/docs/index.html")
        #expect(path("  https://example.org/a#top  ") == "example.org/a")
        #expect(path("https://user:secret@example.org/a") == "example.org/a")
    }

    @Test func nothingClimbsOutOfTheOutputDirectoryOrHides() throws {
        for line in ["http://h/../../etc/passwd", "http://h/./a/../b", "http://h/.hidden", "http://h/%2e%2e/x", "http://../x"] {
            let relative = try #require(path(line), "\(line)")
            let components = relative.split(separator: "/")
            #expect(!components.contains { $0 == ".." || $0 == "." || $0.hasPrefix(".") }, "\(line) -> \(relative)")
        }
    }

    @Test func queriesKeepDistinctNamesAndLongNamesAreCut() throws {
        let a = try #require(path("http://h/search?q=a"))
        let b = try #require(path("http://h/search?q=b"))
        #expect(a != b)
        #expect(a.hasPrefix("h/search_q"))
        let long = try #require(path("http://h/" + String(repeating: "x", count: 500)))
        #expect(long.split(separator: "/").allSatisfy { $0.utf8.count <= 200 })
        let unicode = try #require(path("http://h/caf%C3%A9/na\u{EF}ve"))
        #expect(unicode.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test func linesThatAreNotURLsSayWhy() throws {
        #expect(try #require(rejection("this line is not a URL")).hasPrefix("not a URL (expected scheme://host/path)"))
        #expect(try #require(rejection("http://exa mple.org/")).contains("a space"))
        #expect(try #require(rejection("1ttp://example.org/")).contains("bad scheme"))
        #expect(try #require(rejection("http:///path")).contains("no host"))
        // Scheme policy is PromiseCurl's job: file:// parses here and is refused by the client.
        #expect(path("file:///etc/hostname") == "file/etc/hostname")
    }
}
