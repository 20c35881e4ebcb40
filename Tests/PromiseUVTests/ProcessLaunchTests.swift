import Foundation
import PromiseTestSupport
@testable import PromiseUV
import Synchronization
import Testing

/// A descriptor this process holds open without close-on-exec, as a program that used plain
/// `open` or `dup2` has, at a number far from the others; closed by ``close()``.
struct InheritableDescriptor {
    let number: Int32

    init() throws {
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = Int32(min(4_000, Int(limit.rlim_cur) - 1))
        number = dup2(opened, wanted)
        _ = Glibc.close(opened)
        try #require(number == wanted)
        try #require(fcntl(number, F_GETFD) & FD_CLOEXEC == 0)
    }

    func close() { _ = Glibc.close(number) }
}

/// Launches `/bin/ls` with `arguments` (its `argv`) through ``ChildLauncher``, its standard
/// output a pipe read here to the end, and reaps it: what it wrote, and its `waitpid` status.
func launchReadingOutput(
    _ arguments: [String], extra: [(target: Int32, source: Int32)] = [], closing: ChildLauncher.DescriptorClosing
) throws -> (output: [UInt8], status: Int32) {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let request = ChildLauncher.Request(
        file: "/bin/ls", arguments: arguments, environment: nil, workingDirectory: nil, standard: [-1, ends[1], -1], extra: extra,
        processGroup: .inherited)
    let launched = ChildLauncher.launch(request, closing: closing)
    _ = Glibc.close(ends[1])
    defer { _ = Glibc.close(ends[0]) }
    let pid = try launched.get()
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
        let count = read(ends[0], &buffer, buffer.count)
        if count <= 0 { break }
        output += buffer[..<count]
    }
    var status: Int32 = 0
    #expect(waitpid(pid, &status, 0) == pid)
    return (output, status)
}

/// Two files, `first` and `second`, created empty in a directory and open for writing.
struct TwoFiles {
    let first: Int32
    let second: Int32

    init(in directory: TemporaryDirectory) throws {
        first = open(directory.path + "/first", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        second = open(directory.path + "/second", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(first >= 0 && second >= 0)
    }

    func close() {
        _ = Glibc.close(first)
        _ = Glibc.close(second)
    }
}

/// The descriptors `/bin/ls` finds open in itself (`/proc/self/fd`), each number a line: 0, 1
/// and 2 from the spawn, 3 the directory `ls` reads.
let ownDescriptorsOfLS = ["0", "1", "2", "3"]

extension ProcessTests {
    /// Only 0, 1 and 2 reach a child, however this process opened its other descriptors.
    @Test func onlyTheStandardDescriptorsReachTheChild() async throws {
        let inheritable = try InheritableDescriptor()
        defer { inheritable.close() }
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let result = try await loop.spawn(UVCommand("/bin/ls", arguments: ["/proc/self/fd"])).get()
        #expect(
            (result.outputText ?? "").split(separator: "\n").map(String.init) == ownDescriptorsOfLS, "descriptor \(inheritable.number) is open in this process")
    }

    /// Both ways of closing the rest in the child, the `closefrom` of glibc 2.34 and the list
    /// from `/proc/self/fd` for an older C library, leave the child 0, 1 and 2 only.
    @Test(arguments: [ChildLauncher.DescriptorClosing.closeFrom, .listed])
    func eachWayOfClosingLeavesTheStandardDescriptorsOnly(_ closing: ChildLauncher.DescriptorClosing) throws {
        let inheritable = try InheritableDescriptor()
        defer { inheritable.close() }
        let (output, status) = try launchReadingOutput(["ls", "/proc/self/fd"], closing: closing)
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init) == ownDescriptorsOfLS)
    }

    @Test func theListOfOpenDescriptorsFollowsOpensAndCloses() throws {
        let inheritable = try InheritableDescriptor()
        #expect(ChildLauncher.openDescriptors().contains(inheritable.number))
        #expect(ChildLauncher.openDescriptors().contains(0))
        inheritable.close()
        #expect(!ChildLauncher.openDescriptors().contains(inheritable.number))
    }

    /// A child's descriptors 0, 1 and 2 each come from the right source even when the sources
    /// are themselves 0, 1 and 2 in another order (each is copied above 2 first).
    @Test func standardDescriptorsGivenInAnotherOrderReachTheirPlaces() throws {
        let directory = try TemporaryDirectory()
        let files = try TwoFiles(in: directory)
        defer { files.close() }
        let (first, second) = (files.first, files.second)
        // Standard output goes to what standard error is given and the other way round: a
        // `dup2` straight onto 1 would overwrite the source that 2 reads.
        let request = ChildLauncher.Request(
            file: "/bin/sh", arguments: ["sh", "-c", "echo out; echo err >&2"], environment: nil, workingDirectory: nil,
            standard: [-1, second, first], processGroup: .inherited)
        let pid = try ChildLauncher.launch(request).get()
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(try String(contentsOfFile: directory.path + "/first", encoding: .utf8) == "err\n")
        #expect(try String(contentsOfFile: directory.path + "/second", encoding: .utf8) == "out\n")
    }

    /// An executable file with neither a binary format nor a `#!` line runs with `/bin/sh`, as
    /// `execvp` and a shell run it.
    @Test func aScriptWithoutAnInterpreterLineRunsWithTheShell() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let script = directory.path + "/plain"
        try writeProgram("echo \"plain script: $0 $1\"\n", to: script)
        let result = try await loop.spawn(UVCommand(script, arguments: ["argument"])).get()
        #expect(result.exit == .exited(0))
        #expect(result.outputText == "plain script: \(script) argument\n")
    }

    /// A child reaped by something else in this program (here `waitpid` on its pid, as a
    /// `waitpid(-1)` elsewhere would) cannot report its status: every promise fails with
    /// `ECHILD` and says why, none stays pending.
    @Test func aChildReapedBehindTheLoopsBackFailsWithTheReason() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("sleep", arguments: ["3600"]))
        let pid = try await child.processID.get()
        // Hold the loop thread while the child is killed and reaped here, so that the loop
        // looks only afterwards.
        let holding = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        let hold = Promise<Void>(on: loop) { () -> Void in
            holding.signal()
            held.wait()
        }
        let reaped = try await offCooperativePool {
            holding.wait()
            kill(pid, SIGKILL)
            var status: Int32 = 0
            return waitpid(pid, &status, 0)
        }
        held.signal()
        try await hold.get()
        #expect(reaped == pid)
        await expectUVError(UVError.Code(uvCode: -ECHILD)) { try await child.exit.get() }
        let error = await expectUVError(UVError.Code(uvCode: -ECHILD)) { try await child.result.get() }
        #expect(error?.detail.contains("reaped by something else") == true, "\(String(describing: error))")
        await expectUVError(UVError.Code(uvCode: -ESRCH)) { try await child.send(.terminate).get() }
    }
}

