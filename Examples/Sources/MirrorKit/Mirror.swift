import PromiseCurl
import PromiseFS
import PromiseSQLite
import PromiseUV

/// How a ``Mirror`` fetches, stores and records.
public struct MirrorOptions: Sendable {
    /// Where bodies are written, as `host[_port]/path` below it.
    public var outputDirectory: String
    /// The SQLite index; `outputDirectory/index.sqlite` when `nil`.
    public var indexPath: String?
    /// How many URLs are fetched at once.
    public var concurrency = 4
    /// The deadline of each request (one attempt, redirects included).
    public var timeout: Duration = .seconds(30)
    /// How many times a transient failure (refused or reset connection, timeout, 429, 502,
    /// 503, 504) is retried.
    public var retries = 2
    /// The wait before the first retry; it doubles for each one after.
    public var backoff: Duration = .milliseconds(200)
    /// How many redirects a request may follow.
    public var maxRedirects = 5
    /// How many finished URLs are written to the index in one transaction.
    public var batchSize = 8
    /// The largest body accepted.
    public var maxBodySize = 64 << 20
    /// A CA bundle for `https` URLs with a private certificate authority.
    public var caFile: String?

    /// Options with the defaults above.
    public init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }
}

/// How a run ended.
public struct MirrorReport: Sendable {
    /// The run's id in the index's `runs` table.
    public var runID: Int
    /// The index the run wrote to.
    public var indexPath: String
    /// URLs whose body was stored.
    public var ok = 0
    /// URLs that failed (their rows say why).
    public var failed = 0
    /// Transfers cancelled by an interruption (not recorded: their old row and file, if any, stand).
    public var cancelled = 0
    /// URLs an interruption kept from starting.
    public var notStarted = 0
    /// Bytes stored.
    public var bytes = 0
    /// The signal that interrupted the run, if one did.
    public var interruptedBy: UVSignal?
    /// The rows the run wrote, read back from the index.
    public var rows: [IndexRow] = []
}

/// The mirroring pipeline: PromiseCurl fetches, PromiseFS stores, PromiseSQLite records,
/// and every callback runs on one `UVLoop`.
///
/// `Sendable` without a lock: the run's mutable state is a ``State`` held in a `UVLoopBound`,
/// so only code on the loop thread reaches it (every callback below is bound to `loop`, and
/// ``run(_:)`` and ``interrupt(by:)`` must be called there), and debug builds check every
/// access.
public final class Mirror: Sendable {
    let options: MirrorOptions
    let loop: UVLoop
    let console: Console
    let client: CurlClient
    let fs = PromiseFileSystem()
    private let clock = ContinuousClock()
    private let bound: UVLoopBound<State>

    /// The run's state: loop thread only.
    private var state: State { bound.value }

    /// What a run changes as it goes; confined to the loop by ``bound``.
    private final class State {
        var jobs: [Job] = []
        var nextJob = 0
        var active: [ObjectIdentifier: Job] = [:]
        var report = MirrorReport(runID: 0, indexPath: "")
        var index: MirrorIndex?
        var pendingRows: [IndexRow] = []
        var saving = Promise<Void>(())
        let finished = Promise<MirrorReport>.pending()
        var finishing = false
        var ticker: Promise<Void>?
        var started: ContinuousClock.Instant
        var lastStatus = ""
        var lastPlainStatus: ContinuousClock.Instant
        var lastSave: ContinuousClock.Instant
        var bytesInFlight: [ObjectIdentifier: Int] = [:]

        init(now: ContinuousClock.Instant) {
            started = now
            lastPlainStatus = now
            lastSave = now
        }
    }

    /// A mirror that runs its callbacks on `loop` and prints to `console`.
    ///
    /// - Throws: `CurlError` if libcurl cannot be set up.
    public init(options: MirrorOptions, loop: UVLoop, console: Console) throws {
        self.options = options
        self.loop = loop
        self.console = console
        var configuration = CurlConfiguration()
        configuration.maxConnectionsPerHost = max(1, options.concurrency)
        configuration.tls.caFile = options.caFile
        configuration.userAgent = "promise-demo (swift-promise)"
        client = try CurlClient(configuration: configuration)
        bound = UVLoopBound(State(now: clock.now), loop: loop)
    }

