import Glibc
import PromiseFS
import Testing

/// Paths that once slipped through: found by the `paths` fuzz target (Fuzz/), kept here as
/// plain tests so they run in every `make test` build, sanitizers included.
@Suite struct PathInputTests {
    let fs = PromiseFileSystem()

    private func fsError(_ promise: Promise<some Sendable>) async -> FSError? {
        do {
            _ = try await promise.get()
            return nil
        } catch {
            return error as? FSError
        }
    }

    @Test func aPathWithANULByteIsRefusedAndNothingIsCreated() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // The C calls would stop at the NUL and write "victim" instead.
        plainWrite(dir("victim"), "keep")
        let nul = dir("victim\u{0}.txt")
        let write = await fsError(fs.writeText(nul, "new"))
        #expect(write?.code == .invalidArgument)
        #expect(write?.description.contains("NUL byte") == true)
        #expect(write?.description.contains("victim\\0.txt") == true)
        #expect(await fsError(fs.writeText(nul, "new", options: .inPlace))?.code == .invalidArgument)
        #expect(await fsError(fs.appendFile(nul, Array("x".utf8)))?.code == .invalidArgument)
        #expect(await fsError(fs.readFile(nul))?.code == .invalidArgument)
        #expect(await fsError(fs.open(nul, options: .read))?.code == .invalidArgument)
        #expect(await fsError(fs.remove(nul))?.code == .invalidArgument)
        #expect(await fsError(fs.createDirectory(dir("d\u{0}/e"), recursive: true))?.code == .invalidArgument)
        #expect(await fsError(fs.setPermissions(nul, 0o600))?.code == .invalidArgument)
        // The second path of a two-path operation too.
        #expect(await fsError(fs.move(dir("victim"), to: dir("moved\u{0}x")))?.code == .invalidArgument)
        #expect(await fsError(fs.copy(dir("victim"), to: dir("copy\u{0}x")))?.code == .invalidArgument)
        #expect(await fsError(fs.symlink(dir("link"), to: "/etc/passwd\u{0}x"))?.code == .invalidArgument)
        #expect(plainRead(dir("victim")) == "keep")
        #expect(plainList(dir.path).sorted() == ["victim"])
    }

    @Test func aSlashBeforeACombiningMarkIsStillASeparator() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // "/\u{301}" is one Swift Character that is not "/", but the kernel splits there.
        let nested = dir("sub/\u{301}name/deeper")
        try await fs.createDirectory(nested, recursive: true).get()
        let file = dir("sub/\u{301}name") + "/\u{301}file"
        try await fs.writeText(file, "atomic").get()
        #expect(plainRead(file) == "atomic")
        #expect(plainList(dir("sub/\u{301}name")).sorted() == ["deeper", "\u{301}file"].sorted())
        try await fs.move(file, to: dir("sub") + "/\u{301}moved").get()
        #expect(plainRead(dir("sub") + "/\u{301}moved") == "atomic")
        #expect(plainList(dir("sub")).allSatisfy { !$0.contains(".tmp-") && !$0.contains(".move-") })
    }

    @Test func anAtomicWriteAndAMoveTakeEveryNameTheKernelTakes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // The temporary sibling `.NAME.tmp-` + 14 characters would be past NAME_MAX (255
        // bytes) for these names; it is shortened instead of failing the write.
        for name in [String(repeating: "x", count: 255), String(repeating: "x", count: 245), String(repeating: "é", count: 127) + "z"] {
            #expect(name.utf8.count <= 255)
            try await fs.writeText(dir(name), "atomic").get()
            #expect(plainRead(dir(name)) == "atomic")
            try await fs.writeText(dir(name), "again").get()
            #expect(plainRead(dir(name)) == "again")
            try await fs.move(dir(name), to: dir(String(name.dropLast()) + "m")).get()
            #expect(plainRead(dir(String(name.dropLast()) + "m")) == "again")
        }
        #expect(plainList(dir.path).allSatisfy { !$0.contains(".tmp-") && !$0.contains(".move-") })
        // One byte more is the kernel's refusal, reported as such.
        let tooLong = await fsError(fs.writeText(dir(String(repeating: "x", count: 256)), "no"))
        #expect(tooLong?.code == .nameTooLong)
        #expect(plainList(dir.path).count == 3)
    }
}
