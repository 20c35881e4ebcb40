import Foundation
import Testing

/// Depending on PromiseCurl alone is enough, and links nothing of the other adapters.
@Suite struct ProductTests {
    private var minimal: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("promisecurl-minimal").path
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    @Test func aProgramDependingOnlyOnPromiseCurlWorks() throws {
        let output = try run(minimal, [TestServer.nginx.url("/small.txt")])
        #expect(output == "200 17\n")
    }

    @Test func itLinksLibcurlAndNoOtherAdapterLibrary() throws {
        let libraries = try run("/usr/bin/ldd", [minimal])
        #expect(libraries.contains("libcurl.so"))
        #expect(!libraries.contains("libuv"))
        #expect(!libraries.contains("libsqlite3"))
    }
}
