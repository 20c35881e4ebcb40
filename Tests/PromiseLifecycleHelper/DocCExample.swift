// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
// Compiled only with the ServiceLifecycle trait, as the module under test is (`make test` enables it).
#if ServiceLifecycle
import Glibc
import Logging
import PromiseCurl
import PromiseServiceLifecycle
import PromiseSQLite
import PromiseUV
import ServiceLifecycle

/// The reader's own server in the landing page's program: once the group runs it, it sends
/// the process the SIGTERM the group watches for, and waits for the graceful shutdown.
struct SignalsOnceRunning: Service {
    func run() async throws {
        kill(getpid(), SIGTERM)
        try? await gracefulShutdown()
    }
}

/// PromiseServiceLifecycle's DocC landing page, verbatim between `// DocC: begin` and
/// `// DocC: end` (PromiseCoreTests' `DocCCodeBlocksTests` checks it), run in `directory`.
/// Prints what became of the three resources once `group.run()` has returned.
func doccLandingPage(in directory: String) async throws {
    guard chdir(directory) == 0 else { throw UVError(.invalidArgument, operation: "chdir", detail: directory) }
    let myServer = SignalsOnceRunning()

    // DocC: begin
    let loop = try UVLoop()
    try loop.startThread()
    let db = SQLiteDatabase(path: "app.sqlite")
    let client = try CurlClient()

    let group = ServiceGroup(
        services: [PromiseService(loop), PromiseService(db), PromiseService(client), myServer],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: Logger(label: "app")
    )
    try await group.run()
    // DocC: end

    print("group stopped")
    print("loop refuses work: \(await loop.after(.milliseconds(1)).result().map { UVError.Code.loopClosed ~= $0 } == true)")
    print("database refuses work: \(await db.execute("SELECT 1").result().map { SQLiteError.Code.closed ~= $0 } == true)")
    print("client refuses work: \(await client.get("http://127.0.0.1:1/").result().map { CurlError.Code.shutdown ~= $0 } == true)")
    print("database file: \(access("app.sqlite", F_OK) == 0)")
}

extension Promise {
    /// The promise's error once it settles, or `nil` when it is fulfilled.
    func result() async -> (any Error)? {
        do {
            _ = try await get()
            return nil
        } catch {
            return error
        }
    }
}
#endif  // ServiceLifecycle
