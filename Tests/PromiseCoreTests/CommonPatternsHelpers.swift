// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import Glibc
import PromiseCore
import Synchronization
import Testing

// The helpers CommonPatterns.md shows, the stand-ins its snippets call, and the tools the
// tests in CommonPatternsTests.swift use. `articleSnippetsAreAllHere` reads this file too.

// MARK: - Helpers in the article

extension CommonPatternsTests {
    /// A backup that finishes after 30 ms.
    func startBackup() -> Promise<Void> {
        let (backup, backupResolver) = Promise<Void>.pending()
        _ = DispatchQueue.global().executeAfter(.milliseconds(30)) { backupResolver.fulfill(()) }
        return backup
    }

    /// The address of `signal`'s handler (0 for `SIG_DFL`, 1 for `SIG_IGN`).
    func signalAction(_ signal: Int32) -> Int {
        var action = sigaction()
        sigaction(signal, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }

    // DocC: begin
    /// Converts a file after 30 ms of work on another thread.
    func convert(_ file: String) -> Promise<String> {
        let (promise, resolver) = Promise<String>.pending()
        let job = DispatchQueue.global().executeAfter(.milliseconds(30)) {
            let pdf = file.replacing(".txt", with: ".pdf")   // the work: never runs once cancelled
            converted.append(pdf)
            resolver.fulfill(pdf)
        }
        promise.onCancel { job.cancel() }                   // how to stop it
        return promise
    }
    // DocC: end

    /// Reports to its `delegate`, which it holds weakly, and may report more than once.
    protocol ScannerDelegate: AnyObject, Sendable {
        func scanner(_ scanner: DeviceScanner, didFind device: String)
        func scanner(_ scanner: DeviceScanner, didFailWith error: any Error)
    }

    // DocC: begin
    /// Turns the first report of a scan into a promise.
    final class ScanProxy: ScannerDelegate {
        let (promise, resolver) = Promise<String>.pending()

        func start(_ scanner: DeviceScanner) -> Promise<String> {
            scanner.delegate = self      // a weak reference: something else must keep self alive,
            scanner.start()
            return promise.always { _ = self }   // so the pending promise holds it until it settles
        }

        func scanner(_ scanner: DeviceScanner, didFind device: String) {
            resolver.fulfill(device)      // only the first report counts
            scanner.stop()
        }

        func scanner(_ scanner: DeviceScanner, didFailWith error: any Error) {
            resolver.reject(error)
        }
    }
    // DocC: end

    // DocC: begin
    func scanOnce(with scanner: DeviceScanner) -> Promise<String> {
        ScanProxy().start(scanner)
    }
    // DocC: end

    // DocC: begin
    func cityOrDefault(_ location: Promise<String>) -> Promise<String> {
        location.recover { error in
            guard error is AirplaneMode else { throw error }   // recover only what you expect
            return "Savannah"
        }
    }
    // DocC: end

    // DocC: begin
    /// Word counts that only `queue` reads or writes.
    final class Tally: @unchecked Sendable {
        // Safe: `counts` is only touched by blocks running on `queue`, which is serial.
        let queue = DispatchQueue(label: "tally")
        private(set) var counts: [String: Int] = [:]

        func add(_ word: String) {
            dispatchPrecondition(condition: .onQueue(queue))
            counts[word, default: 0] += 1
        }
    }
    // DocC: end
}

// MARK: - Stand-ins for the reader's own code (`User` and `Order` are ReadmeExamplesTests')

extension CommonPatternsTests {
    struct Avatar: Sendable {
        let owner: String
        let size: Int

        func scaled(to size: Int) -> Avatar { Avatar(owner: owner, size: size) }
    }

    struct Settings: Sendable {
        let theme: String
        let language: String
    }

    struct Photo: Sendable {
        let name: String
    }

    enum RenderError: Error, Equatable {
        case empty
    }

    struct Unavailable: Error {}
    struct AirplaneMode: Error {}

    enum JobStatus: Sendable, Equatable {
        case running, done
    }

    /// Users after 5 ms; negative ids are unavailable, user 0 has an empty avatar.
    func fetchUser(id: Int) -> Promise<User> {
        guard id >= 0 else { return Promise<User>(Unavailable()).delay(.milliseconds(5)) }
        return Promise(User(id: id, name: id == 7 ? "Ada" : "User \(id)")).delay(.milliseconds(5))
    }

    func fetchAvatar(for user: User) -> Promise<Avatar> {
        Promise(Avatar(owner: user.name, size: user.id == 0 ? 0 : 512)).delay(.milliseconds(5))
    }

    func render(_ avatar: Avatar) throws -> String {
        guard avatar.size > 0 else { throw RenderError.empty }
        return "\(avatar.owner) at \(avatar.size) px"
    }

    func loadSettings() -> Promise<Settings> {
        settingsLoads.increment()
        return Promise(Settings(theme: "dark", language: "en")).delay(.milliseconds(5))
    }

    /// Takes 30 ms, counted by `gauge`.
    func upload(_ name: String) -> Promise<String> {
        gauge.run(name, for: .milliseconds(30)) { "\(name) uploaded" }
    }

    /// Takes 5 s unless cancelled; counts the cancellations in `searchesStopped`.
    func search(_ query: String) -> Promise<[String]> {
        let (promise, resolver) = Promise<[String]>.pending()
        let work = DispatchQueue.global().executeAfter(.seconds(5)) { resolver.fulfill(["\(query): 1 result"]) }
        let stopped = searchesStopped
        promise.onCancel {
            work.cancel()
            stopped.increment()
        }
        return promise
    }

    func quickCheck() -> Promise<String> {
        Promise("all good").delay(.milliseconds(1))
    }

    func currentCity() -> Promise<String> {
        Promise<String>(AirplaneMode()).delay(.milliseconds(1))
    }

