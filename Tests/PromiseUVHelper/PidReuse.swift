import Glibc
import PromiseUV

/// `pid-reuse`: re-runs this program as `pid-reuse-inside` in a pid namespace of its own
/// (`unshare -r --pid --fork --mount-proc`), where the next pid can be chosen.
func pidReuseInANewNamespace() -> Never {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { fail("readlink /proc/self/exe: errno \(errno)") }
    let me = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let arguments = ["/usr/bin/unshare", "-r", "--pid", "--fork", "--mount-proc", me, "pid-reuse-inside"]
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { (word: String) in strdup(word) } + [nil]
    execv(arguments[0], argv)
    fail("execv unshare: errno \(errno)")
}

/// `pid-reuse-inside`: a child is spawned and reaped; another process is then given its pid
/// (through `ns_last_pid`); a signal sent through the first child's handle must be refused
/// and must not reach the second. Prints `refused: …` and `bystander alive`, exits 0.
func pidReuseInside() throws -> Never {
    let loop = try UVLoop()
    try loop.startThread(named: "pid-reuse")
    let first = loop.start(UVCommand("/bin/true"))
    let pid = try awaitPromise(first.processID)
    _ = try awaitPromise(first.exit)
    // The next pid the namespace hands out is `pid` again; a thread made meanwhile would take
    // it, so try a few times.
    var bystander: pid_t = 0
    for _ in 0..<20 where bystander != pid {
        if bystander > 0 { stop(bystander) }
        guard let file = fopen("/proc/sys/kernel/ns_last_pid", "w") else { fail("open ns_last_pid: errno \(errno)") }
        fputs("\(pid - 1)", file)
        guard fclose(file) == 0 else { fail("write ns_last_pid: errno \(errno)") }
        let argv: [UnsafeMutablePointer<CChar>?] = ["sleep", "30"].map { (word: String) in strdup(word) } + [nil]
        let spawned = posix_spawn(&bystander, "/bin/sleep", nil, nil, argv, environ)
        argv.forEach { free($0) }
        guard spawned == 0 else { fail("posix_spawn sleep: errno \(spawned)") }
    }
    guard bystander == pid else { fail("pid \(pid) was not handed out again (got \(bystander))") }
    do {
        try awaitPromise(first.send(.terminate))
        fail("a signal for the reaped child \(pid) was sent")
    } catch let error as UVError {
        print("refused: \(error)")
    }
    // Give a signal that went out time to arrive.
    usleep(100_000)
    var status: Int32 = 0
    guard waitpid(bystander, &status, WNOHANG) == 0, kill(bystander, 0) == 0 else { fail("the process now holding pid \(pid) was signalled") }
    print("bystander alive")
    stop(bystander)
    try awaitPromise(loop.shutdown())
    exit(0)
}

private func stop(_ pid: pid_t) {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    _ = waitpid(pid, &status, 0)
}

private func fail(_ message: String) -> Never {
    print("error: \(message)")
    exit(3)
}
