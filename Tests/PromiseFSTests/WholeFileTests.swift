import Glibc
import PromiseFS
import Testing

@Suite struct WholeFileTests {
    let fs = PromiseFileSystem()

    @Test func writesAndReadsBackBytesAndText() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let bytes: [UInt8] = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await fs.writeFile(dir("data.bin"), bytes).get()
        #expect(try await fs.readFile(dir("data.bin")).get() == bytes)
        try await fs.writeText(dir("note.txt"), "grüße, 世界\n").get()
        #expect(try await fs.readText(dir("note.txt")).get() == "grüße, 世界\n")
        #expect(try await fs.readFile(dir("note.txt")).get().count == "grüße, 世界\n".utf8.count)
    }

    @Test func newFilesAre0644AndAnAtomicReplaceKeepsTheOldMode() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try await fs.writeText(dir("new.txt"), "a").get()
        #expect(plainMode(dir("new.txt")) == 0o644)
        try await fs.writeText(dir("given.txt"), "a", options: FSWriteOptions(mode: 0o600)).get()
        #expect(plainMode(dir("given.txt")) == 0o600)
        plainWrite(dir("script.sh"), "old", mode: 0o755)
        chmod(dir("script.sh"), 0o750)
        try await fs.writeText(dir("script.sh"), "new").get()
        #expect(plainMode(dir("script.sh")) == 0o750)
        #expect(plainRead(dir("script.sh")) == "new")
    }

    @Test func anAtomicWriteLeavesNoTemporaryFileAndReplacesTheInode() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("f"), "old")
        let before = try await fs.stat(dir("f")).get().inode
        try await fs.writeText(dir("f"), "new").get()
        #expect(try await fs.stat(dir("f")).get().inode != before)
        #expect(plainList(dir.path) == ["f"])
    }

    @Test func aFailedAtomicWriteLeavesTheTargetAndNoDebris() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try await fs.createDirectory(dir("sub")).get()
        // The target is a directory: refused before anything is written.
        let error = await fsError(fs.writeText(dir("sub"), "x"))
        #expect(error?.code == .isADirectory)
        // A missing parent directory: nothing can be created.
        let missing = await fsError(fs.writeText(dir("nope/f.txt"), "x"))
        #expect(missing?.code == .noSuchFileOrDirectory)
        #expect(missing?.description.contains(dir("nope/f.txt")) == true)
        #expect(plainList(dir.path) == ["sub"])
        #expect(plainList(dir("sub")).isEmpty)
    }

    @Test func exclusiveRefusesAnExistingFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("f"), "keep")
        for options in [FSWriteOptions(exclusive: true), FSWriteOptions(atomic: false, exclusive: true)] {
            let error = await fsError(fs.writeText(dir("f"), "lost", options: options))
            #expect(error?.code == .fileExists)
        }
        #expect(plainRead(dir("f")) == "keep")
    }

    @Test func inPlaceWritesTruncateAndAppendAppends() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("f"), "a long first version")
        let inode = try await fs.stat(dir("f")).get().inode
        try await fs.writeText(dir("f"), "short", options: .inPlace).get()
        #expect(plainRead(dir("f")) == "short")
        #expect(try await fs.stat(dir("f")).get().inode == inode)
        try await fs.appendFile(dir("f"), Array(" and more".utf8)).get()
        try await fs.appendFile(dir("log"), Array("line 1\n".utf8), durable: true).get()
        try await fs.appendFile(dir("log"), Array("line 2\n".utf8)).get()
        #expect(plainRead(dir("f")) == "short and more")
        #expect(plainRead(dir("log")) == "line 1\nline 2\n")
    }

    @Test func readsRespectTheSizeCap() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("f"), String(repeating: "x", count: 1000))
        #expect(try await fs.readFile(dir("f"), maxSize: 1000).get().count == 1000)
        let error = await fsError(fs.readFile(dir("f"), maxSize: 999))
        #expect(error?.code == .tooLarge)
        #expect(error?.description.contains("cap is 999") == true)
        // A file whose size stat cannot tell (a pipe-like /proc file) is capped while reading.
        let proc = await fsError(fs.readFile("/proc/self/maps", maxSize: 10))
        #expect(proc?.code == .tooLarge)
        #expect(try await fs.readFile("/proc/self/stat").get().isEmpty == false)
    }

    @Test func invalidUTF8IsAnErrorNotReplaced() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try await fs.writeFile(dir("bad"), [0x61, 0xff, 0x62]).get()
        let error = await fsError(fs.readText(dir("bad")))
        #expect(error?.code == .invalidUTF8)
    }

    @Test func errorPathsNameTheCauseAndThePath() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("file"), "x")
        let missing = await fsError(fs.readFile(dir("missing")))
        #expect(missing?.code == .noSuchFileOrDirectory)
        #expect(missing?.message == "no such file or directory opening \(dir("missing")) for reading")
        #expect(await fsError(fs.readFile(dir.path))?.code == .isADirectory)
        #expect(await fsError(fs.readFile(dir("file/inside")))?.code == .notADirectory)
        symlink(dir("loop"), dir("loop"))
        #expect(await fsError(fs.readFile(dir("loop")))?.code == .tooManySymbolicLinks)
    }

    @Test func namesWithUnicodeAndSpacesWork() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let name = dir("a file — ünïcødé 文件.txt")
        try await fs.writeText(name, "ok").get()
        #expect(try await fs.readText(name).get() == "ok")
        #expect(try await fs.listDirectory(dir.path).get().map(\.relativePath) == ["a file — ünïcødé 文件.txt"])
    }
}
