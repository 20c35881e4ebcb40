import Glibc
import PromiseFS
import Synchronization

/// How one operation ended: how many times it settled, and whether it was fulfilled.
final class Outcome: Sendable {
    let settlements = Atomic<Int>(0)
    let fulfilled = Atomic<Bool>(false)
}

/// How the operations of one batch ended, counted from their callbacks.
final class Tally: Sendable {
    let outcomes: [Outcome]
    let settledCount = Atomic<Int>(0)
    let fulfilled = Atomic<Int>(0)
    let tooManyOpenFiles = Atomic<Int>(0)
    let wrongContent = Atomic<Int>(0)
    let otherErrors = Mutex<[String]>([])

    init(count: Int) {
        outcomes = (0..<count).map { _ in Outcome() }
    }

    /// Counts how `promise`, operation number `index`, settles; `check` vets a value.
    func track<T: Sendable>(_ index: Int, _ promise: Promise<T>, check: @escaping @Sendable (T) -> Bool = { _ in true }) {
        promise.then(on: .inline) { value in
            self.fulfilled.add(1, ordering: .relaxed)
            if !check(value) { self.wrongContent.add(1, ordering: .relaxed) }
            self.outcomes[index].fulfilled.store(true, ordering: .relaxed)
            self.settle(index)
        }.catch(on: .inline, policy: .allErrors) { error in
            if let error = error as? FSError, error.code == .tooManyOpenFiles {
                self.tooManyOpenFiles.add(1, ordering: .relaxed)
            } else {
                self.otherErrors.withLock { $0.append("\(type(of: error)): \(error)") }
            }
            self.settle(index)
        }
    }

    private func settle(_ index: Int) {
        if outcomes[index].settlements.add(1, ordering: .releasing).oldValue == 0 {
            settledCount.add(1, ordering: .releasing)
        }
    }

    var settled: Int { settledCount.load(ordering: .acquiring) }
    var settledTwice: Int { outcomes.count { $0.settlements.load(ordering: .acquiring) > 1 } }

    /// Waits up to `seconds` for every operation to settle; how many are still pending.
    func waitForAll(seconds: Int) -> Int {
        for _ in 0..<(seconds * 1000) where settled < outcomes.count { usleep(1000) }
        return outcomes.count - settled
    }
}

/// Contents of the small files: `in-K` holds 100 + K bytes of K; `out-N` holds 10 bytes of
/// 255 before the burst and 200 bytes of N % 251 if N's write went through.
func inputBytes(_ k: Int) -> [UInt8] { [UInt8](repeating: UInt8(k), count: 100 + k) }
func newBytes(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(n % 251), count: 200) }
let oldBytes = [UInt8](repeating: 255, count: 10)

/// Reads a file with plain libc (nil if it cannot be opened), independent of PromiseFS.
func plainBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let n = read(fd, &buffer, buffer.count), n > 0 { bytes += buffer[0..<n] }
    return bytes
}

/// Out of descriptors: RLIMIT_NOFILE = 64, then 1 000 concurrent operations on small files in
/// `dir`: every fourth one opens a file and keeps it open (so the table fills up part-way
/// through, as when something else in the process leaks descriptors), the rest are whole-file
/// reads and atomic writes over existing files. Then every held file is closed and a batch of
/// 200 reads and writes must all succeed. Prints one line:
///
///     ops=1000 fulfilled=F emfile=E other=O pending=P twice=T wrong=W torn=X lost=L applied=A debris=D held=H recovered=R/200
///
/// `emfile` counts rejections with ``FSError/Code/tooManyOpenFiles``, `other` any other
/// rejection (an `other:` line follows for each of the first five); `pending` operations that
/// had not settled after 30 s, `twice` those whose callback ran twice; `wrong` reads that
/// returned other bytes; `torn` targets holding neither their old nor their new contents,
/// `lost` fulfilled writes whose target is not new, `applied` rejected writes whose target is
/// new; `debris` temporary files left behind; `held` files the burst opened and kept.
func noFileBurst(in dir: String) {
    let fs = PromiseFileSystem()
    let inputs = 50
    let operations = 1_000
    for k in 0..<inputs { _ = try? awaitPromise(fs.writeFile("\(dir)/in-\(k)", inputBytes(k), options: .inPlace)) }
    for n in 0..<operations where n % 4 >= 2 {
        _ = try? awaitPromise(fs.writeFile("\(dir)/out-\(n)", oldBytes, options: .inPlace))
    }

    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = 64
    guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { fail("setrlimit failed") }

    // The burst.
    let tally = Tally(count: operations)
    let held = Mutex<[FSFile]>([])
    for n in 0..<operations {
        switch n % 4 {
        case 0:
            // Kept before the operation counts as settled, so the close below finds it.
            tally.track(n, fs.open("\(dir)/in-\(n % inputs)")) { file in
                held.withLock { $0.append(file) }
                return true
            }
        case 1:
            let k = n % inputs
            tally.track(n, fs.readFile("\(dir)/in-\(k)")) { $0 == inputBytes(k) }
        default:
            tally.track(n, fs.writeFile("\(dir)/out-\(n)", newBytes(n)))
        }
    }
    let pending = tally.waitForAll(seconds: 30)

    let files = held.withLock { $0 }
    for file in files { _ = try? awaitPromise(file.close()) }
    held.withLock { $0.removeAll() }
    // With the held files closed (so this check has descriptors to read with): no target
    // may hold anything but its old or its new contents; a fulfilled write must have left
    // the new ones. No temporary file may be left behind.
    var torn = 0
    var lost = 0
    var applied = 0
    for n in 0..<operations where n % 4 >= 2 {
        let bytes = plainBytes("\(dir)/out-\(n)")
        if bytes != oldBytes && bytes != newBytes(n) { torn += 1 }
        let fulfilled = tally.outcomes[n].fulfilled.load(ordering: .acquiring)
        if fulfilled, bytes != newBytes(n) { lost += 1 }
        if !fulfilled, bytes == newBytes(n) { applied += 1 }
    }
    var debris = 0
    if let handle = opendir(dir) {
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.contains(".tmp-") { debris += 1 }
        }
        closedir(handle)
    }

    // Recovery: with the descriptors back, a new batch must go through in full.
    let recovery = Tally(count: 200)
    for n in 0..<200 {
        if n % 2 == 0 {
            let k = n % inputs
            recovery.track(n, fs.readFile("\(dir)/in-\(k)")) { $0 == inputBytes(k) }
        } else {
            let path = "\(dir)/rec-\(n)"
            recovery.track(n, fs.writeFile(path, newBytes(n)).then(on: .inline) { plainBytes(path) }) { $0 == newBytes(n) }
        }
    }
    let recoveryPending = recovery.waitForAll(seconds: 30)
    let recovered = recovery.fulfilled.load(ordering: .relaxed) - recovery.wrongContent.load(ordering: .relaxed)

    let others = tally.otherErrors.withLock { $0 } + recovery.otherErrors.withLock { $0 }
    say(
        "ops=\(operations) fulfilled=\(tally.fulfilled.load(ordering: .relaxed)) emfile=\(tally.tooManyOpenFiles.load(ordering: .relaxed)) "
            + "other=\(others.count) pending=\(pending + recoveryPending) twice=\(tally.settledTwice + recovery.settledTwice) "
            + "wrong=\(tally.wrongContent.load(ordering: .relaxed)) torn=\(torn) lost=\(lost) applied=\(applied) debris=\(debris) held=\(files.count) "
            + "recovered=\(recovered)/200")
    for line in others.prefix(5) { say("other: \(line)") }
}
