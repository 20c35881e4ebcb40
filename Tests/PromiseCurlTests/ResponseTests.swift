import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

@Suite struct ResponseTests {
    let client: CurlClient
    let httpbin = TestServer.httpbin
    let nginx = TestServer.nginx

    init() throws { client = try CurlClient() }

    @Test func gzipIsDecoded() async throws {
        let response = try await client.get(httpbin.url("/gzip")).validate().get()
        #expect(response.headerFields[.contentEncoding] == "gzip")
        #expect(try response.decode(Echo.self).gzipped == true)

        let text = try await client.get(nginx.url("/text.txt")).validate().get()
        #expect(text.headerFields[.contentEncoding] == "gzip")
        #expect(text.text.hasPrefix("line 0 of a compressible text\n"))
        #expect(text.body.count == (try String(contentsOfFile: nginx.root! + "/text.txt", encoding: .utf8)).utf8.count)
    }

    @Test func chunkedBodyIsCollected() async throws {
        let response = try await client.get(httpbin.url("/stream/20")).validate().get()
        #expect(response.headerFields[.transferEncoding] == "chunked")
        #expect(response.text.split(separator: "\n").count == 20)
        let bytes = try await client.get(httpbin.url("/stream-bytes/50000?chunk_size=1000&seed=7")).validate().get()
        #expect(bytes.body.count == 50_000)
    }

