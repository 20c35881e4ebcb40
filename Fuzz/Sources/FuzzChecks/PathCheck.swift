import Foundation
internal import PromiseCore
@testable internal import PromiseFS

/// PromiseFS path handling, on real files.
///
/// - `FileWriter.split` (the directory an atomic write's temporary file goes to, and the name
///   it is built from), on any string: the name has no `/`, and directory and name join back
///   to the same path.
/// - Whole-file writes, directory creation, reads and moves under a scratch directory, with
///   paths built from awkward components: long names up to and past `NAME_MAX`, spaces,
///   leading dashes and dots, non-ASCII, NUL bytes, repeated and trailing slashes. Never `..`
///   and never absolute, so nothing outside the scratch directory is touched.
///   - A path with a NUL byte must be refused, and nothing may be created: the C calls would
///     otherwise act on the part before the NUL, a different file.
///   - A write that succeeds reads back exactly, and leaves no temporary file behind; one that
///     fails leaves nothing behind either.
///   - An atomic write (or a move) may only fail where the plain system call on the same path
///     fails too: the temporary name it needs is its own business, not a reason to refuse a
///     path the kernel accepts.
enum PathCheck {
    static func run(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(data)
        let mode = input.byte()
        if mode & 1 == 0 {
            try checkSplit(String(decoding: UnsafeRawBufferPointer(rebasing: data.dropFirst()), as: UTF8.self))
            return
        }
        try checkFiles(&input, createParent: mode & 2 != 0)
    }

    // MARK: split

    private static func checkSplit(_ path: String) throws(FuzzFailure) {
        let (directory, name) = FileWriter.split(path)
        try require(!name.utf8.contains(UInt8(ascii: "/")), "split(\(printable(path))) gave the name \(printable(name))")
        try require(!directory.isEmpty, "split(\(printable(path))) gave an empty directory")
        // A path without a slash (trailing ones aside) is a name in the current directory.
        let bare = !collapsed(path).utf8.contains(UInt8(ascii: "/"))
        let joined = bare ? name : directory == "/" ? "/" + name : directory + "/" + name
        if bare { try require(directory == ".", "split(\(printable(path))) gave the directory \(printable(directory)) for a bare name") }
        try require(
            collapsed(joined) == collapsed(path),
            "split(\(printable(path))) gave \(printable(directory)) and \(printable(name)), which join to \(printable(joined))")
    }

    /// `path` with runs of `/` collapsed and trailing ones dropped (`/` stays `/`). On bytes:
    /// a `/` followed by a combining mark is a separator to the kernel, though Swift sees one
    /// `Character` that is not `"/"`.
    private static func collapsed(_ path: String) -> String {
        let slash = UInt8(ascii: "/")
        let parts = Array(path.utf8).split(separator: slash, omittingEmptySubsequences: true)
        let body = parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
        return path.utf8.first == slash ? "/" + body : body
    }

    // MARK: Real files

    private static let fs = PromiseFileSystem()
    /// A new scratch directory for one input. Replay tests check inputs in parallel, so no two
    /// inputs may share one: each would see, or empty, the other's files.
    private static func makeScratch() throws(FuzzFailure) -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/promise-fuzz-paths-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        try require(made, "mkdtemp for the scratch directory failed: errno \(errno)")
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let components = [
        "a", "b", "file.txt", ".hidden", "-dash", "with space", "é", "日本", ".", "", "a.tmp-x",
    ]

    private static func component(_ input: inout FuzzInput) -> String {
        // New cases go at the end: the committed inputs in Regressions/ and Corpus/ pick by number.
        let pick = input.int(below: components.count + 5)
        switch pick {
        case components.count: return String(repeating: "x", count: 200 + input.int(below: 80))  // around NAME_MAX (255)
        case components.count + 1: return "n\u{0}ul"
        case components.count + 2: return String(repeating: "é", count: 100 + input.int(below: 40))  // 2 bytes each
        case components.count + 4: return "\u{301}accent-first"  // a combining mark right after the `/` before it
        case components.count + 3:
            let text = input.string(maxCount: 12)
            // Never `..` (out of the scratch directory), never a name the leftover check reads
            // as a temporary file.
            let name = String(decoding: text.utf8.filter { $0 != UInt8(ascii: "/") }, as: UTF8.self)
            if name.utf8.elementsEqual("..".utf8) || containsBytes(name, ".tmp-") || containsBytes(name, ".move-") { return "y" }
            return name
        default: return components[pick]
        }
    }

