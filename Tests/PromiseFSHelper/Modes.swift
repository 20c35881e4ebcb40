import Glibc
import PromiseFS

/// `promisefs-helper umask DIR`: under `umask 077` (process-wide, hence a process of its own),
/// creates a file or directory in DIR with each PromiseFS operation that creates one, and
/// atomically rewrites `DIR/kept` (made beforehand with mode 0644); prints `NAME MODE` lines,
/// the mode in octal as `lstat` reports it.
func umaskModes(in dir: String) {
    umask(0o077)
    let steps: [(String, () throws -> Void)] = [
        ("atomic", { try awaitPromise(fs.writeText("\(dir)/atomic", "a")) }),
        ("atomic-0644", { try awaitPromise(fs.writeText("\(dir)/atomic-0644", "a", options: FSWriteOptions(mode: 0o644))) }),
        ("in-place", { try awaitPromise(fs.writeText("\(dir)/in-place", "a", options: .inPlace)) }),
        ("append", { try awaitPromise(fs.appendFile("\(dir)/append", Array("a".utf8))) }),
        ("open", { try awaitPromise(awaitPromise(fs.open("\(dir)/open", options: .write)).close()) }),
        ("directory", { try awaitPromise(fs.createDirectory("\(dir)/directory")) }),
        ("kept", { try awaitPromise(fs.writeText("\(dir)/kept", "b")) }),
    ]
    for (name, step) in steps {
        do {
            try step()
            var info = stat()
            guard lstat("\(dir)/\(name)", &info) == 0 else { fail("\(name): lstat failed") }
            say("\(name) \(String(UInt32(info.st_mode) & 0o7777, radix: 8))")
        } catch {
            say("\(name) failed: \(error)")
        }
    }
}

/// `promisefs-helper nobody-write PATH`: as uid/gid 65534, atomically rewrites PATH (someone
/// else's file in a directory anyone may write); prints `written` or the error.
func nobodyWrite(_ path: String) {
    guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop to uid 65534 (not root?)") }
    do {
        try awaitPromise(fs.writeText(path, "written by nobody"))
        say("written")
    } catch {
        say("\(error)")
    }
}

/// `promisefs-helper lease PATH`: holds a read lease on PATH (`SIGIO`, which announces the
/// break, ignored), starts an in-place write of PATH, gives the lease up 200 ms later, and
/// prints `written CONTENTS` or the error.
func leaseBreak(_ path: String) {
    let setLease: Int32 = 1024  // F_SETLEASE, which Glibc declares only under _GNU_SOURCE
    signal(SIGIO, SIG_IGN)
    let holder = open(path, O_RDONLY)
    guard holder >= 0, fcntl(holder, setLease, Int32(F_RDLCK)) == 0 else { fail("cannot take a lease on \(path): errno \(errno)") }
    let write = fs.writeText(path, "after the lease", options: .inPlace)
    usleep(200_000)
    guard fcntl(holder, setLease, Int32(F_UNLCK)) == 0 else { fail("cannot give the lease up: errno \(errno)") }
    close(holder)
    do {
        try awaitPromise(write, timeout: .seconds(30))
        let check = open(path, O_RDONLY)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(check, &buffer, buffer.count)
        close(check)
        say("written \(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self))")
    } catch {
        say("\(error)")
    }
}

/// `promisefs-helper write-lease FILE`: holds a write lease on FILE (as Samba's oplocks do)
/// while a whole-file read and a copy of it start, writes its last change, gives the lease up,
/// then prints what the read and the copy got: each open waits for the lease to be given up.
func writeLeaseBreak(_ path: String) {
    let setLease: Int32 = 1024  // F_SETLEASE, which Glibc declares only under _GNU_SOURCE
    signal(SIGIO, SIG_IGN)
    let holder = open(path, O_RDWR)
    guard holder >= 0, fcntl(holder, setLease, Int32(F_WRLCK)) == 0 else { fail("cannot take a write lease on \(path): errno \(errno)") }
    let read = fs.readText(path)
    let copied = fs.copy(path, to: path + ".copy")
    usleep(200_000)
    let last = Array("changed under the lease".utf8)
    guard ftruncate(holder, 0) == 0, pwrite(holder, last, last.count, 0) == last.count else { fail("cannot write under the lease: errno \(errno)") }
    guard fcntl(holder, setLease, Int32(F_UNLCK)) == 0 else { fail("cannot give the lease up: errno \(errno)") }
    close(holder)
    do {
        let text = try awaitPromise(read, timeout: .seconds(30))
        try awaitPromise(copied, timeout: .seconds(30))
        let copy = try awaitPromise(fs.readText(path + ".copy"), timeout: .seconds(30))
        say("read: \(text); copied: \(copy)")
    } catch {
        say("\(error)")
    }
}
