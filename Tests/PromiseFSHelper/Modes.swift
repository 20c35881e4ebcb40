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
        ("atomic-0644", { try awaitPromise(fs.writeText("\(dir)/atomic-0644", "a", options: WriteOptions(mode: 0o644))) }),
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
