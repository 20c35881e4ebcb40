// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
// promise-fetch: downloads URLs into a directory, four at a time, retrying transient
// failures, with a progress line and Ctrl-C. It depends on PromiseCurl (which brings
// PromiseCore) and PromiseSignals (for Ctrl-C) only. The "Command-line tools" article in
// PromiseCore's documentation walks through it.
//
//   promise-fetch DIRECTORY URL...
//   exit status: 0 all downloaded, 1 some failed, 2 usage, 128 + n when stopped by signal n

import Dispatch
import Glibc
import PromiseCurl
import PromiseSignals
import Synchronization

/// Writes `text` to standard error, unbuffered.
func standardError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

// DocC: begin
/// Errors worth another try: the server or the network may recover.
func isTransient(_ error: any Error) -> Bool {
    switch error {
    case CurlError.Code.couldNotConnect, CurlError.Code.operationTimedOut, CurlError.Code.receiveError:
        return true
    case CurlError.Code.badStatus:
        let status = (error as? CurlError)?.response?.status.code ?? 0
        return status == 429 || status >= 500
    default:
        return false
    }
}
// DocC: end

/// The last segment of the URL's path (`report.csv`), or `index` for a directory.
func fileName(for url: String) -> String {
    let parts = url.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count > 3, let last = parts.last?.split(separator: "?").first, !last.isEmpty else { return "index" }
    return String(last)
}

// Top-level code, as a program's main.swift is written: every block the article quotes
// compiles here as it would in a reader's own main.swift.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    standardError("usage: promise-fetch DIRECTORY URL...\n")
    exit(2)
}
let directory = arguments[0]
let urls = Array(arguments.dropFirst())
let client: CurlClient
do {
    client = try CurlClient()
} catch {
    standardError("promise-fetch: \(error)\n")
    exit(1)
}

// One URL: up to three retries with growing waits, then the file, or the reason.
// DocC: begin
@Sendable func fetch(_ url: String, as name: String) -> Promise<Void> {
    var settings = CurlRequest(.get, url)
    settings.timeout = .seconds(30)
    let request = settings
    return retry(attempts: 3, backoff: .exponential(initial: .milliseconds(200)), condition: { _, error in isTransient(error) }) { _ in
        client.download(request, to: directory + "/" + name, options: CurlDownloadOptions())
            .map { response in _ = try response.validate() }
    }
}
// DocC: end

// The progress line, redrawn in place on a terminal.
let counts = Mutex((ok: 0, failed: 0))
let progress = DispatchSource.makeTimerSource(queue: .global())
progress.schedule(deadline: .now(), repeating: .milliseconds(200))
progress.setEventHandler { @Sendable in  // runs on a Dispatch thread, not the main actor
    let (ok, failed) = counts.withLock { ($0.ok, $0.failed) }
    if isatty(2) != 0 { standardError("\r\u{1B}[K[\(ok + failed)/\(urls.count)] \(ok) ok, \(failed) failed") }
}
progress.resume()

// Four at a time; a failure does not stop the others.
// DocC: begin
let all = Promise<Void>.mapSettled(Array(urls.enumerated()), concurrency: 4) { item in
    let name = "\(item.offset + 1)-" + fileName(for: item.element)
    return fetch(item.element, as: name)
        .map {
            counts.withLock { $0.ok += 1 }
            if isatty(2) == 0 { standardError("saved \(name)\n") }
        }
        .recover(policy: .allErrors) { error in
            if !(error is CancellationError) { counts.withLock { $0.failed += 1 } }
            throw error
        }
}
// DocC: end

// Ctrl-C (or SIGTERM) cancels every download in flight; a cancelled one leaves no file.
// DocC: begin
let stop = Promises.nextSignal()
let stoppedBy = Mutex<Int32?>(nil)
stop.done { signal in
    stoppedBy.withLock { $0 = signal }
    all.cancel()
}
// DocC: end
standardError("promise-fetch: \(urls.count) URL(s) into \(directory), 4 at a time; Ctrl-C stops\n")

// DocC: begin
let results = (try? awaitPromise(all)) ?? []
stop.cancel()
// DocC: end
progress.cancel()
if isatty(2) != 0 { standardError("\n") }
for (url, result) in zip(urls, results) {
    if case .failure(let error) = result, !(error is CancellationError) { print("FAIL \(url): \(error)") }
}
let (ok, failed) = counts.withLock { ($0.ok, $0.failed) }
print("\(ok) downloaded, \(failed) failed, \(urls.count - ok - failed) not finished")
_ = try? awaitPromise(client.shutdown())
// DocC: begin
if let signal = stoppedBy.withLock({ $0 }) { exit(128 + signal) }
exit(failed == 0 ? 0 : 1)
// DocC: end