    /// Mirrors every URL in `lines` (blank lines and `#` comments skipped, duplicates once).
    ///
    /// Call it on the loop thread, once. The promise is fulfilled when every URL has been
    /// fetched, stored and recorded, or when an interruption has wound the run down; it is
    /// rejected only when the run cannot start at all.
    public func run(_ lines: [String]) -> Promise<MirrorReport> {
        precondition(loop.isOnLoopThread, "Mirror.run must be called on the loop thread")
        var seen = Set<String>()
        for line in lines.map({ $0.trimmingWhitespace() }) where !line.isEmpty && !line.hasPrefix("#") {
            if seen.insert(line).inserted { state.jobs.append(Job(line: line)) }
        }
        state.started = clock.now
        let output = options.outputDirectory
        let indexPath = options.indexPath ?? output + "/index.sqlite"
        fs.createDirectory(output, recursive: true)
            .recover(on: loop) { error in
                self.console.line("output: cannot create \(output): \(error). Each URL will report its write failure; the run goes on.")
            }
            .then(on: loop) { () -> Promise<MirrorIndex> in
                MirrorIndex.open(indexPath).recover(on: self.loop) { error -> Promise<MirrorIndex> in
                    self.console.line("index: cannot open \(indexPath): \(error). Keeping this run's index in memory.")
                    return MirrorIndex.open(":memory:")
                }
            }
            .then(on: loop) { index -> Promise<Int> in
                self.state.index = index
                return index.beginRun(urls: self.state.jobs.count)
            }
            .then(on: loop) { runID in
                self.state.report.runID = runID
                self.state.report.indexPath = self.state.index!.path
                self.console.line(
                    "Mirroring \(self.state.jobs.count) URLs into \(output) (index \(self.state.index!.path), run \(runID)), \(self.options.concurrency) at a time."
                )
                self.tick()
                self.pump()
            }
            .catch(on: loop) { error in
                self.state.finished.resolver.reject(error)
            }
        return state.finished.promise
    }

    /// Stops the run: no new URL starts, transfers in flight are cancelled, bodies already
    /// being written finish (each write is atomic), and the rows of finished URLs are saved.
    /// Call it on the loop thread.
    public func interrupt(by signal: UVSignal) {
        precondition(loop.isOnLoopThread, "Mirror.interrupt must be called on the loop thread")
        guard state.report.interruptedBy == nil, !state.finishing else { return }
        state.report.interruptedBy = signal
        let fetching = state.active.values.filter { !$0.writing }
        console.line(
            "\(signal): stopping. Cancelling \(fetching.count) transfer(s) in flight, letting \(state.active.count - fetching.count) write(s) finish; \(state.jobs.count - state.nextJob) URL(s) will not start."
        )
        for job in fetching {
            job.fetch?.cancel()
        }
        pump()
    }

    // MARK: Scheduling

    /// Starts URLs until `concurrency` are in flight; finishes the run when none are left.
    private func pump() {
        while state.active.count < options.concurrency, state.report.interruptedBy == nil, state.nextJob < state.jobs.count {
            let job = state.jobs[state.nextJob]
            state.nextJob += 1
            state.active[job.id] = job
            start(job)
        }
        if state.active.isEmpty, state.nextJob == state.jobs.count || state.report.interruptedBy != nil {
            finish()
        }
    }

    private func start(_ job: Job) {
        job.started = clock.now
        let outcome: Promise<IndexRow>
        switch MirrorTarget.parse(job.line) {
        case .failure(let error):
            outcome = Promise(row(job, error: error.description))
        case .success(let target):
            let fetch = fetchWithRetry(job, target)
            job.fetch = fetch
            outcome = fetch.then(on: loop) { response in self.store(job, target, response) }
                .recover(on: loop) { error in self.row(job, error: Self.describe(error), failure: error) }
        }
        outcome
            .then(on: loop) { row in self.record(row, of: job) }
            .catch(on: loop, policy: .allErrors) { _ in
                // Only a cancellation gets here: every other error became a row above.
                self.state.report.cancelled += 1
                self.console.line("cancel \(job.line)")
            }
            .always(on: loop) {
                self.state.active[job.id] = nil
                self.state.bytesInFlight[job.id] = nil
                self.pump()
            }
    }

