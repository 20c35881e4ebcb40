// PromiseFS beside raw read(2)/write(2) loops doing the same work, in one process run.
//
//   PromiseFSBench DIR [ROUNDS] [LARGE_MIB]
//
// Every round runs every workload once, candidate and baseline back to back, so a noisy
// minute hits both. Prints one line per workload: name, median, min and max milliseconds,
// tab-separated, for Benchmarks/fs-ratios.py. Workloads (issue 6):
//   large-write  LARGE_MIB (default 1024) MiB replaced atomically and durably (raw: the same
//                steps by hand)
//   large-write-in-place  the same, truncating and writing in place (still fsynced)
//   large-read   the same file read whole (page cache warm)
//   chunk-read   the same file read in 1 MiB chunks
//   small-read   10 000 files of 4 KiB read (PromiseFS: all started at once)
//   small-write  10 000 files of 4 KiB replaced atomically, not fsynced
//   small-write-in-place  the same written in place (truncate + write: Node's writeFile)
//   durable-write 200 files of 4 KiB replaced atomically and fsynced
import Glibc
import PromiseFS

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: PromiseFSBench DIR [ROUNDS] [LARGE_MIB]")
    exit(2)
}
let dir = arguments[1]
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let largeMiB = arguments.count > 3 ? Int(arguments[3]) ?? 1024 : 1024
let fs = PromiseFileSystem()

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

func check(_ ok: Bool, _ what: String) {
    if !ok {
        print("benchmark setup failed: \(what) (errno \(errno))")
        exit(1)
    }
}

// MARK: Raw baselines

func rawWrite(_ path: String, _ bytes: [UInt8], sync: Bool) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    check(fd >= 0, "open \(path)")
    bytes.withUnsafeBytes { buffer in
        var done = 0
        while done < buffer.count {
            let n = write(fd, buffer.baseAddress! + done, min(buffer.count - done, 1 << 20))
            check(n > 0, "write")
            done += n
        }
    }
    if sync { check(fsync(fd) == 0, "fsync") }
    close(fd)
}

func rawAtomicWrite(_ path: String, _ bytes: [UInt8]) {
    let temporary = path + ".tmp"
    rawWrite(temporary, bytes, sync: false)
    check(rename(temporary, path) == 0, "rename")
}

/// What PromiseFS's default write does, by hand: temp, write, fsync, rename, fsync the directory.
func rawDurableAtomicWrite(_ path: String, _ bytes: [UInt8], directory: String) {
    rawWrite(path + ".tmp", bytes, sync: true)
    check(rename(path + ".tmp", path) == 0, "rename")
    let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    check(dirFD >= 0, "open \(directory)")
    fsync(dirFD)
    close(dirFD)
}

func rawRead(_ path: String) -> Int {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    check(fd >= 0, "open \(path)")
    var info = stat()
    fstat(fd, &info)
    let size = Int(info.st_size)
    let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
        count = 0
        while true {
            let n = read(fd, buffer.baseAddress! + count, size + 1 - count)
            if n <= 0 { break }
            count += n
        }
    }
    close(fd)
    return bytes.count
}

func rawChunkRead(_ path: String) -> Int {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    check(fd >= 0, "open \(path)")
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var total = 0
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        total += n
    }
    close(fd)
    return total
}

// MARK: Fixtures

let large = "\(dir)/large.bin"
let largeBytes = [UInt8](repeating: 0x5a, count: largeMiB << 20)
let small = [UInt8](repeating: 0x61, count: 4096)
let smallCount = 10_000
let durableCount = 200
mkdir("\(dir)/small", 0o755)
mkdir("\(dir)/raw", 0o755)
mkdir("\(dir)/pfs", 0o755)
for index in 0..<smallCount { rawWrite("\(dir)/small/\(index)", small, sync: false) }

var samples: [String: [Double]] = [:]
@MainActor
func measure(_ name: String, _ body: () throws -> Void) throws {
    let start = now()
    try body()
    samples[name, default: []].append(now() - start)
}

// MARK: Rounds

