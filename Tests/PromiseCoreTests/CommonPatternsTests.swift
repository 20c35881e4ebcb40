// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import Glibc
import PromiseCore
import PromiseSignals
import Synchronization
import Testing

// Every ```swift block of Sources/PromiseCore/PromiseCore.docc/CommonPatterns.md, exactly as
// written there between `// DocC: begin` and `// DocC: end`, with assertions on what it does.
// `DocCCodeBlocksTests` fails when a block of the article has no copy in a region, so editing
// one without the other is caught.
// The stand-ins the snippets call (fetchUser, upload, search, …) are members of the suite, so
// they shadow the README's stand-ins of the same names in this file only.

@Suite struct CommonPatternsTests {
    let gauge = Gauge()
    let settingsLoads = Counter()
    let searchesStopped = Counter()
    let converted = Recorder<String>()
    let photoLoads = Counter()
    let backupsStarted = Counter()
    let backupsStopped = Counter()

    // MARK: - Chaining

    @Test func chaining() throws {
        let log = Recorder<String>()

        // DocC: begin
        let banner = fetchUser(id: 7)                     // Promise<User>
            .then { user in fetchAvatar(for: user) }      // waits for the avatar: Promise<Avatar>
            .then { avatar in try render(avatar) }        // may throw: Promise<String>
            .always { log.append("finished") }            // whatever the outcome
            .catch { error in log.append("failed: \(error)") }
        // DocC: end

        #expect(try awaitPromise(banner, timeout: .seconds(5)) == "Ada at 512 px")
        #expect(log.events == ["finished"])
    }

    @Test func failingChain() throws {
        let log = Recorder<String>()

        // DocC: begin
        let broken = fetchUser(id: 0)                     // a user without an avatar
            .then { user in fetchAvatar(for: user) }
            .then { avatar in
                guard avatar.size > 0 else { throw RenderError.empty }
                return try render(avatar)
            }
            .then { text in log.append("shown: \(text)") }  // skipped
            .catch { error in log.append("failed: \(error)") }
        // DocC: end

        #expect(throws: RenderError.empty) { try awaitPromise(broken, timeout: .seconds(5)) }
        #expect(log.events == ["failed: empty"])
    }

    @Test func backgroundWork() throws {
        // DocC: begin
        let imageWork = DispatchQueue(label: "image-work")
        let icon = fetchUser(id: 7)
            .then { user in fetchAvatar(for: user) }
            .then(on: imageWork) { avatar in avatar.scaled(to: 64) }     // runs on imageWork
            .then { avatar in "\(avatar.owner) at \(avatar.size) px" }   // back on the default context
        // DocC: end

        #expect(try awaitPromise(icon, timeout: .seconds(5)) == "Ada at 64 px")
    }

    @Test func sharingOneResult() throws {
        // DocC: begin
        let settings = loadSettings()                     // the work starts once
        let theme = settings.then { $0.theme }            // any number of steps may wait for it,
        let language = settings.then { $0.language }      // before or after it settles
        // DocC: end

        #expect(try awaitPromise(theme, timeout: .seconds(5)) == "dark")
        #expect(try awaitPromise(language, timeout: .seconds(5)) == "en")
        let late = settings.then { $0.theme }             // after it settled: same value, no new work
        #expect(try awaitPromise(late, timeout: .seconds(5)) == "dark")
        #expect(settingsLoads.value == 1)
    }

    // MARK: - Many promises

    @Test func oneAtATime() throws {
        // DocC: begin
        let files = ["a.txt", "b.txt", "c.txt"]
        let oneByOne = Promise.map(files, concurrency: 1) { name in upload(name) }
        // DocC: end

        #expect(try awaitPromise(oneByOne, timeout: .seconds(5)) == ["a.txt uploaded", "b.txt uploaded", "c.txt uploaded"])
        #expect(gauge.max == 1)
        #expect(gauge.finishOrder == files)
    }

    @Test func foldingOneAtATime() throws {
        let files = ["a.txt", "b.txt", "c.txt"]

        // DocC: begin
        let receipts = Promise([String]()).reduce(files) { done, name in
            upload(name).then { done + [$0] }            // starts once the previous upload is done
        }
        // DocC: end

        #expect(try awaitPromise(receipts, timeout: .seconds(5)) == ["a.txt uploaded", "b.txt uploaded", "c.txt uploaded"])
        #expect(gauge.max == 1)
        #expect(gauge.finishOrder == files)
    }