    private static func relativePath(_ input: inout FuzzInput) -> String {
        let depth = 1 + input.int(below: 3)
        var path = (0..<depth).map { _ in component(&input) }.joined(separator: input.byte() & 1 == 0 ? "/" : "//")
        if input.byte() & 7 == 0 { path += "/" }
        return path
    }

    private static func checkFiles(_ input: inout FuzzInput, createParent: Bool) throws(FuzzFailure) {
        let scratch = try makeScratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let relative = relativePath(&input)
        let path = scratch + "/" + relative
        let contents = input.bytes(maxCount: 64)
        let hasNUL = relative.utf8.contains(0)
        // The parent, found here on bytes rather than with the code under test, so a wrong
        // split in the library cannot hide itself.
        let directory = String(
            decoding: Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).dropLast()
                .map { "/" + String(decoding: $0, as: UTF8.self) }.joined().utf8, as: UTF8.self)

        if createParent {
            let made = settled(fs.createDirectory(directory, recursive: true))
            if directory.utf8.contains(0) {
                try require(made.error != nil, "createDirectory(\(printable(directory)), recursive: true) accepted a path with NUL")
            } else if made.error == nil {
                try require(isDirectory(directory), "createDirectory(\(printable(directory))) succeeded but it is not a directory")
            }
        }

        let before = tree(scratch)
        let written = settled(fs.writeFile(path, contents, options: FSWriteOptions(atomic: true, durable: false)))
        if hasNUL {
            try require(written.error != nil, "writeFile(\(printable(path))) accepted a path with NUL")
            try require(tree(scratch) == before, "a refused path with NUL still created \(Set(tree(scratch)).subtracting(before).sorted())")
            return
        }
        if let error = written.error {
            try require(!"\(error)".isEmpty, "writeFile(\(printable(path))) failed with an empty message")
            try require(leftovers(directory).isEmpty, "failed writeFile(\(printable(path))) left \(leftovers(directory))")
            // The plain system call on the same path: if it can create the file, so must the atomic write.
            let plain = settled(fs.writeFile(path, contents, options: .inPlace))
            try require(plain.error != nil, "writeFile(\(printable(path))) failed atomically (\(error)) where an in-place write succeeds")
            return
        }
        let read = settled(fs.readFile(path))
        try require(
            read.value == contents,
            "writeFile(\(printable(path))) then readFile gave \(read.value.map { "\($0.count) bytes" } ?? "\(read.error!)"), expected \(contents.count) bytes")
        try require(leftovers(directory).isEmpty, "writeFile(\(printable(path))) left \(leftovers(directory))")

        // Move it to a second awkward name in the same directory.
        let destination = directory + "/" + component(&input)
        let moved = settled(fs.move(path, to: destination))
        if destination.utf8.contains(0) {
            try require(moved.error != nil, "move to \(printable(destination)) accepted a path with NUL")
            try require(settled(fs.readFile(path)).value == contents, "a refused move to \(printable(destination)) lost \(printable(path))")
        } else if let error = moved.error {
            let plain = rename(path, destination) == 0
            try require(!plain, "move(\(printable(path)), to: \(printable(destination))) failed (\(error)) where rename(2) succeeds")
        } else {
            try require(settled(fs.readFile(destination)).value == contents, "move to \(printable(destination)) did not keep the contents")
        }
        try require(leftovers(directory).isEmpty, "move to \(printable(destination)) left \(leftovers(directory))")
    }

    // MARK: Helpers

    /// Temporary or staging files an operation left in `directory`.
    private static func leftovers(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            containsBytes($0, ".tmp-") && $0 != "a.tmp-x" || containsBytes($0, ".move-")
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private static func tree(_ scratch: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: scratch)) ?? []).sorted()
    }
}