    func lastKnownCity() -> Promise<String> {
        Promise("Porto").delay(.milliseconds(1))
    }

    func loadPhoto(named name: String) -> Promise<Photo> {
        photoLoads.increment()
        return Promise(Photo(name: name)).delay(.milliseconds(10))
    }

    func makeThumbnail(of photo: Photo) -> Promise<String> {
        gauge.run("thumbnail", for: .milliseconds(50)) { "\(photo.name), 64 px" }
    }

    func detectFaces(in photo: Photo) -> Promise<Int> {
        gauge.run("faces", for: .milliseconds(50)) { 2 }
    }

    /// Takes 50 ms; counts starts in `backupsStarted` and cancellations in `backupsStopped`.
    func uploadBackup(of photo: Photo) -> Promise<String> {
        backupsStarted.increment()
        let promise = gauge.run("backup", for: .milliseconds(50)) { "\(photo.name) backed up" }
        let stopped = backupsStopped
        promise.onCancel { stopped.increment() }
        return promise
    }

    /// Answers `fileSize(of:)` with 9 bytes, or `Unavailable` for `missing.txt`, on another thread.
    func fileSize(of path: String, completion: @escaping @Sendable (Int?, (any Error)?) -> Void) {
        DispatchQueue.global().async {
            path == "missing.txt" ? completion(nil, Unavailable()) : completion(9, nil)
        }
    }

    func readText(of path: String, completion: @escaping @Sendable (Result<String, Unavailable>) -> Void) {
        DispatchQueue.global().async { completion(.success("some text")) }
    }

    func measureImage(_ name: String, completion: @escaping @Sendable (Int, Int, (any Error)?) -> Void) {
        DispatchQueue.global().async { completion(640, 480, nil) }
    }

    /// Answers "ok" after failing a given number of times.
    final class StatusService: Sendable {
        private let state: Lock<(failuresLeft: Int, calls: Int)>
        private let failure: any Error

        init(failuresBeforeSuccess: Int, failure: any Error = Unavailable()) {
            state = Lock((failuresBeforeSuccess, 0))
            self.failure = failure
        }

        var calls: Int { state.withLock { $0.calls } }

        func status() -> Promise<String> {
            let fail = state.withLock { state in
                state.calls += 1
                state.failuresLeft -= 1
                return state.failuresLeft >= 0
            }
            return fail ? Promise<String>(failure).delay(.milliseconds(1)) : Promise("ok").delay(.milliseconds(1))
        }
    }

    /// Reports `.running` until it has been asked a given number of times.
    final class BuildJob: Sendable {
        private let doneAfterPolls: Int
        private let count = Lock(0)

        init(doneAfterPolls: Int) {
            self.doneAfterPolls = doneAfterPolls
        }

        var polls: Int { count.withLock { $0 } }

        func status() -> Promise<JobStatus> {
            let poll = count.withLock { $0 += 1; return $0 }
            return Promise(poll >= doneAfterPolls ? .done : .running).delay(.milliseconds(1))
        }
    }

    /// A delegate-style API: reports each device to a weak delegate, or fails if it finds none.
    /// A silent scanner never reports anything.
    final class DeviceScanner: Sendable {
        private struct State {
            weak var delegate: (any ScannerDelegate)?
            var running = false
            var stops = 0
        }

        private let state = Lock(State())
        private let devices: [String]
        private let silent: Bool

        init(devices: [String], silent: Bool = false) {
            self.devices = devices
            self.silent = silent
        }

        var delegate: (any ScannerDelegate)? {
            get { state.withLock { $0.delegate } }
            set { state.withLock { $0.delegate = newValue } }
        }

        var hasDelegate: Bool { delegate != nil }
        var stops: Int { state.withLock { $0.stops } }

        func start() {
            state.withLock { $0.running = true }
            guard !silent else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { [self] in
                guard !devices.isEmpty else {
                    delegate?.scanner(self, didFailWith: Unavailable())
                    return
                }
                for device in devices where state.withLock({ $0.running }) {
                    delegate?.scanner(self, didFind: device)
                }
            }
        }

        func stop() {
            state.withLock { state in
                state.running = false
                state.stops += 1
            }
        }
    }
}

// MARK: - Measuring

extension CommonPatternsTests {
    /// Counts work in flight, remembers the most at once, and the order work finished in.
    final class Gauge: Sendable {
        private struct State {
            var inFlight = 0
            var max = 0
            var started = 0
            var finished: [String] = []
        }

        private let state = Lock(State())

        var max: Int { state.withLock { $0.max } }
        var started: Int { state.withLock { $0.started } }
        var finishOrder: [String] { state.withLock { $0.finished } }

        /// A promise for `value()` after `duration`, counted as in flight until it settles.
        func run<Value: Sendable>(
            _ name: String,
            for duration: Duration,
            _ value: @escaping @Sendable () -> Value
        ) -> Promise<Value> {
            state.withLock { state in
                state.inFlight += 1
                state.started += 1
                state.max = Swift.max(state.max, state.inFlight)
            }
            let (promise, resolver) = Promise<Value>.pending()
            let timer = DispatchQueue.global().executeAfter(duration) { [self] in
                state.withLock { state in
                    state.inFlight -= 1
                    state.finished.append(name)
                }
                resolver.fulfill(value())
            }
            promise.onCancel { [self] in
                timer.cancel()
                state.withLock { $0.inFlight -= 1 }
            }
            return promise
        }
    }
}

/// Polls `condition` every millisecond until it holds or two seconds pass.
func pollUntil(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(2)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        blockThread(for: .milliseconds(1))
    }
    return true
}

/// Blocks the calling thread for `duration`.
func blockThread(for duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR {
        request = remaining
    }
}
