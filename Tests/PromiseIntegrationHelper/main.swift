// The README's headline program: a `UVLoop` as the default context while other products
// finish the work. Spawned by PromiseIntegrationTests, so the process-wide default context
// stays out of the test process.
//
//   promise-integration-helper curl URL        an HTTP GET on CurlClient.shared
//   promise-integration-helper fs PATH         PromiseFileSystem().readText on the shared pool
//   promise-integration-helper sql             a query on an in-memory SQLiteDatabase
//   promise-integration-helper all URL PATH    all three at once, as a new user writes it
//   promise-integration-helper await PATH      awaitPromise on the main thread before run()
//   promise-integration-helper await-inside PATH
//                                              awaitPromise inside a loop callback: deadlock
//   promise-integration-helper unreferenced    a callback on loop.unreferenced does not
//                                              keep run() going; one on the loop does
//
// Each `then` prints a line; `run()` returning prints "run returned". Exits 0 when it got there.
import Glibc
import PromiseCurl
import PromiseFS
import PromiseSQLite
import PromiseUV

/// Writes one line to standard output at once (no buffering, so lines keep their order
/// with anything written to standard error).
func say(_ items: Any...) {
    let line = items.map { "\($0)" }.joined(separator: " ") + "\n"
    _ = line.utf8CString.withUnsafeBytes { write(1, $0.baseAddress, $0.count - 1) }
}
let arguments = Array(CommandLine.arguments.dropFirst())
let loop = try UVLoop()
Promises.defaultContext = loop

func checkOnLoop() {
    if !loop.isOnLoopThread { say("callback off the loop thread") }
}

switch arguments.first {
case "curl":
    CurlClient.shared.get(arguments[1]).then {
        checkOnLoop(); say("http", $0.status.code)
    }
case "curl-proxy":
    // arguments[1]: "environment" or "direct"; the body is printed whole.
    var configuration = CurlConfiguration()
    configuration.proxy = arguments[1] == "environment" ? .fromEnvironment : .direct
    let client = try CurlClient(configuration: configuration)
    client.get(arguments[2]).then { response in
        checkOnLoop(); say("http", response.status.code, response.text)
    }.catch { say("failed", $0) }.always { _ = client.shutdown() }
case "fs":
    PromiseFileSystem().readText(arguments[1]).then {
        checkOnLoop(); say("fs", $0.utf8.count)
    }
case "sql":
    SQLiteDatabase(path: ":memory:").scalar(Int.self, "SELECT 6 * 7").then {
        checkOnLoop(); say("sql", $0 ?? -1)
    }
case "all":
    let http = CurlClient.shared.get(arguments[1]).then { say("http", $0.status.code) }
    let text = PromiseFileSystem().readText(arguments[2]).then { say("fs", $0.utf8.count) }
    let sql = SQLiteDatabase(path: ":memory:").scalar(Int.self, "SELECT 6 * 7").then { say("sql", $0 ?? -1) }
    _ = (http, text, sql)
case "await":
    let count = try awaitPromise(
        PromiseFileSystem().readText(arguments[1]).then { text in
            checkOnLoop(); return text.count
        })
    say("awaited", count)
case "await-inside":
    let path = arguments[1]
    _ = Promise<Void>(on: loop) { () -> Void in
        do {
            _ = try awaitPromise(PromiseFileSystem().readText(path).then { $0.count })
            say("awaited inside a loop callback")
        } catch let error as PromiseError where error.code == .deadlock {
            say("deadlock:", error.message)
        }
    }
case "unreferenced":
    let (background, backgroundResolver) = Promise<Int>.pending()
    background.then(on: loop.unreferenced) { _ in say("background callback ran") }
    loop.run()
    say("run returned with a background callback waiting")
    let (foreground, foregroundResolver) = Promise<Int>.pending()
    foreground.then { say("foreground", $0) }
    let resolver = Thread { foregroundResolver.fulfill(7) }
    resolver.start(after: 0.1)
    loop.run()
    // Still pending after both runs; resolved now, its callback runs on the next run().
    backgroundResolver.fulfill(0)
default:
    say("unknown mode \(arguments)")
    exit(2)
}
loop.run()
say("run returned")
try awaitPromise(loop.shutdown())

/// A thread that runs `body` once after a pause.
struct Thread {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    func start(after seconds: Double) {
        let body = self.body
        let micros = useconds_t(seconds * 1_000_000)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(
            Box {
                usleep(micros); body()
            }
        ).toOpaque()
        pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        pthread_detach(thread)
    }
}

final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