    // MARK: One URL

    private func fetchWithRetry(_ job: Job, _ target: MirrorTarget) -> Promise<CurlResponse> {
        job.attempts += 1
        var request = CurlRequest(.get, target.url)
        request.timeout = options.timeout
        request.maxRedirects = options.maxRedirects
        request.maxResponseBodySize = options.maxBodySize
        request.onProgress(on: loop) { [id = job.id] progress in self.state.bytesInFlight[id] = Int(progress.downloaded) }
        return client.execute(request)
            .then(on: loop) { response in
                guard (200..<300).contains(response.status.code) else {
                    throw HTTPStatusError(status: response.status.code, reason: response.status.reasonPhrase, finalURL: response.url)
                }
                return response
            }
            .recover(on: loop) { error -> Promise<CurlResponse> in
                guard job.attempts <= self.options.retries, Self.isTransient(error), self.state.report.interruptedBy == nil else { throw error }
                let wait = self.options.backoff * (1 << (job.attempts - 1))
                self.console.line(
                    "retry  \(target.url): \(Self.describe(error)); attempt \(job.attempts + 1) of \(self.options.retries + 1) in \(Format.milliseconds(wait)) ms"
                )
                return self.loop.after(wait).then(on: self.loop) { self.fetchWithRetry(job, target) }
            }
    }

    /// Writes the body atomically (temporary file, fsync, rename), then makes its row. From
    /// here on the URL is no longer cancelled: the write finishes and is recorded.
    private func store(_ job: Job, _ target: MirrorTarget, _ response: CurlResponse) -> Promise<IndexRow> {
        job.writing = true
        let path = options.outputDirectory + "/" + target.relativePath
        let directory = String(path[..<path.lastIndex(of: "/")!])
        return fs.createDirectory(directory, recursive: true)
            .then(on: loop) { self.fs.writeFile(path, response.body) }
            .then(on: loop) {
                var row = self.row(job, error: nil, response: response)
                row.file = target.relativePath
                row.bytes = response.body.count
                return row
            }
            .recover(on: loop) { error in
                self.row(job, error: "fetched \(Format.bytes(response.body.count)) but could not store it: \(error)", response: response)
            }
    }

    /// A row for `job`, with what is known of the response: from `response` when one
    /// arrived and was accepted, or from `failure` when it was an unsuccessful status.
    private func row(_ job: Job, error: String?, response: CurlResponse? = nil, failure: (any Error)? = nil) -> IndexRow {
        var row = IndexRow(
            url: job.line, finalURL: nil, status: nil, bytes: nil,
            durationMs: Format.milliseconds(clock.now - job.started), attempts: job.attempts,
            error: error, file: nil, runID: state.report.runID
        )
        if let response {
            row.finalURL = response.url
            row.status = response.status.code
        } else if let failure = failure as? HTTPStatusError {
            row.finalURL = failure.finalURL
            row.status = failure.status
        }
        return row
    }

    static func isTransient(_ error: any Error) -> Bool {
        if let failure = error as? HTTPStatusError { return failure.isTransient }
        switch error {
        case CurlError.Code.couldNotConnect, CurlError.Code.operationTimedOut, CurlError.Code.receiveError,
            CurlError.Code.sendError, CurlError.Code.gotNothing, CurlError.Code.partialFile:
            return true
        default:
            return false
        }
    }

    static func describe(_ error: any Error) -> String {
        "\(error)"
    }

    // MARK: Recording

