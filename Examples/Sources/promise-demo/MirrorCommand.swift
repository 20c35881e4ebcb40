import ArgumentParser
import MirrorKit
import PromiseFS
import PromiseUV

/// `promise-demo mirror` (the default command): mirrors URLs into a directory with an SQLite
/// index, every callback on a `UVLoop` run by the main thread.
struct MirrorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Mirror URLs into a directory, with an SQLite index of every result.",
        discussion: """
            With no URLs and no --file, mirrors a built-in sample site that the program serves \
            itself on 127.0.0.1, so it works offline. Ctrl-C cancels the transfers in flight \
            and leaves no partial file. Running it again refreshes the mirror in place.
            Exit status: 0 when the run finished (failed URLs are listed and recorded), 1 when \
            it could not start, 130 when interrupted by Ctrl-C (143 by SIGTERM).
            """
    )

    @Argument(help: "URLs to mirror.")
    var urls: [String] = []

    @Option(name: .shortAndLong, help: "Read URLs from this file, one per line (# starts a comment).")
    var file: String?

    @Option(name: .shortAndLong, help: "Where to store the bodies and the index.")
    var output = "mirror"

    @Option(help: "The SQLite index (default: <output>/index.sqlite).")
    var index: String?

    @Option(name: [.customShort("j"), .long], help: "How many URLs to fetch at once.")
    var concurrency = 4

    @Option(help: "Seconds each request may take.")
    var timeout = 30.0

    @Option(help: "Retries of a transient failure (refused, reset, timeout, 429, 502-504), with doubling backoff.")
    var retries = 2

    @Option(help: "Finished URLs recorded per index transaction.")
    var batch = 8

    @Option(help: "A CA bundle for https URLs signed by a private authority.")
    var caFile: String?

    @Flag(help: "Print plain progress lines even on a terminal.")
    var plain = false

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1...256, got \(concurrency)") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive, got \(timeout)") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be 0...10, got \(retries)") }
        guard batch > 0 else { throw ValidationError("--batch must be positive, got \(batch)") }
    }

    func run() throws {
        let loop = try UVLoop()
        // Every callback without an explicit context now runs on the loop, on this thread.
        Promises.defaultContext = loop
        defer { try? awaitPromise(loop.shutdown()) }

        let console = Console.standardOutput(plain: plain)
        var lines = urls
        if let file {
            do {
                lines += try loop.run(until: PromiseFileSystem().readText(file, maxSize: 16 << 20)).split(whereSeparator: \.isNewline).map(String.init)
            } catch {
                console.line("promise-demo: cannot read the URL list: \(error)")
                throw ExitCode.failure
            }
        }
        var server: SampleServer?
        if lines.isEmpty {
            let sample = try SampleServer(preferredPort: SampleServer.preferredPort)
            server = sample
            lines = sample.sampleURLs
            console.line("No URLs given: mirroring the built-in sample site, served on 127.0.0.1:\(sample.port) by this program.")
            console.line(
                "It includes a redirect, a 404, a page that fails once (retried), a slow page, a refused port, a file:// URL and a line that is not a URL.")
        }
        defer { server?.stop() }

        var options = MirrorOptions(outputDirectory: output)
        options.indexPath = index
        options.concurrency = concurrency
        options.timeout = .milliseconds(Int(timeout * 1000))
        options.retries = retries
        options.batchSize = batch
        options.caFile = caFile
        let mirror = try Mirror(options: options, loop: loop, console: console)
        let start = ContinuousClock.now

        // Ctrl-C or a polite kill winds the run down instead of killing it. The watches are
        // one-shot: a second Ctrl-C while it winds down kills the program the usual way.
        let interrupt = loop.nextSignal(.interrupt)
        let terminate = loop.nextSignal(.terminate)
        for watch in [interrupt, terminate] {
            watch.then { signal in mirror.interrupt(by: signal) }
        }
        let report: MirrorReport
        do {
            report = try loop.run(
                until: Promise<MirrorReport> { [lines] in mirror.run(lines) }.always {
                    interrupt.cancel()
                    terminate.cancel()
                })
        } catch {
            console.line("promise-demo: the mirror could not start: \(error)")
            throw ExitCode.failure
        }
        for line in Summary.lines(report, outputDirectory: output, elapsed: ContinuousClock.now - start) {
            console.line(line)
        }
        // The shell's convention for a program stopped by a signal: 128 + its number.
        if let signal = report.interruptedBy { throw ExitCode(128 + signal.rawValue) }
    }
}
