import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// Requests through proxies: pproxy (an HTTP and SOCKS5 proxy from PyPI) on loopback, the fault
/// server posing as a proxy that echoes or misbehaves, each compared with the curl CLI given the
/// same settings. Nothing leaves 127.0.0.1: the `.test` names are never resolved, the proxy is
/// the fault server itself.
@Suite struct ProxyTests {
    let httpbin = TestServer.httpbin
    let proxies = TestServer.proxy
    let faults = TestServer.faults

    func client(_ proxy: CurlProxySetting, tls caFile: String? = nil) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.proxy = proxy
        configuration.tls.caFile = caFile
        return try CurlClient(configuration: configuration)
    }

    /// A `GET` of `url` by a client of its own with `proxy`, shut down afterwards.
    func get(_ url: String, through proxy: CurlProxySetting, tls caFile: String? = nil) async throws -> CurlResponse {
        let client = try client(proxy, tls: caFile)
        defer { _ = client.shutdown() }
        return try await client.get(url).validate().get()
    }

    @Test(arguments: [CurlProxy.Kind.http, .socks5, .socks5Hostname])
    func requestsGoThroughTheProxyAsWithTheCurlCLI(kind: CurlProxy.Kind) async throws {
        let proxy = try CurlProxy(kind, host: "127.0.0.1", port: proxies.ports["http"]!)
        let client = try client(.through(proxy))
        defer { _ = client.shutdown() }
        let url = httpbin.url("/get?via=\(kind.rawValue)")
        let echo = try await client.get(url).validate().decode(Echo.self).get()
        #expect(echo.args == ["via": kind.rawValue])
        let cli = try await runCurlCLI(["-x", proxy.curlURL, url])
        #expect(cli.status == 0)
        #expect(try JSONDecoder().decode(Echo.self, from: Data(cli.output.utf8)).args == echo.args)

        // The same client with the proxy's port refused fails, as the CLI does: the proxy is used.
        let refused = try CurlProxy(kind, host: "127.0.0.1", port: refusedPort())
        let error = await #expect(throws: CurlError.self) { try await self.get(url, through: .through(refused)) }
        #expect(error?.code == .couldNotConnect)
        #expect(error?.message.hasPrefix("could not connect to the proxy \(refused)") == true, "\(String(describing: error))")
        #expect(try await runCurlCLI(["-x", refused.curlURL, url]).status == 7)
    }

    /// An `https` URL goes through a `CONNECT` tunnel, and TLS is still verified end to end.
    @Test func httpsGoesThroughATunnel() async throws {
        let nginx = TestServer.nginx
        let proxy = try CurlProxy(.http, host: "127.0.0.1", port: proxies.ports["http"]!)
        let client = try client(.through(proxy), tls: nginx.caFile)
        defer { _ = client.shutdown() }
        let url = nginx.url("/hello", port: "https", scheme: "https", host: "localhost")
        let response = try await client.get(url).validate().get()
        #expect(response.status.code == 200)
        let cli = try await runCurlCLI(["-x", proxy.curlURL, "--cacert", nginx.caFile!, "-o", "/dev/null", "-w", "%{http_code}", url])
        #expect(cli.status == 0 && cli.output == "200", "\(cli)")
        // Without the CA the tunnel is made and the server's certificate still refused.
        let error = await #expect(throws: CurlError.self) { try await self.get(url, through: .through(proxy)) }
        #expect(error?.code == .peerFailedVerification, "\(String(describing: error))")
    }

    /// A streamed response through a `CONNECT` tunnel fulfils with the server's head, not the
    /// proxy's `200 Connection established`.
    @Test func aStreamedResponseThroughATunnelHasTheServersHead() async throws {
        let nginx = TestServer.nginx
        let proxy = try CurlProxy(.http, host: "127.0.0.1", port: proxies.ports["http"]!)
        let client = try client(.through(proxy), tls: nginx.caFile)
        defer { _ = client.shutdown() }
        let missing = try await client.stream(CurlRequest(.get, nginx.url("/no-such-file", port: "https", scheme: "https", host: "localhost"))).get()
        missing.body.cancel()
        #expect(missing.status.code == 404)
        let found = try await client.stream(CurlRequest(.get, nginx.url("/hello", port: "https", scheme: "https", host: "localhost"))).get()
        #expect(found.status.code == 200)
        #expect(found.headerFields[.contentLength] != nil, "\(found.headerFields)")
        var body: [UInt8] = []
        for try await chunk in found.body { body += chunk }
        #expect(!body.isEmpty)
    }

    /// The credentials go in `Proxy-Authorization` (seen by the fault server posing as the
    /// proxy) and are accepted by a proxy that asks for them; the password is never printed.
    @Test func credentialsAreSentAndNeverPrinted() async throws {
        let echoing = try CurlProxy(url: "http://user:s3cret@127.0.0.1:\(faults.ports["http"]!)")
        #expect(echoing.description == "http://user:***@127.0.0.1:\(faults.ports["http"]!)")
        #expect(echoing.username == "user" && echoing.password == "s3cret")
        let client = try client(.through(echoing))
        defer { _ = client.shutdown() }
        let echo = try await client.get("http://proxy-echo.test/path?q=1").validate().decode(RawEcho.self).get()
        #expect(echo.target == "http://proxy-echo.test/path?q=1", "sent in absolute form, to the proxy")
        #expect(echo.lines(named: "Proxy-Authorization") == ["Proxy-Authorization: Basic dXNlcjpzM2NyZXQ="])
        let cli = try await runCurlCLI(["-x", "http://user:s3cret@127.0.0.1:\(faults.ports["http"]!)", "http://proxy-echo.test/path?q=1"])
        #expect(
            try JSONDecoder().decode(RawEcho.self, from: Data(cli.output.utf8)).lines(named: "Proxy-Authorization") == echo.lines(named: "Proxy-Authorization"))

        let asking = proxies.ports["auth"]!
        for kind in [CurlProxy.Kind.http, .socks5Hostname] {
            let right = try CurlProxy(kind, host: "127.0.0.1", port: asking, username: "user", password: "s3cret")
            let answered = try await get(httpbin.url("/get"), through: .through(right))
            #expect(answered.status.code == 200, "\(kind)")
        }
        // A wrong password on an HTTP proxy is the proxy's 407, as the curl CLI gets it.
        let wrong = try CurlProxy(.http, host: "127.0.0.1", port: asking, username: "intruder", password: "wrong-secret")
        let refusal = await #expect(throws: CurlError.self) { try await self.get(self.httpbin.url("/get"), through: .through(wrong)) }
        #expect(refusal?.response?.status.code == 407)
        #expect(
            try await runCurlCLI(["-x", "http://intruder:wrong-secret@127.0.0.1:\(asking)", "-o", "/dev/null", "-w", "%{http_code}", httpbin.url("/get")])
                .output == "407")
        // A wrong password on a SOCKS5 proxy fails its handshake, as the curl CLI's does.
        let wrongSOCKS = try CurlProxy(.socks5Hostname, host: "127.0.0.1", port: asking, username: "user", password: "bad-socks-pw")
        let handshake = await #expect(throws: CurlError.self) { try await self.get(self.httpbin.url("/get"), through: .through(wrongSOCKS)) }
        #expect(handshake?.code == .proxyHandshakeFailed, "\(String(describing: handshake))")
        #expect(handshake?.message.hasPrefix("through the proxy socks5h://user:***@127.0.0.1:\(asking): ") == true, "\(String(describing: handshake))")
        #expect(handshake.map { !"\($0)".contains("bad-socks-pw") } == true)
        #expect(try await runCurlCLI(["-x", "socks5h://user:bad-socks-pw@127.0.0.1:\(asking)", httpbin.url("/get")]).status == 97)
        // A proxy nobody answers on: the message names it, without the password.
        let gone = try CurlProxy(.socks5, host: "127.0.0.1", port: refusedPort(), username: "user", password: "never-printed")
        let failure = await #expect(throws: CurlError.self) { try await self.get(self.httpbin.url("/get"), through: .through(gone)) }
        #expect(failure.map { !"\($0)".contains("never-printed") && !$0.message.contains("never-printed") } == true)
        #expect(!"\(CurlProxySetting.through(gone))".contains("never-printed"))
    }

    /// Hosts in the bypass list are reached directly; others still go through the proxy, as
    /// with the curl CLI's `--noproxy`.
    @Test func bypassedHostsGoDirectly() async throws {
        let port = refusedPort()
        for (bypass, direct) in [(["127.0.0.1"], true), ([".0.0.1"], false), (["*"], true), (["example.test", "127.0.0.1"], true), (["example.test"], false)] {
            let proxy = try CurlProxy(.http, host: "127.0.0.1", port: port, bypass: bypass)
            let answered = (try? await get(httpbin.url("/get"), through: .through(proxy))) != nil
            #expect(answered == direct, "\(bypass)")
            let cli = try await runCurlCLI(["-x", proxy.curlURL, "--noproxy", bypass.joined(separator: ","), "-o", "/dev/null", httpbin.url("/get")])
            #expect((cli.status == 0) == direct, "curl --noproxy \(bypass): \(cli.status)")
        }
    }

    /// A proxy that answers something that is not HTTP, or closes before answering, fails the
    /// request with the CLI's code and a message that names the proxy; nothing hangs.
    @Test(arguments: [
        ("http://proxy-garbage.test/", CurlError.Code.unsupportedProtocol, "not HTTP"),
        ("https://proxy-garbage.test/", .receiveError, "CONNECT"),
        ("http://proxy-close.test/", .gotNothing, "Empty reply"),
        ("https://proxy-close.test/", .receiveError, "CONNECT"),
    ])
    func aProxyThatMisbehavesFailsTheRequest(url: String, code: CurlError.Code, says: String) async throws {
        let proxy = try CurlProxy(.http, host: "127.0.0.1", port: faults.ports["http"]!)
        let client = try client(.through(proxy))
        defer { _ = client.shutdown() }
        let error = await #expect(throws: CurlError.self) { try await client.get(url).get() }
        #expect(error?.code == code, "\(String(describing: error))")
        #expect(error?.message.contains("proxy \(proxy)") == true && error?.message.contains(says) == true, "\(String(describing: error))")
        let cli = try await runCurlCLI(["-x", proxy.curlURL, url])
        #expect(cli.status == code.curlCode, "curl -x \(proxy) \(url): \(cli.status)")
    }

    /// `direct` ignores a proxy a request would otherwise get, and a request's own setting
    /// overrides the client's.
    @Test func aRequestsSettingOverridesTheClients() async throws {
        let refused = try CurlProxy(.http, host: "127.0.0.1", port: refusedPort())
        let client = try client(.through(refused))
        defer { _ = client.shutdown() }
        var request = CurlRequest(.get, httpbin.url("/get"))
        request.proxy = .direct
        #expect(try await client.execute(request).validate().get().status.code == 200)
        request.proxy = nil
        await #expect(throws: CurlError.self) { try await client.execute(request).get() }
        let echoing = try CurlProxy(.http, host: "127.0.0.1", port: faults.ports["http"]!)
        let direct = try self.client(.direct)
        defer { _ = direct.shutdown() }
        var proxied = CurlRequest(.get, "http://proxy-echo.test/one")
        proxied.proxy = .through(echoing)
        #expect(try await direct.execute(proxied).validate().decode(RawEcho.self).get().target == "http://proxy-echo.test/one")
    }

    @Test func proxyURLsAreReadAsTheCurlCLIReadsThem() throws {
        let cases: [(String, CurlProxy.Kind, String, Int, String?, String?)] = [
            ("127.0.0.1:3128", .http, "127.0.0.1", 3128, nil, nil),
            ("http://proxy.test", .http, "proxy.test", 1080, nil, nil),
            ("HTTPS://proxy.test/", .https, "proxy.test", 443, nil, nil),
            ("socks5://u@[::1]:1080", .socks5, "::1", 1080, "u", nil),
            ("socks5h://a%40b:p%3Aw%25@proxy.test:9", .socks5Hostname, "proxy.test", 9, "a@b", "p:w%"),
        ]
        for (url, kind, host, port, username, password) in cases {
            let proxy = try CurlProxy(url: url)
            #expect(proxy.kind == kind && proxy.host == host && proxy.port == port, "\(url)")
            #expect(proxy.username == username && proxy.password == password, "\(url)")
        }
        #expect(try CurlProxy(url: "socks5h://a%40b:p%3Aw%25@proxy.test:9").description == "socks5h://a%40b:***@proxy.test:9")
        #expect(try CurlProxy(url: "socks5://[::1]:1080").curlURL == "socks5://[::1]:1080")
    }

    @Test(arguments: [
        ("ftp://proxy.test", "the proxy scheme 'ftp' is not one of http, https, socks5, socks5h"),
        ("http://proxy.test:0", "the proxy's port 0 is not between 1 and 65535"),
        ("http://proxy.test:65536", "the proxy's port 65536 is not between 1 and 65535"),
        ("http://proxy.test:99999999999999999999", "the proxy's port '99999999999999999999' is not a number"),
        ("http://proxy.test:-1", "the proxy's port -1 is not between 1 and 65535"),
        ("http://u:hidden-pw@proxy.test/path", "the proxy URL has '/path' after its host"),
        ("http://", "the proxy's host is empty"),
        ("http://u:hidden-pw@", "the proxy's host is empty"),
        ("http://[::1", "the proxy's IPv6 address '[::1' has no closing ']'"),
        ("http://pro xy.test", "the proxy's host 'pro xy.test' holds ' '"),
        ("http://u:hidden-pw\u{0}@proxy.test", "the proxy's password holds a NUL byte"),
    ])
    func badProxiesAreRefusedWithoutThePassword(url: String, says: String) throws {
        let error = #expect(throws: CurlError.self) { try CurlProxy(url: url) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.hasPrefix(says) == true, "\(String(describing: error))")
        #expect(error?.message.contains("hidden-pw") == false)
    }

    @Test func badPartsAreRefused() throws {
        #expect(throws: CurlError.self) { try CurlProxy(.http, host: "p.test", port: 1, password: "no user") }
        #expect(throws: CurlError.self) { try CurlProxy(.http, host: "p.test", port: 1, bypass: ["a,b"]) }
        #expect(throws: CurlError.self) { try CurlProxy(.http, host: "p.test", port: 1, bypass: ["*", "a.test"]) }
        #expect(throws: CurlError.self) { try CurlProxy(.http, host: "p.test", port: 1, bypass: ["10.0.0.0/8"]) }
        #expect(throws: CurlError.self) { try CurlProxy(.http, host: "p.test", port: Int.max) }
        #expect(throws: CurlError.self) { try CurlProxy(.http, host: "p.test", port: Int.min) }
        #expect(try CurlProxy(.http, host: "[::1]", port: 1).host == "::1")
    }
}