    @Test func allInParallel() throws {
        let files = ["a.txt", "b.txt", "c.txt"]

        // DocC: begin
        let everyFile = all(files.map { upload($0) })    // all three start now
        // DocC: end

        #expect(try awaitPromise(everyFile, timeout: .seconds(5)) == ["a.txt uploaded", "b.txt uploaded", "c.txt uploaded"])
        #expect(gauge.max > 1)   // they overlapped
        #expect(gauge.max <= 3)
    }

    @Test func concurrencyLimit() throws {
        // DocC: begin
        let photos = (1...12).map { "photo\($0).jpg" }
        let uploaded = Promise.map(photos, concurrency: 3) { name in upload(name) }
        // DocC: end

        let names = try awaitPromise(uploaded, timeout: .seconds(5))
        #expect(names == photos.map { "\($0) uploaded" })   // input order, whatever the finishing order
        #expect(gauge.max <= 3)                             // the limit held
        #expect(gauge.max > 1)                              // and was used
        #expect(gauge.started == 12)
    }

    // MARK: - Time

    @Test func timeout() throws {
        let started = ContinuousClock.now

        // DocC: begin
        let results = all([search("swift"), search("promises")])
            .timeout(.milliseconds(50))                  // rejects with PromiseError.Code.timedOut
                                                         // and cancels both searches
        // DocC: end

        let error = #expect(throws: PromiseError.self) { try awaitPromise(results, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        #expect(pollUntil { searchesStopped.value == 2 })   // the work behind it was stopped
    }

    @Test func timeoutByRace() throws {
        // DocC: begin
        let fresh = search("swift")
        let cached = Promise(["cached result"]).delay(.milliseconds(50))
        let shown = race([fresh, cached])                // the first to settle wins; the other is cancelled
        // DocC: end

        #expect(try awaitPromise(shown, timeout: .seconds(5)) == ["cached result"])
        #expect(pollUntil { fresh.isCancelled && searchesStopped.value == 1 })
    }

    @Test func minimumDuration() throws {
        let started = ContinuousClock.now

        // DocC: begin
        let atLeast = Promise(()).delay(.milliseconds(50))   // starts counting now
        let status = all(quickCheck(), atLeast)
            .then { status, _ in status }                    // after whichever takes longer
        // DocC: end

        #expect(try awaitPromise(status, timeout: .seconds(5)) == "all good")
        #expect(ContinuousClock.now - started >= .milliseconds(50))
    }

    // MARK: - Cancellation

    @Test func cancellingStopsTheWork() throws {
        // DocC: begin
        let saved = convert("report.txt")
            .then { name in "saved \(name)" }
        saved.cancel()    // convert's promise has no other consumer: it is cancelled, its job stopped
        // DocC: end

        #expect(saved.isCancelled)
        blockThread(for: .milliseconds(80))   // well past the job's 30 ms
        #expect(converted.events.isEmpty)
    }

    @Test func cancellingATaskStopsTheWork() throws {
        // DocC: begin
        let report = Promise {
            try await Task.sleep(for: .milliseconds(30))     // throws CancellationError once cancelled
            converted.append("report.pdf")
            return "report.pdf"
        }
        report.cancel()                                      // cancels the Task
        // DocC: end

        #expect(report.isCancelled)
        blockThread(for: .milliseconds(80))
        #expect(converted.events.isEmpty)
    }

    @Test func workThatIsNotCancelledRuns() throws {
        // The control for the two tests above: left alone, the same work does happen.
        let saved = convert("report.txt").then { name in "saved \(name)" }
        #expect(try awaitPromise(saved, timeout: .seconds(5)) == "saved report.pdf")
        #expect(converted.events == ["report.pdf"])
    }

    /// The recipe with a backup that ends by itself: no signal is sent to this process (the
    /// integration tests interrupt `promise-core-signal-helper`, which runs it too). Watching
    /// SIGINT and SIGTERM for 30 ms, then putting their actions back, disturbs no other test.
    /// PromiseSignals' module page shows the same block, after `import PromiseSignals`.
    @Test func stoppingOnCtrlC() throws {
        let actionsBefore = [SIGINT, SIGTERM].map(signalAction)

        // DocC: begin
        let stop = Promises.nextSignal()              // from here on, Ctrl-C and SIGTERM only fulfil it
        let backup = startBackup()                    // runs until it is done or cancelled
        stop.then { signal in
            print("signal \(signal): stopping the backup")
            backup.cancel()
        }
        _ = try? awaitPromise(backup)                 // returns once the backup is done or stopped
        stop.cancel()                                 // ended without a signal: Ctrl-C kills again
        // DocC: end

        #expect(backup.isFulfilled)
        #expect(stop.isCancelled)
        #expect([SIGINT, SIGTERM].map(signalAction) == actionsBefore)
    }

