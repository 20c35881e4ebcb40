// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseFS
import PromiseUV
import Testing

// The README's PromiseUV block, exactly as written there (checked by
// PromiseCoreTests.readmeSnippetsAreAllHere), with assertions on what it produces. It runs the
// loop on the calling thread, so it runs on a thread of its own, not Swift's cooperative pool.

/// The README tour, returning what it computed.
func promiseUVTour() throws -> String {
    let loop = try UVLoop()                                   // owns its own uv_loop_t

    let summary = all([
        loop.work { (1...100_000).reduce(0, +) },             // on libuv's thread pool
        loop.after(.milliseconds(20)).then(on: loop) { 42 },  // one uv timer serves them all
    ])
    .timeout(on: loop, .seconds(30))
    .then(on: loop) { values in "sum \(values[0]), answer \(values[1])" }

    let text = try loop.run(until: summary)                   // this thread runs the loop until done
    try awaitPromise(loop.shutdown())                         // closes every handle, then the loop
    return text
}

@Suite struct ReadmeExamplesTests {
    @Test func promiseUVTour() async throws {
        let text = try await onNewThread { Result { try PromiseUVTests.promiseUVTour() } }.get().get()
        #expect(text == "sum 5000050000, answer 42")
    }
}

/// A file-watching example, returning the change it saw.
func promiseUVFileWatchTour(dir: String) throws -> UVFileChange {
    let loop = try UVLoop()
    let settings = "\(dir)/settings.json"

    let saved = loop.nextChange(of: settings)                 // inotify, on the file's directory
    loop.execute { _ = PromiseFileSystem().writeText(settings, "{}") }  // temp file, then rename
    let change = try loop.run(until: saved)                   // one change for the atomic write
    print(change)   // rename /tmp/…/settings.json (exists, 1 event)
    try awaitPromise(loop.shutdown())
    return change
}

extension InotifyTests {
    @Suite struct ReadmeFileWatchTests {
        @Test func promiseUVFileWatchTour() async throws {
            let directory = try WatchDirectory()
            defer { directory.cleanUp() }
            writeInPlace(directory("settings.json"), "{\"theme\": \"light\"}")
            let change = try await onNewThread { Result { try PromiseUVTests.promiseUVFileWatchTour(dir: directory.path) } }.get().get()
            #expect(change == UVFileChange(path: directory("settings.json"), name: "settings.json", events: .rename, count: 1, exists: true))
        }
    }
}

// A child-process example, with assertions on what it produces. Like the tour, it runs the loop on a thread of its own.

/// A child-process example, returning what it computed.
func promiseUVChildProcesses() throws -> [String] {
let loop = try UVLoop()
var count = UVCommand("wc", arguments: ["-l"])             // looked up on PATH
count.standardInput = .text("one\ntwo\nthree\n")          // bytes, a file, or inherited
let lines = loop.spawn(count)                               // cancel(): SIGTERM, then SIGKILL
    .then(on: loop) { result in try result.requireSuccess("wc").outputText ?? "" }
let greeting = loop.output("echo", ["hello"])               // rejects on a non-zero exit

let texts = try loop.run(until: all([lines, greeting]))     // settles once each child is reaped
try awaitPromise(loop.shutdown())
    return texts
}

extension ReadmeExamplesTests {
    @Test func promiseUVChildProcesses() async throws {
        let texts = try await onNewThread { Result { try PromiseUVTests.promiseUVChildProcesses() } }.get().get()
        #expect(texts == ["3\n", "hello\n"])
    }
}
