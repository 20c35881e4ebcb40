import Foundation
import PromiseCore
import PromiseSignals
import PromiseTestSupport
import PromiseUV
import Testing

extension ProcessTests {
    @Test func sigchldWatchesAreRefusedWhileChildrenRun() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.spawn(UVCommand("sleep", arguments: ["3600"], terminationGrace: .zero))
        defer { child.cancel() }
        try await Task.sleep(for: .milliseconds(20))
        do {
            _ = try await Promises.nextSignal([SIGCHLD]).get()
            Issue.record("a SIGCHLD watch started")
        } catch let error as PromiseError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("(SIGCHLD) belongs to child processes"))
        }
        do {
            _ = try await loop.nextSignal(UVSignal(rawValue: SIGCHLD)).get()
            Issue.record("a loop SIGCHLD watch started")
        } catch let error as UVError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("SIGCHLD"))
        }
        #expect(child.isPending)
    }

    @Test func childrenRunBesideSignalWatchesOfOtherSignals() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let loopWatch = loop.nextSignal(.user2)
        let coreWatch = Promises.nextSignal([SIGUSR2])
        let results = try await all((0..<5).map { index in loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "exit \(index)"])) }).get()
        #expect(results.map(\.exit) == (0..<5).map { .exited(Int32($0)) })
        #expect(loopWatch.isPending && coreWatch.isPending)
        kill(getpid(), SIGUSR2)
        #expect(try await loopWatch.get() == .user2)
        #expect(try await coreWatch.get() == SIGUSR2)
        // The watches ended; children still run and are reaped.
        #expect(try await loop.output("echo", ["after"]).get() == "after\n")
    }

    @Test func otherChildrenOfTheProcessKeepTheirExitStatus() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // libuv children exit all around (SIGCHLD arrives for each) while Foundation.Process
        // and a raw posix_spawn child run beside them.
        let churn = (0..<20).map { _ in loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "sleep 0.05"])) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "sleep 0.2; exit 7"]
        try process.run()

        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("sleep 0.2; exit 5"), nil]
        defer { for pointer in argv { free(pointer) } }
        #expect(posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0)
        let spawned = pid
        let reaped = try await offCooperativePool { () -> (pid_t, Int32) in
            var status: Int32 = 0
            let got = waitpid(spawned, &status, 0)
            return (got, status)
        }
        #expect(reaped.0 == spawned)
        #expect((reaped.1 >> 8) & 0xff == 5)
        try await offCooperativePool { process.waitUntilExit() }
        #expect(process.terminationStatus == 7)
        for child in churn { #expect(try await child.get().exit == .exited(0)) }
    }
}
