import Glibc
import PromiseFS
import Testing

/// Calls `body` with `path` as a C string: raw bytes, independent of the code under test.
private func raw(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Int32) -> Int32 {
    (path + [0]).withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}

private let badName: [UInt8] = [0xFF, 0xFE]

/// With raw C calls: `tree/\xFF\xFE/\xFF\xFE.txt`, `tree/\xFF\xFE/up` → `../\xFF\xFE`,
/// `tree/link` → `\xFF\xFE`.
private func makeTree(at tree: String) {
    let base = Array(tree.utf8)
    let sub = base + Array("/".utf8) + badName
    precondition(raw(base) { mkdir($0, 0o755) } == 0 && raw(sub) { mkdir($0, 0o750) } == 0)
    let fd = raw(sub + Array("/".utf8) + badName + Array(".txt".utf8)) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o640) }
    precondition(fd >= 0 && write(fd, "not UTF-8 names", 15) == 15)
    close(fd)
    precondition(raw(Array("../".utf8) + badName) { target in raw(sub + Array("/up".utf8)) { symlink(target, $0) } } == 0)
    precondition(raw(badName) { target in raw(base + Array("/link".utf8)) { symlink(target, $0) } } == 0)
}

/// A tree holding names that are not UTF-8 can be copied and removed through the `String`
/// forms too: the walk below the given path never decodes a name.
@Suite struct NonUTF8NamesThroughStringsTests {
    let fs = PromiseFileSystem()

    @Test func aTreeWithNamesThatAreNotUTF8IsCopiedAndRemovedThroughStringPaths() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        makeTree(at: dir("tree"))
        try await fs.copy(dir("tree"), to: dir("copy"), recursive: true).get()
        let copiedFile = Array(dir("copy/").utf8) + badName + Array("/".utf8) + badName + Array(".txt".utf8)
        var info = stat()
        #expect(raw(copiedFile) { lstat($0, &info) } == 0 && info.st_size == 15, "the copy has the file under its byte name")
        var target = [CChar](repeating: 0, count: 64)
        let length = raw(Array(dir("copy/link").utf8)) { Int32(readlink($0, &target, 64)) }
        #expect(target.prefix(Int(max(length, 0))).map { UInt8(bitPattern: $0) } == badName)
        try await fs.remove(dir("copy"), recursive: true).get()
        try await fs.remove(dir("tree"), recursive: true).get()
        #expect(plainList(dir.path).isEmpty)
    }
}

/// Names and link targets that are not UTF-8 (`FF FE`), made with raw C calls, through
/// every PromiseFS operation on ``FSPath``.
@Suite struct NonUTF8PathTests {
    let fs = PromiseFileSystem()
    let bad = FSPath(bytes: [0xFF, 0xFE])

    /// Sorted by bytes: `u` (0x75) before `FF`.
    private var expectedEntries: [FSDirectoryEntry] {
        [
            FSDirectoryEntry(path: "link", kind: .symbolicLink),
            FSDirectoryEntry(path: bad, kind: .directory),
            FSDirectoryEntry(path: bad.appending("up"), kind: .symbolicLink),
            FSDirectoryEntry(path: bad.appending(FSPath(bytes: bad.bytes + Array(".txt".utf8))), kind: .regular),
        ]
    }

    @Test func aTreeWithNamesAndLinkTargetsThatAreNotUTF8IsListedCopiedMovedAndRemoved() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        makeTree(at: dir("tree"))
        let tree = FSPath(dir("tree"))

        // Listed byte for byte; every listed path opens.
        let listed = try await fs.listDirectory(tree, recursive: true).get()
        #expect(listed == expectedEntries)
        #expect(listed.map(\.relativePath) == ["link", "\\xFF\\xFE", "\\xFF\\xFE/up", "\\xFF\\xFE/\\xFF\\xFE.txt"])
        for entry in listed {
            #expect(try await fs.lstat(tree.appending(entry.path)).get().kind == entry.kind)
        }
        let file = tree.appending(expectedEntries[3].path)
        #expect(try await fs.readText(file).get() == "not UTF-8 names")
        #expect(try await fs.readLink(tree.appending("link")).get() == bad)
        #expect(try await fs.readLink(dir("tree/link")).get() == "\\xFF\\xFE", "the String form shows the bytes")

