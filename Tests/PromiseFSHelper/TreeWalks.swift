import Glibc
import PromiseFS

/// Swaps the directory `sub` for a symbolic link to `outside` and back, forever: `sub` is
/// renamed to `park`, a link takes its name, then the link goes and the directory returns.
/// The link and the directory each stay about 100 µs; the moments without `sub` are short.
func swapLoop(sub: String, park: String, outside: String) -> Never {
    say("ready")
    while true {
        exitIfOrphaned()
        guard rename(sub, park) == 0 else { fail("rename \(sub) failed: errno \(errno)") }
        guard symlink(outside, sub) == 0 else { fail("symlink failed: errno \(errno)") }
        usleep(100)
        guard unlink(sub) == 0 else { fail("unlink failed: errno \(errno)") }
        guard rename(park, sub) == 0 else { fail("rename \(park) failed: errno \(errno)") }
        usleep(100)
    }
}

/// Builds `levels` nested directories `d` in `dir/deep`, a file `bottom` in the deepest,
/// then, under RLIMIT_NOFILE = 64, lists, copies and removes the tree, and copies it once
/// more with a FIFO at the bottom, which must fail and leave nothing. One line per fact:
///
///     list 1101                       entries in the recursive listing
///     copy ok                         or "copy failed: <error>"
///     copied-bottom deep bottom       the copied file's contents
///     failed-copy invalidArgument …   the error of the copy with the FIFO
///     left copy2 absent               whether that copy left anything
///     remove ok                       removing the copy and the tree
///     dir copy? deep?                 what is left in `dir` (nothing)
func deepTree(in dir: String, levels: Int) {
    var path = "\(dir)/deep"
    guard mkdir(path, 0o755) == 0 else { fail("mkdir \(path) failed: errno \(errno)") }
    for _ in 0..<levels {
        path += "/d"
        guard mkdir(path, 0o755) == 0 else { fail("mkdir at depth failed: errno \(errno)") }
    }
    let bottom = path
    let fd = open("\(bottom)/bottom", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0, write(fd, "deep bottom", 11) == 11 else { fail("cannot write the bottom file") }
    close(fd)
    // 56 descriptors beyond those already open, whatever this process inherited from the test
    // process that started it (which keeps other tests' files and sockets open meanwhile).
    let limit = rlim_t(openDescriptorCount() + 56)
    var rule = rlimit(rlim_cur: limit, rlim_max: limit)
    guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &rule) == 0 else { fail("setrlimit failed") }

    do {
        say("list \(try awaitPromise(fs.listDirectory("\(dir)/deep", recursive: true)).count)")
    } catch {
        say("list failed: \(error)")
    }
    do {
        try awaitPromise(fs.copy("\(dir)/deep", to: "\(dir)/copy", recursive: true))
        say("copy ok")
    } catch {
        say("copy failed: \(error)")
    }
    let copiedBottom = "\(dir)/copy" + String(bottom.dropFirst("\(dir)/deep".count)) + "/bottom"
    say("copied-bottom \((try? awaitPromise(fs.readText(copiedBottom))) ?? "missing")")
    guard mkfifo("\(bottom)/fifo", 0o644) == 0 else { fail("mkfifo failed: errno \(errno)") }
    do {
        try awaitPromise(fs.copy("\(dir)/deep", to: "\(dir)/copy2", recursive: true))
        say("failed-copy none")
    } catch let error as FSError {
        say("failed-copy \(error.code == .invalidArgument ? "invalidArgument" : "other") \(error)")
    } catch {
        say("failed-copy other \(error)")
    }
    say("left copy2 \(access("\(dir)/copy2", F_OK) == 0 ? "present" : "absent")")
    do {
        try awaitPromise(fs.remove("\(dir)/copy", recursive: true))
        try awaitPromise(fs.remove("\(dir)/deep", recursive: true))
        say("remove ok")
    } catch {
        say("remove failed: \(error)")
    }
    let left = ["copy", "copy2", "deep"].filter { access("\(dir)/\($0)", F_OK) == 0 }
    say("dir \(left.joined(separator: " "))")
}

/// How many descriptors this process has open (the entries of /proc/self/fd, less the one
/// that reading it takes).
private func openDescriptorCount() -> Int {
    guard let dir = opendir("/proc/self/fd") else { fail("cannot read /proc/self/fd") }
    defer { closedir(dir) }
    var count = -1
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { count += 1 }
    }
    return count
}
