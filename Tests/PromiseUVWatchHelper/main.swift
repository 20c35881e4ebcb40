// Spawned by PromiseUVTests (FileWatchLimitTests): hits the per-user inotify watch limit in a
// user namespace of its own, where the limit can be lowered without touching the machine's.
//
//   promiseuv-watch-helper <directory> <limit> <watches>
//
// Re-runs itself under `unshare -r`, sets /proc/sys/user/max_inotify_watches to <limit> there,
// starts <watches> watches of subdirectories of <directory>, and prints one line per watch:
// `pending`, or the error's code name and description.
//
//   promiseuv-watch-helper <directory> <limit> <subdirectories> tree
//
// As above, but makes <subdirectories> subdirectories of <directory> and starts one recursive
// watch of <directory>, which needs one inotify watch for each directory; prints its one line.
//
//   promiseuv-watch-helper churn <directory>
//
// Counts the process's descriptors (/proc/self/fd) before the loop exists (after a first loop
// without watches came and went), after one watch was
// started and cancelled, after 1 000 more, and after the loop's shutdown, and prints them as
// `before N after-1 N after-1000 N after-shutdown N`. A process of its own, so that no other
// test's descriptors come and go meanwhile.
import Glibc
import PromiseUV

/// How many entries /proc/self/fd lists, less the one `opendir` itself holds.
func descriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { count += 1 }
    }
    return count - 1
}

/// Starts `count` watches of `directory`'s subdirectories, lets the loop start them, cancels
/// them and lets the loop stop them.
func churn(_ loop: UVLoop, _ directory: String, _ count: Int) throws {
    let watches = (0..<count).map { index in loop.nextChange(of: "\(directory)/d\(index % 100)", keepsLoopAlive: false) }
    try loop.run(until: loop.after(.zero))
    for watch in watches { watch.cancel() }
    try loop.run(until: loop.after(.zero))
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "churn" {
    let directory = arguments[2]
    for index in 0..<100 { mkdir("\(directory)/d\(index)", 0o755) }
    // A first loop, without watches, opens what a process opens once (libuv's signal pipe,
    // Dispatch's own descriptors) and keeps for good.
    let warmUp = try UVLoop()
    try warmUp.run(until: warmUp.after(.zero))
    try awaitPromise(warmUp.shutdown())
    let before = descriptorCount()
    let loop = try UVLoop()
    try churn(loop, directory, 1)
    let afterOne = descriptorCount()
    try churn(loop, directory, 1_000)
    let afterThousand = descriptorCount()
    try awaitPromise(loop.shutdown())
    print("before \(before) after-1 \(afterOne) after-1000 \(afterThousand) after-shutdown \(descriptorCount())")
    exit(0)
}
let inside = arguments.count >= 5 && arguments[4] == "inside"
let tree = arguments.last == "tree"
guard (4...6).contains(arguments.count), arguments.count == 4 + (inside ? 1 : 0) + (tree ? 1 : 0) else {
    print("usage: promiseuv-watch-helper <directory> <limit> <watches> [tree]")
    exit(2)
}
let directory = arguments[1]
let limit = arguments[2]
let count = Int(arguments[3]) ?? 0

if !inside {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let me = String(decoding: buffer[0..<max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let words: [String] = ["unshare", "-r", me, directory, limit, arguments[3], "inside"] + (tree ? ["tree"] : [])
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    execv("/usr/bin/unshare", argv)
    print("execv unshare: errno \(errno)")
    exit(3)
}

guard let file = fopen("/proc/sys/user/max_inotify_watches", "w"), fputs(limit, file) >= 0, fclose(file) == 0 else {
    print("cannot lower max_inotify_watches: errno \(errno)")
    exit(4)
}
for index in 0..<count { mkdir("\(directory)/d\(index)", 0o755) }

let loop = try UVLoop()
let watches =
    tree
    ? [loop.nextChange(of: directory, recursive: true, keepsLoopAlive: false)]
    : (0..<count).map { index in loop.nextChange(of: "\(directory)/d\(index)", keepsLoopAlive: false) }
loop.run()  // starts the watches; returns once only unreferenced watches are left
for watch in watches {
    if watch.isPending {
        print("pending")
    } else {
        do {
            _ = try awaitPromise(watch)
            print("fulfilled")
        } catch let error as UVError {
            print("\(error.code.name) \(error)")
        } catch {
            print("other \(error)")
        }
    }
}
try awaitPromise(loop.shutdown())