        // Copied with the same names, link targets and modes.
        let copy = FSPath(dir("copy"))
        try await fs.copy(tree, to: copy, recursive: true).get()
        #expect(try await fs.listDirectory(copy, recursive: true).get() == expectedEntries)
        #expect(try await fs.readLink(copy.appending("link")).get() == bad)
        #expect(try await fs.readLink(copy.appending(expectedEntries[2].path)).get() == FSPath(bytes: Array("../".utf8) + bad.bytes))
        #expect(try await fs.readText(copy.appending(expectedEntries[3].path)).get() == "not UTF-8 names")
        #expect(try await fs.stat(copy.appending(bad)).get().permissions == 0o750)

        // Moved, here and to another file system (copy and remove), under a name that is not UTF-8.
        let moved = FSPath(dir.path).appending(FSPath(bytes: Array("moved-".utf8) + bad.bytes))
        try await fs.move(copy, to: moved).get()
        #expect(try await fs.listDirectory(moved, recursive: true).get() == expectedEntries)
        #expect(try await fs.exists(copy).get() == false)
        let shm = FSPath(bytes: Array("/dev/shm/promisefs-nonutf8-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-".utf8) + bad.bytes)
        defer { _ = system("rm -rf /dev/shm/promisefs-nonutf8-\(getpid())-*") }
        try await fs.move(moved, to: shm).get()
        #expect(try await fs.listDirectory(shm, recursive: true).get() == expectedEntries)
        #expect(try await fs.exists(moved).get() == false)

        // Removed, through both forms.
        try await fs.remove(shm, recursive: true).get()
        #expect(try await fs.exists(shm).get() == false)
        try await fs.remove(dir("tree"), recursive: true).get()
        #expect(plainList(dir.path).isEmpty)
    }

    @Test func everyOperationTakesABytePath() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let base = FSPath(dir.path)
        let sub = base.appending(bad)
        try await fs.createDirectory(sub.appending(bad), recursive: true).get()
        let file = sub.appending(FSPath(bytes: [0x66, 0xE9]))  // "f" + Latin-1 é
        try await fs.writeText(file, "atomic").get()
        try await fs.writeText(file, "in place", options: .inPlace).get()
        try await fs.appendFile(file, Array(" + more".utf8)).get()
        #expect(try await fs.readText(file).get() == "in place + more")
        try await fs.setPermissions(file, 0o600).get()
        #expect(try await fs.stat(file).get().permissions == 0o600)
        let handle = try await fs.open(file).get()
        #expect(try await handle.read(at: 0, count: 2).get() == Array("in".utf8))
        try await handle.close().get()
        try await fs.symlink(sub.appending("l"), to: file.lastComponent!).get()
        #expect(try await fs.readLink(sub.appending("l")).get() == FSPath(bytes: [0x66, 0xE9]))
        #expect(try await fs.readText(sub.appending("l")).get() == "in place + more")
        #expect(try await fs.listDirectory(sub).get().map(\.path) == [FSPath(bytes: [0x66, 0xE9]), "l", bad])
        try await fs.copy(file, to: base.appending(FSPath(bytes: [0xC3]))).get()
        #expect(try await fs.readText(base.appending(FSPath(bytes: [0xC3]))).get() == "in place + more")

        // An error names the path with its bytes shown.
        let missing = await fsError(fs.readFile(sub.appending("missing")))
        #expect(missing?.message == "no such file or directory opening \(dir.path)/\\xFF\\xFE/missing for reading")
        // A NUL byte is still refused before anything happens.
        let nul = await fsError(fs.writeFile(sub.appending(FSPath(bytes: [0x61, 0, 0x62])), [1]))
        #expect(nul?.code == .invalidArgument)
        #expect(nul?.description.contains("a\\0b") == true)
        #expect(await fsError(fs.copy(file, to: FSPath(bytes: [0x61, 0])))?.code == .invalidArgument)
    }

    @Test func fsPathKeepsBytesAndShowsThemReadably() {
        let path = FSPath(bytes: [0x61, 0xFF, 0xFE, 0x2F, 0xC3, 0xA9, 0xE2, 0x82])
        #expect(path.string == nil)
        #expect(path.description == "a\\xFF\\xFE/é\\xE2\\x82")
        #expect(path.lastComponent == FSPath(bytes: [0xC3, 0xA9, 0xE2, 0x82]))
        #expect(FSPath("dir/").appending("x") == "dir/x")
        #expect(FSPath("").appending("x") == "x")
        #expect(FSPath("a/b//").lastComponent == "b")
        #expect(FSPath("/").lastComponent == nil)
        #expect(FSPath("café").string == "café" && FSPath("café").bytes == Array("café".utf8))
        #expect("\(FSPath(bytes: [0x61, 0x00]))" == "a\\0")
    }
}
