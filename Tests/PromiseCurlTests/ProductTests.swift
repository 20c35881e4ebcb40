import PromiseTestSupport
import Foundation
import Testing

/// Depending on PromiseCurl alone is enough, and links nothing of the other adapters.
@Suite struct ProductTests {
    private var minimal: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("promisecurl-minimal").path
    }

    /// Runs `executable` to its end off the cooperative pool (it blocks while the program
    /// runs) and returns its standard output.
    private func run(_ executable: String, _ arguments: [String]) async throws -> String {
        try await runProgram(executable, arguments).output
    }

    @Test func aProgramDependingOnlyOnPromiseCurlWorks() async throws {
        let output = try await run(minimal, [TestServer.nginx.url("/small.txt")])
        #expect(output == "200 17\n")
    }

    /// Whether this machine lets an unprivileged process have its own network namespace
    /// (`unshare -rn`); some distributions turn that off.
    private static let namespacesWork: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rn", "/usr/sbin/ip", "link", "set", "lo", "up"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// A name that cannot resolve, looked up where nothing can leave the machine: the program
    /// runs in a network namespace of its own with only a loopback interface, so the lookup
    /// fails without a packet reaching any resolver. It must fail with `couldNotResolveHost`
    /// in bounded time, and the same client must then fetch from a server in that namespace.
    @Test(.enabled(if: namespacesWork, "unprivileged network namespaces (unshare -rn) are off here"))
    func anUnresolvableNameFailsFastAndTheClientGoesOn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dns-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "after the failure\n".write(toFile: directory + "/ok.txt", atomically: true, encoding: .utf8)
        // The namespace is new and empty, so a fixed port cannot clash with anything.
        let script = """
            set -e
            ip link set lo up
            python3 -m http.server 8080 --bind 127.0.0.1 --directory '\(directory)' >/dev/null 2>&1 &
            server=$!
            trap 'kill $server' EXIT
            for i in $(seq 200); do
              python3 -c 'import socket; socket.create_connection(("127.0.0.1", 8080), 0.2)' 2>/dev/null && break
              sleep 0.05
            done
            started=$(date +%s%N)
            '\(minimal)' http://promise-test.invalid/ http://127.0.0.1:8080/ok.txt
            echo "took $(( ($(date +%s%N) - started) / 1000000 )) ms"
            """
        let output = try await run("/usr/bin/unshare", ["-rn", "/bin/sh", "-c", script])
        var lines = output.split(separator: "\n").map(String.init)
        // Timed in the namespace around the program alone: starting the server there is not
        // what this checks.
        let took = lines.popLast().flatMap { Int($0.dropFirst("took ".count).dropLast(" ms".count)) }
        expectTimeLimit(took.map { .milliseconds($0) }, under: .seconds(30), "the program failing its lookup and fetching after it")
        #expect(lines.count == 2, "\(output)")
        #expect(lines.first?.hasPrefix("error: couldNotResolveHost") == true, "\(output)")
        #expect(lines.first?.contains("promise-test.invalid") == true, "\(output)")
        #expect(lines.last == "200 18", "\(output)")
    }

    @Test func itLinksLibcurlAndNoOtherAdapterLibrary() async throws {
        let libraries = try await run("/usr/bin/ldd", [minimal])
        #expect(libraries.contains("libcurl.so"))
        #expect(!libraries.contains("libuv"))
        #expect(!libraries.contains("libsqlite3"))
    }

    /// Swift packages link statically, so `ldd` cannot see them: the symbol table can.
    @Test func itContainsNoneOfTheOptInIntegrationsPackages() async throws {
        let symbols = try await run("/usr/bin/nm", [minimal])
        #expect(symbols.contains("11PromiseCurl"), "the check reads a symbol table that has PromiseCurl's symbols")
        #expect(!symbols.contains("7Logging"), "swift-log (PromiseLogging) is linked only by programs that name it")
        #expect(!symbols.contains("16ServiceLifecycle"), "swift-service-lifecycle is linked only by programs that name it")
    }
}