    @Test func validateRejectsNon2xxWithTheResponse() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await client.get(httpbin.url("/status/418")).validate().get()
        }
        #expect(error?.code == .badStatus)
        #expect(error?.response?.status.code == 418)
        #expect(error?.description.contains("status 418") == true)
        // Without validate(), any status fulfils.
        #expect(try await client.get(httpbin.url("/status/503")).get().status == .serviceUnavailable)
        #expect(try await client.get(httpbin.url("/status/204")).validate().get().status == .noContent)
    }

    /// A refused status reads like every other PromiseCurl error: `— METHOD url`, the method
    /// and URL of the request that got the response (after redirects, which can change both).
    @Test func validateErrorsNameTheMethodAndTheURL() async throws {
        let url = httpbin.url("/status/418")
        let get = await #expect(throws: CurlError.self) { try await client.get(url).validate().get() }
        #expect(get?.method == "GET")
        #expect(get?.description.hasSuffix(" — GET \(url)") == true, "\(String(describing: get))")
        let post = await #expect(throws: CurlError.self) { try await client.post(url, body: .text("tea")).validate().get() }
        #expect(post?.method == "POST")
        #expect(post?.description.hasSuffix(" — POST \(url)") == true, "\(String(describing: post))")
        let response = try await client.execute(CurlRequest(.delete, url)).get()
        #expect(response.requestMethod == "DELETE")
        let deleted = #expect(throws: CurlError.self) { try response.validate() }
        #expect(deleted?.description.hasSuffix(" — DELETE \(url)") == true, "\(String(describing: deleted))")
        // A 303 turns the POST into a GET of the new URL.
        let seeOther = httpbin.url("/redirect-to?url=/status/404&status_code=303")
        let redirected = await #expect(throws: CurlError.self) { try await client.post(seeOther, body: .text("x")).validate().get() }
        #expect(redirected?.description.hasSuffix(" — GET \(httpbin.url("/status/404"))") == true, "\(String(describing: redirected))")
        // A response built without a request names only its URL.
        let built = #expect(throws: CurlError.self) {
            try CurlResponse(head: HTTPResponse(status: .badGateway), url: "http://example.invalid/").validate()
        }
        #expect(built?.method == "")
        #expect(built?.description.hasSuffix(" — http://example.invalid/") == true, "\(String(describing: built))")
        let named = #expect(throws: CurlError.self) {
            try CurlResponse(head: HTTPResponse(status: .badGateway), url: "http://example.invalid/", requestMethod: "PUT").validate()
        }
        #expect(named?.description.hasSuffix(" — PUT http://example.invalid/") == true, "\(String(describing: named))")
    }

    @Test func responseHeadIsParsed() async throws {
        let response = try await client.get(httpbin.url("/json")).validate().get()
        #expect(response.headerFields[.contentType] == "application/json")
        #expect(response.status.reasonPhrase == "OK")
        #expect(response.url == httpbin.url("/json"))
        #expect(!response.text.isEmpty)
    }

    /// A received response parses its fields when they are first read; copies share that
    /// parse, the head reads the same through every accessor, and setting it changes only the
    /// copy it is set on.
    @Test func receivedFieldsAreParsedOnFirstReadAndCopiesStayValues() async throws {
        let response = try await client.get(httpbin.url("/response-headers?X-Answer=42&X-Answer=43&X-Empty=")).validate().get()
        let answer = HTTPField.Name("X-Answer")!
        // Read from many threads at once: one parse, the same fields everywhere.
        let readings = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<16 { group.addTask { response.headerFields[values: answer] } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(readings.allSatisfy { $0 == ["42", "43"] })
        #expect(response.head.headerFields == response.headerFields)
        #expect(response.head.status == response.status)
        #expect(response.headerFields[HTTPField.Name("X-Empty")!] == "")
        #expect(response.headerFields[.contentType] == "application/json")

        var changed = response
        changed.head.headerFields[answer] = "7"
        changed.head.status = .created
        #expect(changed.headerFields[values: answer] == ["7"])
        #expect(changed.status == .created)
        #expect(response.headerFields[values: answer] == ["42", "43"], "setting a copy's head changed the original")
        #expect(response.status == .ok)
    }

    /// Copies of a response share their fields until one is changed: every field changed on
    /// a copy leaves the original as it was, and a body changed in place is not copied first.
    @Test func everyFieldOfACopyChangesAlone() {
        let original = CurlResponse(
            head: HTTPResponse(status: .ok), body: [1, 2, 3], url: "http://user:secret@127.0.0.1/a", redirectCount: 1, httpVersion: "1.1")
        var copy = original
        copy.body.append(4)
        copy.url = "http://127.0.0.1/b"
        copy.redirectCount = 2
        copy.httpVersion = "2"
        copy.head.status = .created
        #expect(copy.body == [1, 2, 3, 4])
        #expect(copy.url == "http://127.0.0.1/b")
        #expect(copy.redirectCount == 2)
        #expect(copy.httpVersion == "2")
        #expect(copy.status == .created)
        #expect(original.body == [1, 2, 3])
        #expect(original.url == "http://***@127.0.0.1/a")
        #expect(original.redirectCount == 1)
        #expect(original.httpVersion == "1.1")
        #expect(original.status == .ok)

        var alone = CurlResponse(head: HTTPResponse(status: .ok))
        alone.body.reserveCapacity(64)
        let before = alone.body.withUnsafeBufferPointer { $0.baseAddress }
        var moved = 0
        for byte in 0..<64 {
            alone.body.append(UInt8(byte))
            if alone.body.withUnsafeBufferPointer({ $0.baseAddress }) != before { moved += 1 }
        }
        #expect(moved == 0, "appending to a response's body copied it \(moved) times")
        #expect(alone.body == (0..<64).map { UInt8($0) })
    }

    @Test func downloadStreamsIntoTheFileAtomically() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/text.txt"
        try "old content".write(toFile: target, atomically: false, encoding: .utf8)
        let progress = Lock<CurlProgress?>(nil)
        var request = CurlRequest(.get, nginx.url("/text.txt"))
        request.onProgress = { report in progress.withLock { $0 = report } }
        let response = try await client.download(request, to: target).get()
        #expect(response.body.isEmpty)
        let expected = try Data(contentsOf: URL(fileURLWithPath: nginx.root! + "/text.txt"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["text.txt"])
        // Progress counts bytes on the wire: gzip-compressed here, so fewer than the file holds.
        #expect(try await eventually { (progress.withLock { $0?.downloaded } ?? 0) > 0 })
        #expect(progress.withLock { $0?.downloaded ?? 0 } < Int64(expected.count))
    }

    @Test func aFailedDownloadLeavesTheTargetAsItWas() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/page.html"
        try "keep me".write(toFile: target, atomically: false, encoding: .utf8)
        let notFound = await #expect(throws: CurlError.self) { try await client.download(nginx.url("/missing"), to: target).get() }
        #expect(notFound?.code == .badStatus)
        #expect(notFound?.response?.status == .notFound)
        let reset = await #expect(throws: CurlError.self) { try await client.download(TestServer.faults.url("/reset"), to: target).get() }
        #expect(reset?.code == .receiveError || reset?.code == .partialFile)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["page.html"], "no temporary file left behind")
    }

    @Test func downloadPathsWithANULByteAreRefusedAndLongNamesWork() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Without the check, open(2) would stop at the NUL and write "victim".
        try "keep".write(toFile: directory + "/victim", atomically: false, encoding: .utf8)
        let nul = await #expect(throws: CurlError.self) {
            try await client.download(nginx.url("/small.txt"), to: directory + "/victim\u{0}.txt").get()
        }
        #expect(nul?.code == .invalidArgument)
        #expect(nul?.message.contains("NUL byte") == true)
        #expect(nul?.method == "GET" && nul?.url == nginx.url("/small.txt"))
        let upload = await #expect(throws: CurlError.self) {
            try await client.execute(CurlRequest(.post, nginx.url("/small.txt"), body: .file(directory + "/victim\u{0}x"))).get()
        }
        #expect(upload?.code == .invalidArgument)
        #expect(upload?.message.contains("NUL byte") == true)
        #expect(try String(contentsOfFile: directory + "/victim", encoding: .utf8) == "keep")
        // A 255-byte name is legal; its temporary sibling is shortened to fit NAME_MAX.
        let long = directory + "/" + String(repeating: "d", count: 255)
        try await client.download(nginx.url("/small.txt"), to: long).get()
        #expect(FileManager.default.fileExists(atPath: long))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [String(repeating: "d", count: 255), "victim"])
    }

    @Test func downloadIntoAnUnwritableDirectoryRejectsClearly() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await client.download(nginx.url("/small.txt"), to: "/nonexistent-directory/file.txt").get()
        }
        #expect(error?.code == .fileError)
        #expect(error?.message.contains("/nonexistent-directory") == true)
    }

    @Test func aDownloadOverAPrivateFileKeepsItsModeAndADirectoryIsRefusedFirst() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secret = directory + "/secret.txt"
        try "old".write(toFile: secret, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
        try await client.download(nginx.url("/small.txt"), to: secret).get()
        let attributes = try FileManager.default.attributesOfItem(atPath: secret)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "a download must not widen a 0600 file's mode")
        #expect(try Data(contentsOf: URL(fileURLWithPath: secret)) == (try Data(contentsOf: URL(fileURLWithPath: nginx.root! + "/small.txt"))))
        // A directory at the target is refused before anything is transferred, and left alone.
        try FileManager.default.createDirectory(atPath: directory + "/folder", withIntermediateDirectories: false)
        let refused = await #expect(throws: CurlError.self) { try await client.download(nginx.url("/small.txt"), to: directory + "/folder").get() }
        #expect(refused?.code == .fileError)
        #expect(refused?.message.contains("is a directory") == true, "\(String(describing: refused))")
        #expect(refused?.method == "GET" && refused?.url == nginx.url("/small.txt"), "the request is attached to every error")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["folder", "secret.txt"])
    }

    @Test func downloadProgressReachesTheTotal() async throws {
        let reports = Lock<[CurlProgress]>([])
        var request = CurlRequest(.get, httpbin.url("/bytes/100000"))
        request.onProgress = { report in reports.withLock { $0.append(report) } }
        let response = try await client.execute(request).validate().get()
        #expect(response.body.count == 100_000)
        #expect(try await eventually { reports.withLock { $0.last?.downloaded == 100_000 } })
        #expect(reports.withLock { $0.last?.fractionDownloaded } == 1.0)
    }
}