/// Runs one workload's candidate and baseline, alternating which goes first each round so
/// that page-cache and writeback effects of the one before fall on both alike.
@MainActor
func pair(_ workload: String, round: Int, promiseFS: () throws -> Void, raw: () throws -> Void) throws {
    if round % 2 == 1 {
        try measure("\(workload)\tPromiseFS", promiseFS)
        try measure("\(workload)\traw", raw)
    } else {
        try measure("\(workload)\traw", raw)
        try measure("\(workload)\tPromiseFS", promiseFS)
    }
}

for round in 1...rounds {
    FileHandleLessLog.say("round \(round)/\(rounds)")
    try pair(
        "large-write", round: round,
        promiseFS: {
            try awaitPromise(fs.writeFile(large, largeBytes))
        },
        raw: {
            rawDurableAtomicWrite(large + ".raw", largeBytes, directory: dir)
        })
    try pair(
        "large-write-in-place", round: round,
        promiseFS: {
            try awaitPromise(fs.writeFile(large + ".inplace", largeBytes, options: FSWriteOptions(atomic: false)))
        },
        raw: {
            rawWrite(large + ".raw", largeBytes, sync: true)
        })
    try pair(
        "large-read", round: round,
        promiseFS: {
            let bytes = try awaitPromise(fs.readFile(large, maxSize: Int.max / 2))
            check(bytes.count == largeBytes.count, "large read size")
        },
        raw: {
            check(rawRead(large) == largeBytes.count, "raw read size")
        })
    try pair(
        "chunk-read", round: round,
        promiseFS: {
            let file = try awaitPromise(fs.open(large))
            let total = try awaitPromise(file.forEachChunk(on: .inline, size: 1 << 20) { _ in })
            try awaitPromise(file.close())
            check(total == Int64(largeBytes.count), "chunked read size")
        },
        raw: {
            check(rawChunkRead(large) == largeBytes.count, "raw chunk size")
        })
    try pair(
        "small-read", round: round,
        promiseFS: {
            let reads = (0..<smallCount).map { fs.readFile("\(dir)/small/\($0)") }
            let total = try awaitPromise(all(reads)).reduce(0) { $0 + $1.count }
            check(total == smallCount * 4096, "small read total")
        },
        raw: {
            var total = 0
            for index in 0..<smallCount { total += rawRead("\(dir)/small/\(index)") }
            check(total == smallCount * 4096, "raw small read total")
        })
    try pair(
        "small-write", round: round,
        promiseFS: {
            let options = FSWriteOptions(durable: false)
            let writes = (0..<smallCount).map { fs.writeFile("\(dir)/pfs/\($0)", small, options: options) }
            _ = try awaitPromise(all(writes))
        },
        raw: {
            for index in 0..<smallCount { rawAtomicWrite("\(dir)/raw/\(index)", small) }
        })
    try pair(
        "small-write-in-place", round: round,
        promiseFS: {
            let writes = (0..<smallCount).map { fs.writeFile("\(dir)/pfs/i\($0)", small, options: .inPlace) }
            _ = try awaitPromise(all(writes))
        },
        raw: {
            for index in 0..<smallCount { rawWrite("\(dir)/raw/i\(index)", small, sync: false) }
        })
    try pair(
        "durable-write", round: round,
        promiseFS: {
            let writes = (0..<durableCount).map { fs.writeFile("\(dir)/pfs/d\($0)", small) }
            _ = try awaitPromise(all(writes))
        },
        raw: {
            for index in 0..<durableCount { rawDurableAtomicWrite("\(dir)/raw/d\(index)", small, directory: "\(dir)/raw") }
        })
}

for (name, values) in samples.sorted(by: { $0.key < $1.key }) {
    let sorted = values.sorted()
    print("\(name)\t\(sorted[sorted.count / 2])\t\(sorted.first!)\t\(sorted.last!)")
}

/// Progress on standard error, so standard output stays the table.
enum FileHandleLessLog {
    static func say(_ line: String) {
        _ = "\(line)\n".withCString { write(2, $0, strlen($0)) }
    }
}
