// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseCurlTesting
import PromiseTesting
import Testing

// The ```swift blocks of PromiseCurlTesting's DocC catalog, each between `// DocC: begin` and
// `// DocC: end` exactly as written there (PromiseCoreTests' `DocCCodeBlocksTests` checks
// them); their own `#expect`s are the assertions.

@Suite struct DocCExamplesTests {
    @Test func aServiceTestedWithTheStandIn() async throws {
        // DocC: begin
        struct WeatherService {
            struct Reading: Decodable, Sendable { let celsius: Double }

            let http: any CurlExecuting

            func temperature(in city: String) -> Promise<Double> {
                http.get("https://weather.example/now?city=\(city)").map { try $0.validate().decode(Reading.self).celsius }
            }
        }

        // In production:
        let service = WeatherService(http: CurlClient.shared)

        // In a test:
        let http = ScriptedCurlClient()
        http.reply(to: "https://weather.example/now?city=Oslo", with: .json(#"{"celsius": -3.5}"#))
        let tested = WeatherService(http: http)
        #expect(try await tested.temperature(in: "Oslo").get() == -3.5)
        #expect(http.requests.map(\.url) == ["https://weather.example/now?city=Oslo"])
        // DocC: end

        #expect(service.http is CurlClient)
    }

    @Test func aHungRequestTimesOut() {
        // DocC: begin
        let manual = ManualContext()
        let http = ScriptedCurlClient(context: manual)
        http.reply(to: "https://hung.example/", with: .never)
        let hung = http.get("https://hung.example/").timeout(on: manual, .seconds(5))
        manual.advance(by: .seconds(5))
        // hung is rejected with timedOut, and the request was cancelled:
        #expect(http.cancelledRequests.map(\.url) == ["https://hung.example/"])
        // DocC: end

        #expect((hung.error as? PromiseError)?.code == .timedOut)
    }
}
