import Foundation
import PromiseTestSupport
import Testing

/// `CurlProxySetting.fromEnvironment` reads the proxy variables as the curl CLI does, and
/// `.direct` ignores them. The variables belong to the whole process, so each case runs
/// `promise-integration-helper` in a process of its own with them set, and the curl CLI with
/// the same ones. The proxy is the fault server, which answers a proxied request with the
/// target it was asked for; httpbin answers a direct one.
@Suite struct ProxyEnvironmentTests {
    /// The curl CLI's output for `url` with only `environment` (and `PATH`) set.
    func curlCLI(_ url: String, _ environment: [String]) async throws -> String {
        let variables = (["PATH=/usr/bin:/bin"] + environment).map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let all = Dictionary(uniqueKeysWithValues: variables.map { ($0[0], $0[1]) })
        return try await runProgram("/usr/bin/curl", ["-s", "--max-time", "20", url], environment: all).output
    }

    @Test(arguments: [
        (["http_proxy={proxy}"], true),
        (["HTTP_PROXY={proxy}"], false),  // never the uppercase one for http (a CGI program's header)
        (["all_proxy={proxy}"], true),
        (["ALL_PROXY={proxy}"], true),
        (["https_proxy={proxy}"], false),
        (["http_proxy={proxy}", "no_proxy=127.0.0.1"], false),
        (["http_proxy={proxy}", "NO_PROXY=*"], false),
        (["http_proxy={proxy}", "no_proxy=example.test,.0.0.1"], true),
        ([String](), false),
    ])
    func theEnvironmentIsReadAsTheCurlCLIReadsIt(variables: [String], proxied: Bool) async throws {
        let proxy = "http://127.0.0.1:\(TestServer.faults.ports["http"]!)"
        let environment = variables.map { $0.replacingOccurrences(of: "{proxy}", with: proxy) }
        let url = TestServer.httpbin.url("/get")
        let proxiedMark = "\"target\": \"\(url)\""
        let result = try await runHelperProgram("promise-integration-helper", ["curl-proxy", "environment", url], environment: environment)
        #expect(result.status == 0 && result.output.hasPrefix("http 200 "), "\(result.output)")
        #expect(result.output.contains(proxiedMark) == proxied, "\(environment): \(result.output)")
        #expect(try await curlCLI(url, environment).contains(proxiedMark) == proxied, "curl with \(environment)")

        // `.direct` never goes through the proxy, whatever the variables say.
        let direct = try await runHelperProgram("promise-integration-helper", ["curl-proxy", "direct", url], environment: environment)
        #expect(direct.status == 0 && direct.output.hasPrefix("http 200 ") && !direct.output.contains(proxiedMark), "\(direct.output)")
    }
}