extension ProcessTests {
    /// A descriptor given in `extraDescriptors` reaches the child as the number asked for, a
    /// copy made at the call (so this program may close its own at once), beside 0, 1 and 2
    /// and nothing else.
    @Test func extraDescriptorsReachTheChildAsTheirNumbers() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/written-by-the-child"
        let file = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(file >= 0)
        var command = UVCommand("/bin/sh", arguments: ["-c", "echo through 7 >&7; ls /proc/$$/fd"])
        command.extraDescriptors = [7: file]
        let child = loop.spawn(command)
        _ = Glibc.close(file)
        let result = try await child.get()
        #expect(result.exit == .exited(0), "\(result.errorText ?? "")")
        #expect(result.outputText?.split(separator: "\n").map(String.init) == ["0", "1", "2", "7"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "through 7\n")
    }

    /// The highest number the documentation allows, the last below the descriptor limit,
    /// reaches the child too.
    @Test func theLastNumberBelowTheDescriptorLimitReachesTheChild() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let highest = Int32(clamping: limit.rlim_cur) - 1
        let directory = try TemporaryDirectory()
        let path = directory.path + "/written-by-the-child"
        let file = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(file >= 0)
        // sh redirects only single-digit descriptors itself: the child's descriptor is reopened
        // through /proc, which exists only if the child holds it.
        var command = UVCommand("/bin/sh", arguments: ["-c", "echo through \(highest) > /proc/$$/fd/\(highest)"])
        command.extraDescriptors = [highest: file, 3: file]
        let child = loop.spawn(command)
        _ = Glibc.close(file)
        let result = try await child.get()
        #expect(result.exit == .exited(0), "\(result.errorText ?? "")")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "through \(highest)\n")
    }

    /// Numbers that cannot be a child's extra descriptor, and descriptors this program does not
    /// hold, are refused before anything starts.
    @Test(arguments: [Int32(-1), 0, 2, Int32.max])
    func anExtraDescriptorNumberOutOfRangeIsRefused(_ number: Int32) async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        var command = UVCommand("true")
        command.extraDescriptors = [number: 1]
        let error = await expectUVError(.invalidArgument) { _ = try await loop.spawn(command).get() }
        #expect(error?.detail.contains("extraDescriptors") == true)
    }

    @Test func anExtraDescriptorThisProgramDoesNotHoldIsRefused() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let inheritable = try InheritableDescriptor()
        inheritable.close()
        var command = UVCommand("true")
        command.extraDescriptors = [3: inheritable.number]
        await expectUVError(UVError.Code(uvCode: -EBADF)) { _ = try await loop.spawn(command).get() }
    }

    /// Extra descriptors whose numbers are each other's sources (the child's `first` is this
    /// program's `second`, and the other way round) land where asked, with either way of
    /// closing the rest.
    @Test(arguments: [ChildLauncher.DescriptorClosing.closeFrom, .listed])
    func crossedExtraDescriptorsLandWhereAsked(_ closing: ChildLauncher.DescriptorClosing) throws {
        let directory = try TemporaryDirectory()
        let files = try TwoFiles(in: directory)
        defer { files.close() }
        let (first, second) = (files.first, files.second)
        // `ls -l` shows where each of its descriptors leads (a shell cannot name those above 9).
        let (output, status) = try launchReadingOutput(["ls", "-l", "/proc/self/fd"], extra: [(first, second), (second, first)], closing: closing)
        #expect(status == 0)
        // "l-wx------ 1 user group 64 date 22 -> /path/first" for each, after a "total" line.
        var leads: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let arrow = line.range(of: " -> ") else { continue }
            let number = line[..<arrow.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            leads[number] = String(line[arrow.upperBound...])
        }
        // `ls` reads the directory through the lowest number left free.
        let listing = (Int32(3)...).first { $0 != first && $0 != second }!
        let expected: Set<String> = Set([0, 1, 2, listing, first, second].map { "\($0)" })
        #expect(Set(leads.keys) == expected, "\(leads)")
        #expect(leads["\(first)"]?.hasSuffix(URL(fileURLWithPath: directory.path).lastPathComponent + "/second") == true)
        #expect(leads["\(second)"]?.hasSuffix(URL(fileURLWithPath: directory.path).lastPathComponent + "/first") == true)
    }
}

