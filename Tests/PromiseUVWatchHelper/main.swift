// Spawned by PromiseUVTests (FileWatchLimitTests): hits the per-user inotify watch limit in a
// user namespace of its own, where the limit can be lowered without touching the machine's.
//
//   promiseuv-watch-helper <directory> <limit> <watches>
//
// Re-runs itself under `unshare -r`, sets /proc/sys/user/max_inotify_watches to <limit> there,
// starts <watches> watches of subdirectories of <directory>, and prints one line per watch:
// `pending`, or the error's code name and description.
import Glibc
import PromiseUV

let arguments = CommandLine.arguments
guard arguments.count == 4 || (arguments.count == 5 && arguments[4] == "inside") else {
    print("usage: promiseuv-watch-helper <directory> <limit> <watches>")
    exit(2)
}
let directory = arguments[1]
let limit = arguments[2]
let count = Int(arguments[3]) ?? 0

if arguments.count == 4 {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let me = String(decoding: buffer[0..<max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let words: [String] = ["unshare", "-r", me, directory, limit, arguments[3], "inside"]
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
let watches = (0..<count).map { index in loop.nextChange(of: "\(directory)/d\(index)", keepsLoopAlive: false) }
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
