import Glibc
import Testing

@testable import PromiseSystem

/// ``AtomicFileReplacement`` on real files in a fresh temporary directory per test.
@Suite struct AtomicFileReplacementTests {
    @Test func aNewFileGetsItsModeLessTheUmaskAndTheContents() throws {
        let dir = try Scratch()
        let target = dir.path("new.txt")
        let replacement = try AtomicFileReplacement(target: target, replacing: nil, tag: ".tmp-", newFileMode: 0o666)
        try dir.write(replacement.descriptor, "hello")
        try replacement.commit(durable: true)
        let mask = currentUmask()
        #expect(try dir.mode(target) == 0o666 & ~mask)
        #expect(try dir.contents(target) == "hello")
        #expect(try dir.names() == ["new.txt"])
    }

    @Test func aReplacedFileKeepsItsModeAndTheTemporaryFileIsPrivateMeanwhile() throws {
        let dir = try Scratch()
        let target = dir.path("secret.txt")
        try dir.create(target, "old", mode: 0o600)
        let existing = try #require(try AtomicFileReplacement.inspect(target))
        #expect(existing.isRegularFile && existing.permissions == 0o600)
        let replacement = try AtomicFileReplacement(target: target, replacing: existing, tag: ".tmp-", newFileMode: 0o644)
        #expect(try dir.mode(replacement.temporaryPath) == 0o600)
        try dir.write(replacement.descriptor, "new")
        #expect(try dir.contents(target) == "old", "the target changes only at the rename")
        try replacement.commit(durable: false)
        #expect(try dir.mode(target) == 0o600)
        #expect(try dir.contents(target) == "new")
        #expect(try dir.names() == ["secret.txt"])
    }

    @Test func aReplacedFileKeepsAModeWiderThanTheNewFileMode() throws {
        let dir = try Scratch()
        let target = dir.path("script.sh")
        try dir.create(target, "#!/bin/sh\n", mode: 0o750)
        let replacement = try AtomicFileReplacement(
            target: target, replacing: AtomicFileReplacement.inspect(target), tag: ".tmp-", newFileMode: 0o644)
        try replacement.commit(durable: true)
        #expect(try dir.mode(target) == 0o750)
    }

    @Test func discardLeavesTheTargetAndNoTemporaryFile() throws {
        let dir = try Scratch()
        let target = dir.path("kept.txt")
        try dir.create(target, "original", mode: 0o644)
        let replacement = try AtomicFileReplacement(
            target: target, replacing: AtomicFileReplacement.inspect(target), tag: ".tmp-", newFileMode: 0o644)
        try dir.write(replacement.descriptor, "half of the new")
        #expect(try dir.names().count == 2)
        replacement.discard()
        #expect(try dir.contents(target) == "original")
        #expect(try dir.names() == ["kept.txt"])
    }

    @Test func aReplacementReleasedWithoutCommitRemovesItsFile() throws {
        let dir = try Scratch()
        do {
            let replacement = try AtomicFileReplacement(target: dir.path("never.txt"), replacing: nil, tag: ".tmp-", newFileMode: 0o644)
            try dir.write(replacement.descriptor, "abandoned")
        }
        #expect(try dir.names() == [])
    }

    @Test func exclusiveRefusesATargetThatAppearedMeanwhile() throws {
        let dir = try Scratch()
        let target = dir.path("race.txt")
        let replacement = try AtomicFileReplacement(target: target, replacing: nil, tag: ".tmp-", newFileMode: 0o644)
        try dir.write(replacement.descriptor, "mine")
        try dir.create(target, "theirs", mode: 0o644)
        let failure = #expect(throws: AtomicFileReplacement.Failure.self) { try replacement.commit(durable: false, exclusive: true) }
        #expect(failure?.step == .link && failure?.code == EEXIST && failure?.call == "link")
        #expect(try dir.contents(target) == "theirs")
        #expect(try dir.names() == ["race.txt"])
    }