    // MARK: - Retry and polling

    @Test func retryTransientFailures() throws {
        let service = StatusService(failuresBeforeSuccess: 2)

        // DocC: begin
        let status = retry(attempts: 3, delay: .milliseconds(10), condition: { _, error in error is Unavailable }) {
            service.status()
        }
        // DocC: end

        #expect(try awaitPromise(status, timeout: .seconds(5)) == "ok")
        #expect(service.calls == 3)

        let broken = StatusService(failuresBeforeSuccess: 2, failure: RenderError.empty)
        let notRetried = retry(attempts: 3, delay: .milliseconds(10), condition: { _, error in error is Unavailable }) {
            broken.status()
        }
        #expect(throws: RenderError.empty) { try awaitPromise(notRetried, timeout: .seconds(5)) }
        #expect(broken.calls == 1)
    }

    @Test func polling() throws {
        let job = BuildJob(doneAfterPolls: 3)

        // DocC: begin
        let finished = retry(attempts: 100, delay: .milliseconds(10)) {
            job.status().validate { $0 == .done }        // not done yet: a failed attempt, try again
        }
        // DocC: end

        #expect(try awaitPromise(finished, timeout: .seconds(5)) == .done)
        #expect(job.polls == 3)

        let stuck = BuildJob(doneAfterPolls: .max)
        let gaveUp = retry(attempts: 2, delay: .milliseconds(10)) { stuck.status().validate { $0 == .done } }
        let error = #expect(throws: PromiseError.self) { try awaitPromise(gaveUp, timeout: .seconds(5)) }
        #expect(error?.code == .validationFailure)
        #expect(stuck.polls == 3)
    }

    // MARK: - Wrapping callbacks and delegates

    @Test func wrappingCallbacks() throws {
        // DocC: begin
        let size = wrap { fileSize(of: "notes.txt", completion: $0) }     // (Int?, Error?) handler
        let text = wrap { readText(of: "notes.txt", completion: $0) }     // Result handler
        let dimensions = Promise<(width: Int, height: Int)> { fulfill, reject in   // any other shape
            measureImage("logo.png") { width, height, error in
                if let error { reject(error) } else { fulfill((width, height)) }
            }
        }
        // DocC: end

        #expect(try awaitPromise(size, timeout: .seconds(5)) == 9)
        #expect(try awaitPromise(text, timeout: .seconds(5)) == "some text")
        let measured = try awaitPromise(dimensions, timeout: .seconds(5))
        #expect(measured.width == 640 && measured.height == 480)

        let missing = wrap { fileSize(of: "missing.txt", completion: $0) }
        #expect(throws: Unavailable.self) { try awaitPromise(missing, timeout: .seconds(5)) }
    }

    @Test func wrappingADelegate() throws {
        let scanner = DeviceScanner(devices: ["printer", "speaker", "lamp"])

        let device = scanOnce(with: scanner)

        #expect(try awaitPromise(device, timeout: .seconds(5)) == "printer")   // the first report wins
        #expect(pollUntil { scanner.stops >= 1 })     // and the proxy stopped the scan
        #expect(pollUntil { !scanner.hasDelegate })   // the proxy was released once the promise settled
    }

    @Test func wrappingADelegateThatFails() {
        let scanner = DeviceScanner(devices: [])
        let device = scanOnce(with: scanner)
        #expect(throws: Unavailable.self) { try awaitPromise(device, timeout: .seconds(5)) }
        #expect(pollUntil { !scanner.hasDelegate })
    }

    @Test func wrappingADelegateThatNeverAnswers() {
        let scanner = DeviceScanner(devices: ["printer"], silent: true)
        let device = scanOnce(with: scanner).timeout(.milliseconds(20))
        let error = #expect(throws: PromiseError.self) { try awaitPromise(device, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(pollUntil { !scanner.hasDelegate })   // cancelling released the proxy too
    }

    // MARK: - Recovery

