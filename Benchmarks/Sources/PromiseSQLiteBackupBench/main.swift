// PromiseSQLite's `backup(to:)` beside `sqlite3 SOURCE ".backup DEST"` (the shell, run as a
// process, so its time includes starting it: a few milliseconds), on the same source file,
// interleaved round by round. Prints medians, min-max, MB/s and the speed ratio.
//
//   PromiseSQLiteBackupBench WORK-DIR [MEGABYTES] [ROUNDS] [PAGES-PER-STEP]
import Glibc
import PromiseSQLite

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: PromiseSQLiteBackupBench WORK-DIR [MEGABYTES] [ROUNDS] [PAGES-PER-STEP]")
    exit(2)
}
let work = arguments[1]
let megabytes = arguments.count > 2 ? Int(arguments[2]) ?? 200 : 200
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
let pagesPerStep = arguments.count > 4 ? Int(arguments[4]) ?? 1024 : 1024
let source = "\(work)/source.sqlite"

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// Runs the sqlite3 shell; its exit status.
func shell(_ arguments: [String]) -> Int32 {
    let command = ["/usr/bin/sqlite3"] + arguments
    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    guard posix_spawn(&pid, command[0], nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

do {
    // The source: rows of 4000-byte blobs up to the size asked for.
    let db = try awaitPromise(SQLiteDatabase.open(path: source))
    try awaitPromise(db.executeScript("CREATE TABLE IF NOT EXISTS blobs(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"))
    let rows = megabytes * 1_000_000 / 4000
    let payload = (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    try awaitPromise(
        db.transaction { db in
            for _ in 0..<rows { try db.execute("INSERT INTO blobs(data) VALUES (?)", binding: payload) }
        })
    let bytes = Double(fileSize(source))
    var ours: [Double] = []
    var theirs: [Double] = []
    for round in 0..<rounds {
        for candidate in round % 2 == 0 ? ["ours", "shell"] : ["shell", "ours"] {
            let destination = "\(work)/\(candidate).sqlite"
            let start = now()
            if candidate == "ours" {
                try awaitPromise(db.backup(to: destination, pagesPerStep: pagesPerStep))
                ours.append(now() - start)
            } else {
                let status = shell([source, ".backup '\(destination)'"])
                theirs.append(now() - start)
                guard status == 0 else {
                    print("sqlite3 .backup failed: \(status)")
                    exit(1)
                }
            }
            guard fileSize(destination) == Int(bytes) else {
                print("\(candidate): the copy has \(fileSize(destination)) bytes, the source \(Int(bytes))")
                exit(1)
            }
            unlink(destination)
        }
    }
    try awaitPromise(db.close())
    func row(_ name: String, _ times: [Double]) -> String {
        let m = median(times)
        return "| \(name) | \(format1(m * 1000)) ms (\(format1(times.min()! * 1000))–\(format1(times.max()! * 1000))) | \(format1(bytes / m / 1e6)) MB/s |"
    }
    print(
        "Backup of a \(format1(bytes / 1e6)) MB database (4 KiB pages), \(rounds) rounds, \(pagesPerStep) pages per step for PromiseSQLite; median (min–max):\n"
    )
    print("| copy | time | speed |")
    print("|---|---|---|")
    print(row("PromiseSQLite backup(to:)", ours))
    print(row("sqlite3 .backup (process)", theirs))
    print("\nratio (PromiseSQLite speed / sqlite3 speed): \((median(theirs) / median(ours) * 100).rounded() / 100)")
} catch {
    print("error: \(error)")
    exit(1)
}

func format1(_ value: Double) -> String {
    let scaled = (value * 10).rounded() / 10
    return String(scaled)
}