    @Test func exclusiveCreatesAMissingTargetAndLeavesNoSecondName() throws {
        let dir = try Scratch()
        let target = dir.path("fresh.txt")
        let replacement = try AtomicFileReplacement(target: target, replacing: nil, tag: ".tmp-", newFileMode: 0o644)
        try dir.write(replacement.descriptor, "first")
        try replacement.commit(durable: true, exclusive: true)
        #expect(try dir.contents(target) == "first")
        #expect(try dir.names() == ["fresh.txt"])
    }

    @Test func aSymbolicLinkIsReplacedItselfNotWhatItPointsTo() throws {
        let dir = try Scratch()
        let pointee = dir.path("pointee.txt")
        try dir.create(pointee, "untouched", mode: 0o600)
        let link = dir.path("link")
        #expect(symlink("pointee.txt", String(decoding: link, as: UTF8.self)) == 0)
        let existing = try #require(try AtomicFileReplacement.inspect(link))
        #expect(existing.isSymbolicLink && !existing.isRegularFile)
        let replacement = try AtomicFileReplacement(target: link, replacing: existing, tag: ".tmp-", newFileMode: 0o644)
        try dir.write(replacement.descriptor, "regular now")
        try replacement.commit(durable: false)
        #expect(try dir.contents(link) == "regular now")
        #expect(try dir.contents(pointee) == "untouched")
        #expect(try AtomicFileReplacement.inspect(link)?.isRegularFile == true)
    }

    @Test func aMissingDirectoryFailsAtCreateWithItsErrno() throws {
        let dir = try Scratch()
        let failure = #expect(throws: AtomicFileReplacement.Failure.self) {
            _ = try AtomicFileReplacement(target: dir.path("missing/file.txt"), replacing: nil, tag: ".tmp-", newFileMode: 0o644)
        }
        #expect(failure?.step == .create && failure?.code == ENOENT)
        #expect(try AtomicFileReplacement.inspect(dir.path("nothing")) == nil)
    }

    @Test func aRenameOverADirectoryFailsAndRemovesTheTemporaryFile() throws {
        let dir = try Scratch()
        let target = dir.path("folder")
        #expect(mkdir(String(decoding: target, as: UTF8.self), 0o755) == 0)
        let replacement = try AtomicFileReplacement(target: target, replacing: nil, tag: ".tmp-", newFileMode: 0o644)
        let failure = #expect(throws: AtomicFileReplacement.Failure.self) { try replacement.commit(durable: true) }
        #expect(failure?.step == .rename && failure?.code == EISDIR)
        #expect(try dir.names() == ["folder"])
    }

    @Test func theLongestNameStillGetsATemporarySibling() throws {
        let dir = try Scratch()
        // 253 bytes of two-byte characters and ASCII: the prefix must be cut, never inside a character.
        let name = String(repeating: "é", count: 120) + String(repeating: "x", count: 15)
        #expect(name.utf8.count == 255)
        let target = dir.path(name)
        let replacement = try AtomicFileReplacement(target: target, replacing: nil, tag: ".tmp-", newFileMode: 0o644)
        let temporaryName = AdapterPaths.split(replacement.temporaryPath).name
        #expect(temporaryName.count <= AdapterPaths.nameMax)
        #expect(String(validating: temporaryName, as: UTF8.self) != nil)
        try replacement.commit(durable: false)
        #expect(try dir.names() == [name])
    }
}

/// The `umask` of the process, read without changing it (`/proc/self/status`).
func currentUmask() -> UInt32 {
    guard let file = fopen("/proc/self/status", "r") else { return 0o022 }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, file) > 0 {
        let text = String(cString: line!)
        if text.hasPrefix("Umask:") {
            return UInt32(text.dropFirst(6).trimmingPrefix(while: { $0 == "\t" || $0 == " " }).prefix(while: \.isNumber), radix: 8) ?? 0o022
        }
    }
    return 0o022
}
