// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
// promise-wait: waits until a URL answers with a 2xx status, retrying with growing waits up
// to a deadline, with a progress line and Ctrl-C. Every callback runs on a UVLoop that the
// main thread runs. The "Command-line tools" article in PromiseCore's documentation walks
// through it.
//
//   promise-wait URL [SECONDS]
//   exit status: 0 ready, 1 gave up, 2 usage, 128 + n when stopped by signal n

import Glibc
import PromiseCurl
import PromiseUV

/// Writes `text` to standard error, unbuffered.
func standardError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

// Top-level code, as a program's main.swift is written: every block the article quotes
// compiles here as it would in a reader's own main.swift.
let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...2).contains(arguments.count), let seconds = Int(arguments.count == 2 ? arguments[1] : "30"), seconds > 0 else {
    standardError("usage: promise-wait URL [SECONDS]\n")
    exit(2)
}
let url = arguments[0]
let loop: UVLoop
let client: CurlClient
do {
    loop = try UVLoop()
    client = try CurlClient()
} catch {
    standardError("promise-wait: \(error)\n")
    exit(1)
}
Promises.defaultContext = loop  // every callback below runs on the loop, on this thread

// State that only loop callbacks touch: no lock, no @unchecked Sendable.
// DocC: begin
let attempts = UVLoopBound(0, loop: loop)
let stoppedBy = UVLoopBound<UVSignal?>(nil, loop: loop)
// DocC: end

// The progress line; it does not keep the loop running once the work is done.
let started = ContinuousClock.now
// DocC: begin
let ticker = loop.every(.milliseconds(250), keepsLoopAlive: false) { _ in
    let elapsed = (ContinuousClock.now - started).components.seconds
    if isatty(2) != 0 { standardError("\r\u{1B}[Kwaiting for \(url): attempt \(attempts.value), \(elapsed) s") }
}
// DocC: end

// DocC: begin
let ready = retry(attempts: 1_000, backoff: .exponential(initial: .milliseconds(100), maximum: .seconds(2))) { attempt in
    attempts.value = attempt
    return client.get(url).timeout(.seconds(5)).map { response in _ = try response.validate() }
}
.timeout(.seconds(seconds), label: "waiting for \(url)")
// DocC: end

// Ctrl-C or SIGTERM stops the wait. The watches end once the wait is over, and the
// signals' default actions come back.
// DocC: begin
let watches = [loop.nextSignal(.interrupt), loop.nextSignal(.terminate)]
for watch in watches {
    watch.done { signal in
        stoppedBy.value = signal
        ready.cancel()
    }
}

let status: Promise<Int32> = ready
    .map { _ in
        print("ready after \(attempts.value) attempt(s)")
        return 0
    }
    .recover(policy: .allErrors) { error in
        if let signal = stoppedBy.value { return 128 + signal.rawValue }
        print("gave up after \(attempts.value) attempt(s): \(error)")
        return 1
    }
    .always { watches.forEach { $0.cancel() } }
// DocC: end

// Said from the loop, after the signal watches queued before it have started.
loop.execute { standardError("promise-wait: waiting for \(url), up to \(seconds) s; Ctrl-C stops\n") }

// DocC: begin
let code = (try? loop.run(until: status)) ?? 1
ticker.cancel()
if isatty(2) != 0 { standardError("\n") }
_ = try? awaitPromise(client.shutdown())
_ = try? awaitPromise(loop.shutdown())
exit(code)
// DocC: end
