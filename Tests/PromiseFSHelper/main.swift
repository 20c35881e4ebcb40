// promisefs-helper: runs PromiseFS in a process of its own, for the tests that must kill a
// writer, limit its file size, or drop root. Not a product; the PromiseFS tests spawn it.
//
//   promisefs-helper rewrite PATH SIZE        rewrite PATH atomically forever; generation g
//                                             fills all SIZE bytes with g % 251
//   promisefs-helper fsize PATH LIMIT SIZE    under RLIMIT_FSIZE = LIMIT, write SIZE bytes
//                                             atomically over PATH; print the error
//   promisefs-helper nobody-read PATH         drop to uid/gid 65534, read PATH; print the error
//   promisefs-helper chunked-read PATH        read PATH in 1 MiB chunks with forEachChunk;
//                                             print "BYTES GROWTH": the bytes read and how far
//                                             resident memory rose above its start (this
//                                             process only, so parallel tests cannot add to it)
//   promisefs-helper nofile DIR               under RLIMIT_NOFILE = 64, 1 000 concurrent
//                                             operations in DIR, then a recovery batch; print
//                                             one summary line (see `noFileBurst`)
//   promisefs-helper disk-full DIR            atomic writes, a recursive copy and an append
//                                             into DIR, an empty 2 MiB tmpfs, until it is
//                                             full, then again with room; one line per fact
//                                             (see `diskFull`)
//   promisefs-helper swap SUB PARK OUTSIDE    swap the directory SUB for a symbolic link to
//                                             OUTSIDE and back, forever (see `swapLoop`)
//   promisefs-helper deep DIR LEVELS          under RLIMIT_NOFILE = 64, list, copy and
//                                             remove a tree LEVELS deep; one line per fact
//                                             (see `deepTree`)
//   promisefs-helper umask DIR                under umask 077, create files and a directory
//                                             in DIR; print their modes (see `umaskModes`)
//   promisefs-helper nobody-write PATH        drop to uid/gid 65534, rewrite PATH atomically;
//                                             print `written` or the error
//   promisefs-helper lease PATH               hold a lease on PATH while an in-place write
//                                             opens it; print `written …` or the error
import Glibc
import PromiseFS
import Synchronization

let arguments = CommandLine.arguments
let fs = PromiseFileSystem()

func say(_ line: String) {
    print(line)
    fflush(nil)  // every stream: no global `stdout` access in Swift 6 mode
}

func fail(_ line: String) -> Never {
    say(line)
    exit(2)
}

/// The test process that started this helper.
let parentAtStart = getppid()

/// Ends a helper that loops until its test stops it, once that test is gone: a test process
/// that crashed never stops it, and the loop would go on using a core (seen after an
/// AddressSanitizer abort: two helpers still rewriting and swapping 8 minutes later).
func exitIfOrphaned() {
    if getppid() != parentAtStart { exit(3) }
}

guard arguments.count >= 3 else {
    fail("usage: promisefs-helper rewrite|fsize|nobody-read|chunked-read|nofile|disk-full|swap|deep|umask|nobody-write|lease PATH …")
}
let path = arguments[2]

switch arguments[1] {
case "rewrite":
    guard arguments.count == 4, let size = Int(arguments[3]) else { fail("usage: rewrite PATH SIZE") }
    var generation = 0
    say("ready")
    while true {
        exitIfOrphaned()
        generation += 1
        do {
            try awaitPromise(fs.writeFile(path, [UInt8](repeating: UInt8(generation % 251), count: size)))
        } catch {
            fail("write failed: \(error)")
        }
    }
case "fsize":
    guard arguments.count == 5, let limit = Int(arguments[3]), let size = Int(arguments[4]) else {
        fail("usage: fsize PATH LIMIT SIZE")
    }
    signal(SIGXFSZ, SIG_IGN)  // get EFBIG instead of being killed
    var rule = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &rule) == 0 else { fail("setrlimit failed") }
    do {
        try awaitPromise(fs.writeFile(path, [UInt8](repeating: 1, count: size)))
        say("written")
    } catch {
        say("\(error)")
    }
case "nobody-read":
    guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop to uid 65534 (not root?)") }
    do {
        _ = try awaitPromise(fs.readFile(path))
        say("read")
    } catch {
        say("\(error)")
    }
case "chunked-read":
    /// Resident bytes: the second field of /proc/self/statm, in pages.
    @Sendable func resident() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(fd, &buffer, buffer.count)
        let fields = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
    do {
        let file = try awaitPromise(fs.open(path))
        let start = resident()
        let peak = Atomic<Int>(start)
        let total = try awaitPromise(
            file.forEachChunk(on: .inline, size: 1 << 20) { chunk in
                precondition(chunk.count == 1 << 20)
                peak.max(resident(), ordering: .relaxed)
            })
        try awaitPromise(file.close())
        say("\(total) \(peak.load(ordering: .relaxed) - start)")
    } catch {
        fail("chunked read failed: \(error)")
    }
case "nofile":
    noFileBurst(in: path)
case "disk-full":
    diskFull(in: path)
case "swap":
    guard arguments.count == 5 else { fail("usage: swap SUB PARK OUTSIDE") }
    swapLoop(sub: path, park: arguments[3], outside: arguments[4])
case "deep":
    guard arguments.count == 4, let levels = Int(arguments[3]) else { fail("usage: deep DIR LEVELS") }
    deepTree(in: path, levels: levels)
case "umask":
    umaskModes(in: path)
case "nobody-write":
    nobodyWrite(path)
case "lease":
    leaseBreak(path)
case "write-lease":
    writeLeaseBreak(path)
default:
    fail("unknown command \(arguments[1])")
}