/// A program still open for writing somewhere in this process (`ETXTBSY`): a child another
/// thread starts holds a copy of every descriptor until it closes them, so a script written and
/// closed just before its own spawn can be busy for a moment.
extension ProcessTests {
    /// A script open for writing, in `directory`; the descriptor is returned open.
    static func busyScript(in directory: TemporaryDirectory) throws -> (path: String, writing: Int32) {
        let path = directory.path + "/busy.sh"
        let writing = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o755)
        try #require(writing >= 0)
        let script = Array("#!/bin/sh\nexit 7\n".utf8)
        try #require(script.withUnsafeBytes { write(writing, $0.baseAddress, $0.count) } == script.count)
        return (path, writing)
    }

    static func launch(_ path: String) -> Result<pid_t, ChildLauncher.Failure> {
        ChildLauncher.launch(
            ChildLauncher.Request(
                file: path, arguments: [path], environment: nil, workingDirectory: nil, standard: [-1, -1, -1], processGroup: .inherited))
    }

    /// Busy at the first try, free a few milliseconds later: the launch tries again and runs it.
    @Test func aProgramBusyForAMomentIsStartedOnceItIsFree() throws {
        let directory = try TemporaryDirectory()
        let (path, writing) = try Self.busyScript(in: directory)
        let closer = Thread {
            usleep(4_000)
            _ = Glibc.close(writing)
        }
        closer.start()
        let pid = try Self.launch(path).get()
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect((status >> 8) & 0xff == 7, "status \(status)")
    }

    /// Busy for longer than the retries wait: the launch fails with `ETXTBSY`, not at once.
    @Test func aProgramBusyForLongFailsWithTextFileBusy() throws {
        let directory = try TemporaryDirectory()
        let (path, writing) = try Self.busyScript(in: directory)
        defer { _ = Glibc.close(writing) }
        let started = ContinuousClock.now
        guard case .failure(let failure) = Self.launch(path) else {
            Issue.record("a program open for writing was started")
            return
        }
        #expect(failure.errno == ETXTBSY)
        #expect(ContinuousClock.now - started >= .milliseconds(31), "it was not tried again")
    }
}
