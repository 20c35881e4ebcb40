import Glibc
import PromiseFS

/// Runs PromiseFS's writes into a disk that really fills up: `dir` must be an empty tmpfs of
/// 2 MiB (the test mounts one in a mount namespace of this process's own). Setup and every
/// check use plain system calls, not PromiseFS. Prints one `key: value` line per fact; the
/// test decides what is right.
///
///   atomic:        how an atomic rewrite of `config` that cannot fit ended
///   config-after-atomic, tree2-after-copy, log-after-append: what is on disk after each
///   copy:          how a recursive copy of `tree` that runs out of room ended
///   append:        how an append that only partly fits ended
///   recovered-…:   the same operations once the filler file is removed
///   entries:       every name left in `dir` at the end
func diskFull(in dir: String) {
    let kib = 1024
    func path(_ name: String) -> String { "\(dir)/\(name)" }

    /// Writes `count` bytes of `byte` with plain system calls; setup only.
    func plainWrite(_ name: String, _ byte: UInt8, _ count: Int) {
        let fd = open(path(name), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { fail("setup: cannot create \(name): errno \(errno)") }
        defer { close(fd) }
        let bytes = [UInt8](repeating: byte, count: count)
        guard write(fd, bytes, count) == count else { fail("setup: cannot write \(name): errno \(errno)") }
    }

    /// "SIZE uniform BYTE", "SIZE mixed" or "absent", read with plain system calls.
    func describe(_ name: String) -> String {
        let fd = open(path(name), O_RDONLY)
        guard fd >= 0 else { return "absent" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * kib)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        guard let first = bytes.first else { return "0 empty" }
        return bytes.allSatisfy({ $0 == first }) ? "\(bytes.count) uniform \(first)" : "\(bytes.count) mixed"
    }

    /// The names in `path`, sorted, or "absent".
    func names(_ name: String) -> String {
        guard let stream = opendir(name.isEmpty ? dir : path(name)) else { return "absent" }
        defer { closedir(stream) }
        var found: [String] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if entryName != "." && entryName != ".." { found.append(entryName) }
        }
        return found.sorted().joined(separator: " ")
    }

    func outcome(_ promise: Promise<Void>) -> String {
        do {
            try awaitPromise(promise)
            return "ok"
        } catch {
            return "\(error)"
        }
    }

    // About 1.7 of the 2 MiB in use: a 256 KiB config written by PromiseFS, a 768 KiB tree and
    // a 640 KiB filler, leaving room for less than 384 KiB.
    guard outcome(fs.writeFile(path("config"), [UInt8](repeating: 1, count: 256 * kib))) == "ok" else {
        fail("setup: the first config did not fit")
    }
    guard mkdir(path("tree"), 0o755) == 0 else { fail("setup: mkdir tree: errno \(errno)") }
    for name in ["a", "b", "c"] { plainWrite("tree/\(name)", 7, 256 * kib) }
    plainWrite("filler", 0, 640 * kib)

    say("atomic: \(outcome(fs.writeFile(path("config"), [UInt8](repeating: 2, count: 512 * kib))))")
    say("config-after-atomic: \(describe("config"))")

    say("copy: \(outcome(fs.copy(path("tree"), to: path("tree2"), recursive: true)))")
    say("tree2-after-copy: \(names("tree2"))")

    say("append: \(outcome(fs.appendFile(path("log"), [UInt8](repeating: 9, count: 512 * kib))))")
    say("log-after-append: \(describe("log"))")

    // Room again: everything works as before, with nothing left over from the failures.
    unlink(path("filler"))
    unlink(path("log"))
    say("recovered-atomic: \(outcome(fs.writeFile(path("config"), [UInt8](repeating: 3, count: 512 * kib))))")
    say("recovered-config: \(describe("config"))")
    say("recovered-copy: \(outcome(fs.copy(path("tree"), to: path("tree2"), recursive: true)))")
    say("recovered-tree2: \(names("tree2")) \(describe("tree2/a")) \(describe("tree2/c"))")
    say("entries: \(names(""))")
}