    private func record(_ row: IndexRow, of job: Job) {
        let size = row.bytes.map { Format.bytes($0) } ?? "-"
        let status = row.status.map(String.init) ?? "---"
        if let error = row.error {
            state.report.failed += 1
            console.line("FAIL   \(status)  \(job.line): \(error)\(row.attempts > 1 ? " (after \(row.attempts) attempts)" : "")")
        } else {
            state.report.ok += 1
            state.report.bytes += row.bytes ?? 0
            let redirect = row.finalURL.flatMap { $0 == job.line ? nil : " (redirected to \($0))" } ?? ""
            console.line(
                "ok     \(status)  \(Format.padded(size, 9, right: true)) \(Format.padded("\(row.durationMs) ms", 8, right: true))  \(job.line)\(redirect) -> \(row.file ?? "")"
            )
        }
        state.pendingRows.append(row)
        if state.pendingRows.count >= options.batchSize { saveBatch() }
    }

    /// Queues the pending rows as one transaction, after the batches before it.
    private func saveBatch() {
        guard !state.pendingRows.isEmpty, let index = state.index else { return }
        let batch = state.pendingRows
        state.pendingRows = []
        state.saving = state.saving
            .then(on: loop) { index.save(batch) }
            .recover(on: loop) { error in
                self.console.line("index: could not save \(batch.count) row(s): \(error)")
            }
    }

    // MARK: Progress

    private func tick() {
        guard !state.finishing else { return }
        let status = statusLine()
        let now = clock.now
        if console.interactive {
            if status != state.lastStatus { console.status(status) }
        } else if status != state.lastStatus, now - state.lastPlainStatus >= .seconds(2) {
            console.status(status)
            state.lastPlainStatus = now
        } else if status == state.lastStatus {
            state.lastPlainStatus = now
        }
        state.lastStatus = status
        // Rows finished since the last batch reach the index at least once a second.
        if now - state.lastSave >= .seconds(1) {
            state.lastSave = now
            saveBatch()
        }
        let timer = loop.after(console.interactive ? .milliseconds(100) : .milliseconds(500))
        state.ticker = timer
        timer.then(on: loop) { self.tick() }
    }

    private func statusLine() -> String {
        let elapsed = Format.seconds(clock.now - state.started)
        let moved = state.report.bytes + state.bytesInFlight.values.reduce(0, +)
        let rate = elapsed > 0 ? Int(Double(moved) / elapsed) : 0
        let done = state.report.ok + state.report.failed + state.report.cancelled
        return
            "[\(Format.padded(String(done), String(state.jobs.count).count, right: true))/\(state.jobs.count)] \(state.report.ok) done, \(state.report.failed) failed, \(state.active.count) in flight, \(Format.bytes(moved)), \(Format.bytes(rate))/s, \(Format.fixed(elapsed, 1)) s"
    }

    // MARK: Finishing

    private func finish() {
        let state = self.state
        guard !state.finishing, let index = state.index else { return }
        state.finishing = true
        state.ticker?.cancel()
        console.clearStatus()
        saveBatch()
        state.report.notStarted = state.jobs.count - state.nextJob
        let report = state.report
        let outcome = report.interruptedBy.map { "interrupted by \($0)" } ?? "finished"
        state.saving
            .then(on: loop) {
                index.finishRun(
                    report.runID, outcome: outcome, ok: report.ok, failed: report.failed, cancelled: report.cancelled, notStarted: report.notStarted)
            }
            .then(on: loop) { index.rows(ofRun: report.runID) }
            .then(on: loop) { rows -> Promise<Void> in
                self.state.report.rows = rows
                return index.close()
            }
            .then(on: loop) { self.client.shutdown() }
            .then(on: loop) { self.state.finished.resolver.fulfill(self.state.report) }
            .catch(on: loop) { error in self.state.finished.resolver.reject(error) }
    }
}

/// One URL's progress through the pipeline.
///
/// `@unchecked Sendable`: it is read and written on the loop thread only, like ``Mirror``'s
/// state. Jobs are passed by reference between the pipeline's callbacks; a `UVLoopBound` for
/// each would add a box per URL.
final class Job: @unchecked Sendable {
    let line: String
    var attempts = 0
    var started = ContinuousClock.now
    /// The fetch, retries included: what an interruption cancels.
    var fetch: Promise<CurlResponse>?
    /// Set once the body is being written: from then on the URL finishes.
    var writing = false

    init(line: String) {
        self.line = line
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }
}
