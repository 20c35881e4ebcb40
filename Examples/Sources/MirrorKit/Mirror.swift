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
/// `@unchecked Sendable`: its mutable state is touched only on the loop thread (every callback
/// below is bound to `loop`, and ``interrupt(by:)`` must be called there too); the
/// `preconditions` say so where state changes.
public final class Mirror: @unchecked Sendable {
    let options: MirrorOptions
    let loop: UVLoop
    let console: Console
    let client: CurlClient
    let fs = FileSystem()
    private let clock = ContinuousClock()

    // Loop thread only.
    private var jobs: [Job] = []
    private var nextJob = 0
    private var active: [ObjectIdentifier: Job] = [:]
    private var report = MirrorReport(runID: 0, indexPath: "")
    private var index: MirrorIndex?
    private var pendingRows: [IndexRow] = []
    private var saving = Promise<Void>(())
    private var finished = Promise<MirrorReport>.pending()
    private var finishing = false
    private var ticker: Promise<Void>?
    private var started: ContinuousClock.Instant
    private var lastStatus = ""
    private var lastPlainStatus: ContinuousClock.Instant
    private var lastSave: ContinuousClock.Instant
    private var bytesInFlight: [ObjectIdentifier: Int] = [:]

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
        started = clock.now
        lastPlainStatus = clock.now
        lastSave = clock.now
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
            if seen.insert(line).inserted { jobs.append(Job(line: line)) }
        }
        started = clock.now
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
                self.index = index
                return index.beginRun(urls: self.jobs.count)
            }
            .then(on: loop) { runID in
                self.report.runID = runID
                self.report.indexPath = self.index!.path
                self.console.line("Mirroring \(self.jobs.count) URLs into \(output) (index \(self.index!.path), run \(runID)), \(self.options.concurrency) at a time.")
                self.tick()
                self.pump()
            }
            .catch(on: loop) { error in
                self.finished.reject(error)
            }
        return finished
    }

    /// Stops the run: no new URL starts, transfers in flight are cancelled, bodies already
    /// being written finish (each write is atomic), and the rows of finished URLs are saved.
    /// Call it on the loop thread.
    public func interrupt(by signal: UVSignal) {
        precondition(loop.isOnLoopThread, "Mirror.interrupt must be called on the loop thread")
        guard report.interruptedBy == nil, !finishing else { return }
        report.interruptedBy = signal
        let fetching = active.values.filter { !$0.writing }
        console.line("\(signal): stopping. Cancelling \(fetching.count) transfer(s) in flight, letting \(active.count - fetching.count) write(s) finish; \(jobs.count - nextJob) URL(s) will not start.")
        for job in fetching {
            job.fetch?.cancel()
        }
        pump()
    }

    // MARK: Scheduling

    /// Starts URLs until `concurrency` are in flight; finishes the run when none are left.
    private func pump() {
        while active.count < options.concurrency, report.interruptedBy == nil, nextJob < jobs.count {
            let job = jobs[nextJob]
            nextJob += 1
            active[job.id] = job
            start(job)
        }
        if active.isEmpty, nextJob == jobs.count || report.interruptedBy != nil {
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
                self.report.cancelled += 1
                self.console.line("cancel \(job.line)")
            }
            .always(on: loop) {
                self.active[job.id] = nil
                self.bytesInFlight[job.id] = nil
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
        request.progressContext = loop
        request.onProgress = { [id = job.id] progress in self.bytesInFlight[id] = Int(progress.downloaded) }
        return client.execute(request)
            .then(on: loop) { response in
                guard (200..<300).contains(response.status.code) else {
                    throw HTTPStatusError(status: response.status.code, reason: response.status.reasonPhrase, finalURL: response.url)
                }
                return response
            }
            .recover(on: loop) { error -> Promise<CurlResponse> in
                guard job.attempts <= self.options.retries, Self.isTransient(error), self.report.interruptedBy == nil else { throw error }
                let wait = self.options.backoff * (1 << (job.attempts - 1))
                self.console.line("retry  \(target.url): \(Self.describe(error)); attempt \(job.attempts + 1) of \(self.options.retries + 1) in \(Format.milliseconds(wait)) ms")
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
            error: error, file: nil, runID: report.runID
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
            report.failed += 1
            console.line("FAIL   \(status)  \(job.line): \(error)\(row.attempts > 1 ? " (after \(row.attempts) attempts)" : "")")
        } else {
            report.ok += 1
            report.bytes += row.bytes ?? 0
            let redirect = row.finalURL.flatMap { $0 == job.line ? nil : " (redirected to \($0))" } ?? ""
            console.line("ok     \(status)  \(Format.padded(size, 9, right: true)) \(Format.padded("\(row.durationMs) ms", 8, right: true))  \(job.line)\(redirect) -> \(row.file ?? "")")
        }
        pendingRows.append(row)
        if pendingRows.count >= options.batchSize { saveBatch() }
    }

    /// Queues the pending rows as one transaction, after the batches before it.
    private func saveBatch() {
        guard !pendingRows.isEmpty, let index else { return }
        let batch = pendingRows
        pendingRows = []
        saving = saving
            .then(on: loop) { index.save(batch) }
            .recover(on: loop) { error in
                self.console.line("index: could not save \(batch.count) row(s): \(error)")
            }
    }

    // MARK: Progress

    private func tick() {
        guard !finishing else { return }
        let status = statusLine()
        let now = clock.now
        if console.interactive {
            if status != lastStatus { console.status(status) }
        } else if status != lastStatus, now - lastPlainStatus >= .seconds(2) {
            console.status(status)
            lastPlainStatus = now
        } else if status == lastStatus {
            lastPlainStatus = now
        }
        lastStatus = status
        // Rows finished since the last batch reach the index at least once a second.
        if now - lastSave >= .seconds(1) {
            lastSave = now
            saveBatch()
        }
        let timer = loop.after(console.interactive ? .milliseconds(100) : .milliseconds(500))
        ticker = timer
        timer.then(on: loop) { self.tick() }
    }

    private func statusLine() -> String {
        let elapsed = Format.seconds(clock.now - started)
        let moved = report.bytes + bytesInFlight.values.reduce(0, +)
        let rate = elapsed > 0 ? Int(Double(moved) / elapsed) : 0
        let done = report.ok + report.failed + report.cancelled
        return "[\(Format.padded(String(done), String(jobs.count).count, right: true))/\(jobs.count)] \(report.ok) done, \(report.failed) failed, \(active.count) in flight, \(Format.bytes(moved)), \(Format.bytes(rate))/s, \(Format.fixed(elapsed, 1)) s"
    }

    // MARK: Finishing

    private func finish() {
        guard !finishing, let index else { return }
        finishing = true
        ticker?.cancel()
        console.clearStatus()
        saveBatch()
        report.notStarted = jobs.count - nextJob
        let report = self.report
        let outcome = report.interruptedBy.map { "interrupted by \($0)" } ?? "finished"
        saving
            .then(on: loop) {
                index.finishRun(report.runID, outcome: outcome, ok: report.ok, failed: report.failed, cancelled: report.cancelled, notStarted: report.notStarted)
            }
            .then(on: loop) { index.rows(ofRun: report.runID) }
            .then(on: loop) { rows -> Promise<Void> in
                self.report.rows = rows
                return index.close()
            }
            .then(on: loop) { self.client.shutdown() }
            .then(on: loop) { self.finished.fulfill(self.report) }
            .catch(on: loop) { error in self.finished.reject(error) }
    }
}

/// One URL's progress through the pipeline.
///
/// `@unchecked Sendable`: like ``Mirror``'s state, it is read and written on the loop thread only.
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