    @Test func recovery() throws {
        #expect(try awaitPromise(cityOrDefault(Promise<String>(AirplaneMode())), timeout: .seconds(5)) == "Savannah")
        #expect(try awaitPromise(cityOrDefault(Promise("Lisbon")), timeout: .seconds(5)) == "Lisbon")
        #expect(throws: Unavailable.self) {
            try awaitPromise(cityOrDefault(Promise<String>(Unavailable())), timeout: .seconds(5))
        }
    }

    @Test func recoveryWithAnotherAttempt() throws {
        // DocC: begin
        let city = currentCity()
            .recover { _ in lastKnownCity() }            // another attempt, from somewhere else
        // DocC: end

        #expect(try awaitPromise(city, timeout: .seconds(5)) == "Porto")
    }

    // MARK: - Results

    @Test func keepingEarlierResults() throws {
        // DocC: begin
        let card = fetchUser(id: 7)
            .then { user in fetchAvatar(for: user).then { avatar in (user, avatar) } }
            .then { user, avatar in "\(user.name) (#\(user.id)), \(avatar.size) px" }
        // DocC: end

        // DocC: begin
        let independent = all(fetchUser(id: 7), loadSettings())   // no need to wait in turn
            .then { user, settings in "\(user.name) likes \(settings.theme)" }
        // DocC: end

        #expect(try awaitPromise(card, timeout: .seconds(5)) == "Ada (#7), 512 px")
        #expect(try awaitPromise(independent, timeout: .seconds(5)) == "Ada likes dark")
    }

    // MARK: - Trees of promises

    @Test func treeOfParallelTasks() throws {
        // DocC: begin
        let photo = loadPhoto(named: "beach.jpg")               // one root
        let thumbnail = photo.then { makeThumbnail(of: $0) }    // three branches,
        let faces = photo.then { detectFaces(in: $0) }          // started together
        let backup = photo.then { uploadBackup(of: $0) }        // once the photo is loaded
        let everything = all(thumbnail, faces, backup)
        // DocC: end

        let (small, count, receipt) = try awaitPromise(everything, timeout: .seconds(5))
        #expect(small == "beach.jpg, 64 px")
        #expect(count == 2)
        #expect(receipt == "beach.jpg backed up")
        #expect(photoLoads.value == 1)
        #expect(gauge.max > 1)   // the branches overlapped
    }

    @Test func cancellingOneBranch() throws {
        // DocC: begin
        let photo = loadPhoto(named: "beach.jpg")
        let thumbnail = photo.then { makeThumbnail(of: $0) }
        let backup = photo.then { uploadBackup(of: $0) }
        backup.cancel()    // this branch only: the photo still loads, the thumbnail is still made
        // DocC: end

        #expect(try awaitPromise(thumbnail, timeout: .seconds(5)) == "beach.jpg, 64 px")
        #expect(backup.isCancelled)
        #expect(photo.isFulfilled)
        #expect(backupsStarted.value == 0)
    }

    @Test func cancellingABranchWhoseWorkIsRunning() throws {
        let photo = loadPhoto(named: "beach.jpg")
        let thumbnail = photo.then { makeThumbnail(of: $0) }
        let backup = photo.then { uploadBackup(of: $0) }
        #expect(pollUntil { backupsStarted.value == 1 })
        backup.cancel()
        #expect(pollUntil { backupsStopped.value == 1 })   // the upload itself was stopped
        #expect(try awaitPromise(thumbnail, timeout: .seconds(5)) == "beach.jpg, 64 px")
        #expect(!photo.isCancelled)
    }

    @Test func cancellingTheRoot() {
        // DocC: begin
        let photo = loadPhoto(named: "beach.jpg")
        let thumbnail = photo.then { makeThumbnail(of: $0) }
        let faces = photo.then { detectFaces(in: $0) }
        photo.cancel()     // the root: every branch is cancelled with it
        // DocC: end

        #expect(outcome(of: thumbnail).failureValue is CancellationError)
        #expect(outcome(of: faces).failureValue is CancellationError)
        #expect(gauge.started == 0)
    }

    @Test func serialContextForSharedState() throws {
        // DocC: begin
        let tally = Tally()
        let words = ["Red", "green", "RED", "blue", "red", "Green"]
        let counted = words.map { word in
            Promise(on: DispatchQueue.global()) { word.lowercased() }   // produced in parallel
                .then(on: tally.queue) { tally.add($0) }                // counted one at a time
        }
        let counts = all(counted).then(on: tally.queue) { _ in tally.counts }
        // DocC: end

        #expect(try awaitPromise(counts, timeout: .seconds(5)) == ["red": 3, "green": 2, "blue": 1])
    }}
