import Glibc
import PromiseCurlTesting
import PromiseTesting
import Testing

/// Code under test: it knows only `CurlExecuting`.
struct WeatherService {
    struct Reading: Decodable, Sendable { let celsius: Double }

    let http: any CurlExecuting

    func temperature(in city: String) -> Promise<Double> {
        http.get("https://weather.example/now?city=\(city)").map { try $0.validate().decode(Reading.self).celsius }
    }
}

@Suite struct ScriptedCurlClientTests {
    @Test func codeWrittenAgainstTheProtocolRunsOnAScript() async throws {
        let http = ScriptedCurlClient()
        http.reply(to: "https://weather.example/now?city=Oslo", with: .json(#"{"celsius": -3.5}"#))
        let service = WeatherService(http: http)
        #expect(try await service.temperature(in: "Oslo").get() == -3.5)
        #expect(http.requests.map(\.url) == ["https://weather.example/now?city=Oslo"])
        #expect(http.requests.map(\.method) == [.get])
    }

    @Test func aScriptedStatusRefusedByValidateNamesTheRequest() async throws {
        let http = ScriptedCurlClient()
        http.reply(to: "https://api.example/jobs", with: .status(503))
        let error = await #expect(throws: CurlError.self) { try await http.post("https://api.example/jobs", body: .text("a")).validate().get() }
        #expect(error?.method == "POST")
        #expect(error?.description.hasSuffix(" — POST https://api.example/jobs") == true, "\(String(describing: error))")
    }

    @Test func repliesComeInOrderAndTheLastRepeats() async throws {
        let http = ScriptedCurlClient()
        http.reply(to: .post, "https://api.example/jobs", with: .status(503), .status(201, "made"))
        http.reply(to: "https://api.example/jobs", with: .status(200, "listed"))
        let codes = try await [
            http.post("https://api.example/jobs", body: .text("a")).get().status.code,
            http.post("https://api.example/jobs", body: .text("b")).get().status.code,
            http.post("https://api.example/jobs", body: .text("c")).get().status.code,
        ]
        #expect(codes == [503, 201, 201])
        // The POST rule does not match a GET; the next rule does.
        #expect(try await http.get("https://api.example/jobs").get().text == "listed")
        #expect(http.requests.count == 4)
        #expect(http.requests.first?.body?.contentType == "text/plain; charset=utf-8")
    }

    @Test func aRequestNobodyScriptedIsRejectedByName() async throws {
        let http = ScriptedCurlClient()
        do {
            _ = try await http.delete("https://api.example/users/7").get()
            Issue.record("an unscripted request must be rejected")
        } catch let error as CurlError {
            #expect(error.code == .invalidRequest)
            #expect(error.method == "DELETE")
            #expect(error.url == "https://api.example/users/7")
            #expect(error.message.contains("no reply scripted"))
        }
        #expect(http.requests.count == 1, "refused requests are recorded too")
    }

    @Test func failuresAreDeliveredAsGiven() async throws {
        let http = ScriptedCurlClient()
        http.reply(to: "https://down.example/", with: .failure(CurlError(.couldNotConnect, message: "connection refused")))
        await #expect(throws: CurlError.self) { try await http.get("https://down.example/").get() }
    }

    @Test func manualTimeDrivesDelaysAndTimeouts() throws {
        let manual = ManualContext()
        let http = ScriptedCurlClient(context: manual)
        http.reply(to: "https://slow.example/", with: .delayed(.seconds(2), .status(200, "late")))
        http.reply(to: "https://hung.example/", with: .never)

        let slow = http.get("https://slow.example/")
        let hung = http.get("https://hung.example/").timeout(on: manual, .seconds(5))
        manual.advance(by: .seconds(1))
        #expect(slow.isPending)
        manual.advance(by: .seconds(1))
        #expect(slow.value?.text == "late")
        #expect(hung.isPending, "\(String(describing: hung.error))")
        manual.advance(by: .seconds(3))
        #expect(hung.error.map { PromiseError.Code.timedOut ~= $0 } == true)
        // The timeout cancelled the request it was waiting for.
        #expect(http.cancelledRequests.map(\.url) == ["https://hung.example/"])
        #expect(manual.pendingTimerCount == 0, "nothing is left scheduled")
    }

    @Test func aDownloadWritesTheBodyToTheFile() async throws {
        var template = Array("/tmp/scripted-curl.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        try #require(made)
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { _ = system("rm -rf '\(directory)'") }

        let http = ScriptedCurlClient()
        http.reply(to: "https://files.example/report.csv", with: .status(200, "a,b\n1,2\n"))
        let response = try await http.download("https://files.example/report.csv", to: directory + "/report.csv").get()
        #expect(response.status.code == 200)
        #expect(response.body.isEmpty, "as with CurlClient, the body went to the file")
        let fd = open(directory + "/report.csv", O_RDONLY)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        #expect(String(decoding: bytes[0..<max(0, count)], as: UTF8.self) == "a,b\n1,2\n")
    }
}
