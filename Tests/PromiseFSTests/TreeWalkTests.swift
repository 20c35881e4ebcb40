import Glibc
import PromiseFS
import Testing

/// Recursive operations against hostile trees: a copy into itself, a directory swapped for
/// a symbolic link mid-walk, trees deeper than the descriptor limit.
@Suite struct TreeWalkTests {
    let fs = PromiseFileSystem()

    /// A destination inside the source, reached by any route, is refused before anything is
    /// created; a destination beside it, or inside it but not inside the copied directory,
    /// is fine.
    @Test func aCopyIntoItselfIsRefusedByEveryRouteAndCreatesNothing() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        mkdir(dir("a"), 0o755)
        plainWrite(dir("a/f"), "f")
        mkdir(dir("a/sub"), 0o755)
        symlink(dir("a"), dir("route"))
        symlink(dir("a/sub"), dir("a/sub-link"))
        for target in ["a/inside", "a/../a/x", "route/x", "a/sub/deeper", "route/sub/y", "a/sub-link/z", "a/"] {
            let error = await fsError(fs.copy(dir("a"), to: dir(target), recursive: true))
            #expect(error?.code == (target == "a/" ? .fileExists : .invalidArgument), "\(target)")
            if target != "a/" {
                #expect(error?.description.contains("\(dir("a")) to \(dir(target))") == true, "\(String(describing: error))")
            }
        }
        #expect(plainList(dir("a")) == ["f", "sub", "sub-link"])
        #expect(plainList(dir("a/sub")).isEmpty)

        try await fs.copy(dir("a"), to: dir("b"), recursive: true).get()
        #expect(plainList(dir("b")) == ["f", "sub", "sub-link"])
        try await fs.copy(dir("a/sub"), to: dir("a/sub2"), recursive: true).get()
        #expect(plainList(dir("a")) == ["f", "sub", "sub-link", "sub2"])
    }

    /// A helper process swaps `tree/sub` for a symbolic link to a directory outside the tree
    /// that holds a marker file (and files with the names the tree has), in a tight loop, while 50 copies run. The walk opens every
    /// directory relative to its parent with `O_NOFOLLOW`: no copy may hold the marker; each
    /// succeeds with the tree's own content (`sub` as a directory of its files, or as a
    /// link) or fails and leaves nothing.
    @Test func aDirectorySwappedForALinkMidCopyIsNeverFollowed() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        mkdir(dir("outside"), 0o755)
        // Names the tree has too, so a copy that goes by path can be led outside at any file.
        plainWrite(dir("outside/MARKER"), "outside the tree")
        for index in 0..<8 { plainWrite(dir("outside/f\(index)"), "outside the tree") }
        mkdir(dir("tree"), 0o755)
        plainWrite(dir("tree/top"), "top")
        mkdir(dir("tree/sub"), 0o755)
        for index in 0..<8 { plainWrite(dir("tree/sub/f\(index)"), "own \(index)") }
        let ownNames = (0..<8).map { "f\($0)" }
        let helper = try Helper(["swap", dir("tree/sub"), dir("parked"), dir("outside")], outputPath: dir("helper-out"))
        defer {
            kill(helper.pid, SIGKILL)
        }
        for _ in 0..<10_000 where !helper.output.hasPrefix("ready") { try await Task.sleep(for: .milliseconds(1)) }
        try #require(helper.output.hasPrefix("ready"), "the swapping helper did not start: \(helper.output)")

        var succeeded = 0, failed = 0, missing = 0
        for attempt in 0..<50 {
            let copy = dir("copy-\(attempt)")
            do {
                try await fs.copy(dir("tree"), to: copy, recursive: true).get()
                succeeded += 1
                // `sub` is missing when the listing came while it was parked.
                let names = plainList(copy)
                #expect(names == ["sub", "top"] || names == ["top"], "attempt \(attempt): \(names)")
                var info = stat()
                if lstat("\(copy)/sub", &info) != 0 {
                    missing += 1
                } else if info.st_mode & S_IFMT == S_IFLNK {
                    #expect(try await fs.readLink("\(copy)/sub").get() == dir("outside"))
                } else {
                    #expect(plainList("\(copy)/sub") == ownNames, "attempt \(attempt): \(plainList("\(copy)/sub"))")
                    for index in 0..<8 {
                        #expect(plainRead("\(copy)/sub/f\(index)") == "own \(index)", "attempt \(attempt): read outside the tree")
                    }
                }
            } catch let error as FSError {
                failed += 1
                #expect(access(copy, F_OK) != 0, "attempt \(attempt) failed (\(error)) but left \(copy)")
            }
        }
        kill(helper.pid, SIGKILL)
        _ = try await helper.wait()
        #expect(!helper.output.contains("failed"), "the swapping helper must keep swapping: \(helper.output)")
        let marker = try await fs.listDirectory(dir.path, recursive: true).get().filter { $0.relativePath.hasSuffix("MARKER") }
        #expect(marker.map(\.relativePath) == ["outside/MARKER"], "copies read a file from outside the tree")
        #expect(succeeded + failed == 50)
        print("swapped-directory copies: \(succeeded) succeeded (\(missing) without sub), \(failed) failed cleanly")
    }

    /// A tree 1 100 directories deep, with 56 descriptors free (far below one descriptor per
    /// level), in a helper process: listing, copying and removing it succeed, and a copy
    /// that fails at the bottom (a FIFO) leaves nothing.
    @Test func aTreeDeeperThanTheDescriptorLimitIsListedCopiedAndRemoved() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        mkdir(dir("work"), 0o755)
        let helper = try Helper(["deep", dir("work"), "1100"], outputPath: dir("out"))
        #expect(try await helper.wait() == 0, "the helper must run to the end: \(helper.output)")
        let lines = helper.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("list 1101"), "\(lines)")
        #expect(lines.contains("copy ok"), "\(lines)")
        #expect(lines.contains("copied-bottom deep bottom"), "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("failed-copy invalidArgument") && $0.hasSuffix("/fifo (a fifo, which only regular files, links and directories can be)")
            }, "\(lines)")
        #expect(lines.contains("left copy2 absent"), "\(lines)")
        #expect(lines.contains("remove ok"), "\(lines)")
        #expect(lines.last == "dir ", "\(lines)")
    }
}
