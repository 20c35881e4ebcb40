import Foundation
import PromiseTestSupport
import PromiseUV
import Testing

/// A child run in a pseudo-terminal (`UVCommand.terminal`), against real programs and real
/// `/dev/pts` terminals. One test at a time: several count the terminals this process holds
/// open, which no other suite opens.
@Suite(.serialized) struct ProcessTerminalTests {
    /// A command run in a terminal of `columns` by `rows`.
    static func command(_ script: String, columns: Int = 80, rows: Int = 24) -> UVCommand {
        var command = UVCommand("/bin/sh", arguments: ["-c", script])
        command.terminal = UVCommand.Terminal(columns: columns, rows: rows)
        return command
    }

    /// `cat` in a terminal, typed at through its standard input, on `loop`.
    static func typingCat(on loop: UVLoop) -> UVChildProcess {
        var command = UVCommand("cat", standardInput: .writer)
        command.terminal = UVCommand.Terminal()
        return loop.start(command)
    }

    /// Waits until this process holds no more terminal descriptors than `before`; `false`
    /// when it still holds more after 20 s.
    static func terminalsClosed(downTo before: Int) async throws -> Bool {
        try await eventually(.seconds(20)) { (try? openDescriptorCount()).map { $0 <= before } ?? false }
    }

    /// The descriptors of terminals (masters and slaves) this process has open. A test compares
    /// it with the count when it began, allowing for what a test before it may still be closing.
    static func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { entry in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")) ?? ""
            return target == "/dev/ptmx" || target.hasPrefix("/dev/pts/")
        }
    }

    @Test func theChildsStandardStreamsAreATerminalOfTheGivenSize() async throws {
        let loop = try startedLoop("uv-pty-size")
        defer { loop.shutdown() }
        var command = Self.command("test -t 0 && echo in; test -t 1 && echo out; test -t 2 && echo err >&2; stty size", columns: 132, rows: 43)
        command.standardInput = .writer
        command.standardError = .combinedWithOutput
        let result = try await loop.start(command).result.get()
        #expect(result.exit == .exited(0), "\(result)")
        // A terminal shows each `\n` as `\r\n`.
        #expect(result.outputText == "in\r\nout\r\nerr\r\n43 132\r\n")
        #expect(result.standardError.isEmpty)
    }

    /// The child leads a session whose controlling terminal is its own: `/dev/tty` opens even
    /// with standard input and error elsewhere.
    @Test func theTerminalControlsTheSessionTheChildLeads() async throws {
        let loop = try startedLoop("uv-pty-session")
        defer { loop.shutdown() }
        var command = Self.command(
            """
            test -t 0 || echo input-is-not-the-terminal
            test -t 2 || echo error-is-apart >&2
            echo through-dev-tty > /dev/tty
            [ "$(cut -d' ' -f6 /proc/$$/stat)" = "$$" ] && echo leads-its-session
            """)
        command.processGroup = .inherited  // a terminal gives it a session whatever this says
        let result = try await loop.start(command).result.get()
        #expect(result.exit == .exited(0), "\(result)")
        #expect(result.outputText == "input-is-not-the-terminal\r\nthrough-dev-tty\r\nleads-its-session\r\n")
        #expect(result.errorText == "error-is-apart\n")
    }

    @Test func typedInputIsEchoedAndFinishTypesEndOfFile() async throws {
        let loop = try startedLoop("uv-pty-type")
        defer { loop.shutdown() }
        let child = Self.typingCat(on: loop)
        let input = try #require(child.standardInput)
        try await input.write("hello\n").get()
        try await input.finish().get()
        let result = try await child.result.get()
        #expect(result.exit == .exited(0), "\(result)")
        // The terminal's echo of the line, and cat's copy of it.
        #expect(result.outputText == "hello\r\nhello\r\n", "\(result)")
    }

    /// An unfinished line needs a second end-of-file character: the first hands the line over.
    @Test func finishingAnUnfinishedLineStillEndsTheInput() async throws {
        let loop = try startedLoop("uv-pty-partial")
        defer { loop.shutdown() }
        let child = Self.typingCat(on: loop)
        let input = try #require(child.standardInput)
        input.write("no newline")
        input.finish()
        #expect(try await eventually(.seconds(30)) { !child.result.isPending }, "cat is still waiting for input")
        let result = try await child.result.get()
        #expect(result.exit == .exited(0), "\(result)")
        #expect(result.outputText == "no newlineno newline")
    }

    @Test func resizingSignalsTheChildWhichReadsTheNewSize() async throws {
        let loop = try startedLoop("uv-pty-winch")
        defer { loop.shutdown() }
        var command = Self.command("trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.05; done")
        command.standardInput = .writer
        command.standardOutput = .stream()
        let child = loop.start(command)
        var seen: [UInt8] = []
        var pieces = try #require(child.standardOutput).makeAsyncIterator()
        while !String(decoding: seen, as: UTF8.self).contains("ready\r\n"), let piece = try await pieces.next() { seen += piece }
        try await child.resizeTerminal(columns: 100, rows: 40).get()
        while let piece = try await pieces.next() { seen += piece }
        #expect(String(decoding: seen, as: UTF8.self) == "ready\r\n40 100\r\n")
        #expect(try await child.result.get().exit == .exited(0))
    }

    /// The sizes at each end of the range are set as given.
    @Test(arguments: [(1, 1), (UVCommand.Terminal.maximumSize, UVCommand.Terminal.maximumSize), (1, 65_535), (65_535, 1)])
    func theExtremeSizesAreSetAsGiven(columns: Int, rows: Int) async throws {
        let loop = try startedLoop("uv-pty-extreme")
        defer { loop.shutdown() }
        var command = Self.command("stty size", columns: columns, rows: rows)
        command.standardInput = .writer
        let child = loop.start(command)
        #expect(try await child.result.get().outputText == "\(rows) \(columns)\r\n")
        // Resizing to the other extreme before the next line is read.
        var again = Self.command("read line; stty size")
        again.standardInput = .writer
        let second = loop.start(again)
        try await second.resizeTerminal(columns: rows, rows: columns).get()
        try await second.standardInput!.write("go\n").get()
        #expect(try await second.result.get().outputText == "go\r\n\(columns) \(rows)\r\n")
    }

    @Test(arguments: [(0, 24), (80, 0), (-1, 24), (80, -1), (65_536, 24), (80, 65_536), (Int.max, Int.min)])
    func aSizeOutOfRangeIsRefusedAndNothingStarts(columns: Int, rows: Int) async throws {
        let loop = try startedLoop("uv-pty-refused")
        defer { loop.shutdown() }
        let before = try Self.openDescriptorCount()
        let child = loop.start(Self.command("echo should-not-run", columns: columns, rows: rows))
        let error = await expectUVError(.invalidArgument) { _ = try await child.result.get() }
        #expect(error?.message.contains("from 1 to 65535") == true, "\(String(describing: error))")
        await expectUVError(.invalidArgument) { _ = try await child.processID.get() }
        #expect(
            try await Self.terminalsClosed(downTo: before),
            "a refused command left a descriptor open")
        // A resize out of range is refused at once, whatever the child.
        let running = loop.start(Self.command("sleep 30"))
        await expectUVError(.invalidArgument) { try await running.resizeTerminal(columns: columns, rows: rows).get() }
        running.result.cancel()
        await #expect(throws: CancellationError.self) { try await running.result.get() }
    }

    @Test func standardOutputTheLoopDoesNotReadIsRefused() async throws {
        let loop = try startedLoop("uv-pty-output")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        for output in [UVCommand.Output.inherit, .discard, .file(directory.path + "/out"), .descriptor(1)] {
            var command = Self.command("echo should-not-run")
            command.standardOutput = output
            let error = await expectUVError(.invalidArgument) { _ = try await loop.start(command).result.get() }
            #expect(error?.message.contains("capture, lines, chunks or stream") == true, "\(String(describing: error))")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out"))
    }

    /// The end of the terminal's output (`EIO` at the master) is its end, not an error, and
    /// nothing written before it is lost.
    @Test func outputFarBeyondTheTerminalsBufferArrivesWhole() async throws {
        let loop = try startedLoop("uv-pty-large")
        defer { loop.shutdown() }
        let result = try await loop.start(Self.command("head -c 3000000 /dev/zero")).result.get()
        #expect(result.exit == .exited(0), "\(result)")
        #expect(result.standardOutput.count == 3_000_000)
        #expect(result.standardOutput.allSatisfy { $0 == 0 })
    }

    /// When the child, which leads the session, exits, the kernel hangs up what it left
    /// running in the terminal, so the output ends and the result settles.
    @Test func whatTheChildLeftInTheTerminalIsHungUpWhenItExits() async throws {
        let loop = try startedLoop("uv-pty-hangup")
        defer { loop.shutdown() }
        let result = try await loop.start(Self.command("sleep 600 & echo $!")).result.get()
        #expect(result.exit == .exited(0), "\(result)")
        let text = try #require(result.outputText)
        let sleeper = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try await eventually(.seconds(20)) { kill(sleeper, 0) != 0 }, "sleep \(sleeper) outlived its terminal")
    }

    /// Cancelling stops the whole session, what the child started included.
    @Test func cancellingStopsTheChildAndWhatItStarted() async throws {
        let loop = try startedLoop("uv-pty-cancel")
        defer { loop.shutdown() }
        var command = Self.command("sleep 600 & echo $!; wait")
        command.standardOutput = .stream()
        command.terminationGrace = .milliseconds(200)
        let child = loop.start(command)
        var seen: [UInt8] = []
        var pieces = try #require(child.standardOutput).makeAsyncIterator()
        while !seen.contains(UInt8(ascii: "\n")), let piece = try await pieces.next() { seen += piece }
        let sleeper = try #require(Int32(String(decoding: seen, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        child.result.cancel()
        await #expect(throws: CancellationError.self) { try await child.result.get() }
        #expect(try await eventually(.seconds(20)) { kill(sleeper, 0) != 0 }, "sleep \(sleeper) outlived the cancelled child")
    }

    @Test func writingAfterTheChildExitedFailsClearly() async throws {
        let loop = try startedLoop("uv-pty-late-write")
        defer { loop.shutdown() }
        var command = Self.command("exit 3")
        command.standardInput = .writer
        let child = loop.start(command)
        #expect(try await child.exit.get() == .exited(3))
        let error = await expectUVError(.brokenPipe) { try await child.standardInput!.write("too late\n").get() }
        #expect(error?.message.contains("exited") == true, "\(String(describing: error))")
        _ = try await child.result.get()
    }

    @Test func resizingWithoutATerminalOrAfterItClosedIsRefused() async throws {
        let loop = try startedLoop("uv-pty-resize-refused")
        defer { loop.shutdown() }
        let plain = loop.start(UVCommand("true"))
        let none = await expectUVError(.invalidArgument) { try await plain.resizeTerminal(columns: 80, rows: 24).get() }
        #expect(none?.message.contains("no terminal") == true, "\(String(describing: none))")
        let ended = loop.start(Self.command("true"))
        _ = try await ended.result.get()
        let closed = await expectUVError(UVError.Code(uvCode: -EBADF)) { try await ended.resizeTerminal(columns: 80, rows: 24).get() }
        #expect(closed?.message.contains("closed") == true, "\(String(describing: closed))")
    }

    /// Dropping the handle types end-of-file, as `finish()` does: a child reading its input to
    /// the end is not left waiting.
    @Test func droppingTheHandleEndsTheInput() async throws {
        let loop = try startedLoop("uv-pty-drop")
        defer { loop.shutdown() }
        let result = Self.typingCat(on: loop).result
        #expect(try await result.get().exit == .exited(0))
    }

    /// Many terminals at once, and every descriptor of each closed once all have settled.
    @Test func sixtyFourTerminalsAtOnceLeaveNoDescriptorOpen() async throws {
        let loop = try startedLoop("uv-pty-many")
        defer { loop.shutdown() }
        let before = try Self.openDescriptorCount()
        var results: [Promise<UVProcessResult>] = []
        for index in 0..<64 {
            var command = Self.command("stty size; echo \(index)", columns: 10 + index, rows: 5 + index)
            command.standardInput = .writer
            results.append(loop.start(command).result)
        }
        for (index, result) in results.enumerated() {
            #expect(try await result.get().outputText == "\(5 + index) \(10 + index)\r\n\(index)\r\n")
        }
        #expect(try await Self.terminalsClosed(downTo: before), "descriptors left open")
    }

    /// Cancelled before the loop spawned it, or at once after: nothing of the terminal is left.
    @Test func cancellingAtOnceLeavesNoDescriptorOpen() async throws {
        let loop = try startedLoop("uv-pty-cancel-early")
        defer { loop.shutdown() }
        let before = try Self.openDescriptorCount()
        for _ in 0..<20 {
            var command = Self.command("sleep 600")
            command.standardInput = .writer
            command.terminationGrace = .zero
            let child = loop.start(command)
            child.result.cancel()
            await #expect(throws: CancellationError.self) { try await child.result.get() }
        }
        #expect(try await Self.terminalsClosed(downTo: before), "descriptors left open")
    }

    /// A loop shut down under a running terminal child kills and reaps it, and closes the
    /// terminal.
    @Test func aLoopShutDownUnderTheChildClosesItsTerminal() async throws {
        let loop = try startedLoop("uv-pty-shutdown")
        let before = try Self.openDescriptorCount()
        var command = Self.command("echo started; sleep 600")
        command.standardInput = .writer
        command.standardOutput = .stream()
        let child = loop.start(command)
        var pieces = try #require(child.standardOutput).makeAsyncIterator()
        _ = try await pieces.next()
        loop.shutdown()
        await expectUVError(.loopClosed) { _ = try await child.result.get() }
        #expect(try await Self.terminalsClosed(downTo: before), "descriptors left open")
    }

    /// Resizes from many threads at once all go through the loop, in some order, and leave the
    /// terminal usable: one made after them is the size the child reads. (Which of the
    /// concurrent ones the loop made last cannot be read from their callbacks: one attached
    /// after its promise settled runs on the attaching thread, in no order with the others.)
    @Test func resizesFromManyThreadsAllLand() async throws {
        let loop = try startedLoop("uv-pty-threads")
        defer { loop.shutdown() }
        var command = Self.command("read line; stty size")
        command.standardInput = .writer
        let child = loop.start(command)
        let order = Lock<[Int]>([])
        let resizes = (1...100).map { width in
            onNewThread { child.resizeTerminal(columns: width, rows: 7).then(on: .inline) { order.withLock { $0.append(width) } } }
        }
        for resize in resizes { try await resize.get().get() }
        #expect(order.withLock { $0.sorted() } == Array(1...100))
        try await child.resizeTerminal(columns: 123, rows: 9).get()
        try await child.standardInput!.write("go\n").get()
        #expect(try await child.result.get().outputText == "go\r\n9 123\r\n")
    }

    @Test func aProgramThatCannotStartLeavesNoDescriptorOpen() async throws {
        let loop = try startedLoop("uv-pty-missing")
        defer { loop.shutdown() }
        let before = try Self.openDescriptorCount()
        var command = UVCommand("/nonexistent/program", standardInput: .writer)
        command.terminal = UVCommand.Terminal()
        await expectUVError(.noSuchFileOrDirectory) { _ = try await loop.start(command).result.get() }
        #expect(try await Self.terminalsClosed(downTo: before), "descriptors left open")
    }
}
