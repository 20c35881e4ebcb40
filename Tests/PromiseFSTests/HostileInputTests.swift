import Dispatch
import Glibc
import PromiseFS
import PromiseTestSupport
import Testing

/// Whether `path` (not followed) is of the file type `type` (`S_IFIFO`, `S_IFCHR`, …), by libc.
func plainIsKind(_ path: String, _ type: mode_t) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == type
}

/// Waits up to `timeout` for every promise to settle; how many are still pending.
func stillPending(_ promises: [Promise<[UInt8]>], after timeout: Duration) async throws -> Int {
    _ = try await eventually(timeout) { promises.allSatisfy { !$0.isPending } }
    return promises.filter(\.isPending).count
}

/// Frees pool threads that an `open(2)` of the FIFO at `path` holds while it waits for the
/// other end, so that a failing test ends instead of hanging: holds a read end open (and
/// drains it) while opening and closing write ends, until no promise is pending (at most 30 s).
///
/// Every FIFO end a test opens is close-on-exec: a child another test spawns meanwhile would
/// otherwise keep it open for its whole life, and a later open of the FIFO, which must find
/// no reader, would find one (CI saw that write open succeed).
func releaseFIFOWaiters(of path: String, _ promises: [Promise<[UInt8]>]) async throws {
    let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    defer { if reader >= 0 { close(reader) } }
    var sink = [UInt8](repeating: 0, count: 4096)
    _ = try await eventually(.seconds(30)) {
        let writer = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if writer >= 0 { close(writer) }
        if reader >= 0 { _ = read(reader, &sink, sink.count) }
        return promises.allSatisfy { !$0.isPending }
    }
}

/// Opens the FIFO at `path` for writing (waiting for a reader), writes `bytes` and closes it,
/// with plain libc.
func plainWriteFIFO(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        if written <= 0 { break }
        offset += written
    }
    close(fd)
}

/// Runs `body` on a Dispatch thread, outside Swift's cooperative pool, where it may block.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group, execute: body)
    return group
}

extension DispatchGroup {
    /// Waits, without blocking a cooperative thread, until the group's work is done.
    func finished() async {
        await withCheckedContinuation { done in notify(queue: .global()) { done.resume() } }
    }
}

@Suite struct HostileInputTests {
    let fs = PromiseFileSystem()

    @Test func hugeAndNegativeSizesAreCheckedAndBuffersGrowWithTheData() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("f"), "hello")
        #expect(try await fs.readFile(dir("f"), maxSize: .max).get() == Array("hello".utf8))
        #expect(try await fs.readText(dir("f"), maxSize: .max).get() == "hello")
        let negative = await fsError(fs.readFile(dir("f"), maxSize: -1))
        #expect(negative?.code == .invalidArgument)
        #expect(negative?.description.contains("the cap must be 0 or more") == true, "\(String(describing: negative))")

        let file = try await fs.open(dir("f")).get()
        #expect(try await file.read(count: .max).get() == Array("hello".utf8))
        try await file.seek(to: 0).get()
        #expect(try await file.read(count: 1 << 40).get() == Array("hello".utf8))
        #expect(try await file.read(at: 1, count: .max).get() == Array("ello".utf8))
        #expect(await fsError(file.read(count: -1))?.code == .invalidArgument)
        #expect(await fsError(file.read(at: 0, count: -5))?.code == .invalidArgument)
        try await file.close().get()

        // Past one chunk (1 MiB): the buffer grows over several reads and the bytes stay in order.
        let bytes: [UInt8] = (0..<(3 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
        try await fs.writeFile(dir("big"), bytes).get()
        let big = try await fs.open(dir("big")).get()
        #expect(try await big.read(count: 1 << 40).get() == bytes)
        #expect(try await big.read(at: 1_000_003, count: .max).get() == Array(bytes[1_000_003...]))
        #expect(try await big.read(at: 5, count: (2 << 20) + 1).get() == Array(bytes[5..<(2 << 20) + 6]))
        try await big.close().get()
    }

    /// A whole-file read of a character device reads to its end of file within the cap, as
    /// `cat` does: `/dev/null` gives no bytes, `/dev/zero` passes any cap.
    @Test func wholeFileReadsOfCharacterDevicesReadToTheirEndWithinTheCap() async throws {
        #expect(try await fs.readFile("/dev/null").get() == [])
        #expect(try await fs.readText("/dev/null").get() == "")
        #expect(try await fs.readFile("/dev/null", maxSize: 0).get() == [])
        for cap in [0, 16, 100_000] {
            let error = await fsError(fs.readFile("/dev/zero", maxSize: cap))
            #expect(error?.code == .tooLarge, "cap \(cap)")
            #expect(
                error?.message == "file larger than the size cap reading /dev/zero "
                    + "(a character device, read to its end; the cap is \(cap) bytes)")
        }
        let directory = await fsError(fs.readFile("/dev"))
        #expect(directory?.code == .isADirectory)
    }

    /// A FIFO is read until its writer closes it, whether the writer comes before or after
    /// the read starts, and bytes past the cap reject with `tooLarge`.
    @Test func wholeFileReadsOfAFIFOReadWhatItsWriterWrites() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let pipe = dir("pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        let payload: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

        // The read starts first and waits for a writer, which comes 200 ms later.
        let read = fs.readFile(pipe)
        try await Task.sleep(for: .milliseconds(200))
        #expect(read.isPending, "no writer yet: the read waits for one")
        let writer = onAnotherThread { plainWriteFIFO(pipe, payload) }
        #expect(try await read.get() == payload)
        await writer.finished()

        // A writer already blocked in open(2) when the read starts; its bytes pass the cap.
        // (They fit the pipe's buffer, so the writer finishes before the read closes its end.)
        let early = onAnotherThread { plainWriteFIFO(pipe, Array(payload[..<5_000])) }
        try await Task.sleep(for: .milliseconds(100))
        let capped = await fsError(fs.readFile(pipe, maxSize: 1_000))
        #expect(capped?.code == .tooLarge)
        #expect(capped?.message.contains("a FIFO (named pipe), read to its end; the cap is 1000 bytes") == true)
        await early.finished()
    }

    /// A whole-file read of a FIFO that no process writes waits, and cancelling it frees the
    /// pool thread: on a pool of one thread, a read queued behind it completes.
    @Test func aWholeFileReadOfAnUnwrittenFIFOIsCancellableAndFreesThePool() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let pipe = dir("pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        plainWrite(dir("regular"), "still works")
        let pool = try FileIOPool(threads: 1)
        defer { _ = pool.shutdown() }
        let fs = PromiseFileSystem(pool: pool)

        let waiting = fs.readFile(pipe)
        try await Task.sleep(for: .milliseconds(300))
        #expect(waiting.isPending, "no writer: the read waits for one")
        let behind = fs.readText(dir("regular"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(behind.isPending, "the only thread is busy with the FIFO")
        waiting.cancel()
        let done = try await eventually(.seconds(5)) { !behind.isPending }
        if !done { try await releaseFIFOWaiters(of: pipe, [waiting]) }
        #expect(done, "the read queued behind a cancelled FIFO read did not run within 5 s")
        #expect(try await behind.get() == "still works")
        #expect(!waiting.isPending)
        #expect(plainIsKind(pipe, S_IFIFO))
    }

    /// `open` of a FIFO never waits for the other end: for reading it opens at once (reads
    /// give end of file until a writer comes), for writing with no reader it rejects at once
    /// with `ENXIO`. An in-place write is an open for writing too.
    @Test func openingAFIFONeverWaitsForTheOtherEnd() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let pipe = dir("pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        let pool = try FileIOPool(threads: 2)
        defer { _ = pool.shutdown() }
        let fs = PromiseFileSystem(pool: pool)

        // One at a time: while one of them has the FIFO open for reading, a write end opens.
        let forWriting = fs.open(pipe, options: .write).then(on: .inline) { file in file.close().then(on: .inline) { [UInt8]() } }
        #expect(try await stillPending([forWriting], after: .seconds(5)) == 0, "open for writing still pending after 5 s")
        try await releaseFIFOWaiters(of: pipe, [forWriting])
        let inPlace = fs.writeText(pipe, "x", options: .inPlace).then(on: .inline) { [UInt8]() }
        #expect(try await stillPending([inPlace], after: .seconds(5)) == 0, "in-place write still pending after 5 s")
        try await releaseFIFOWaiters(of: pipe, [inPlace])
        for promise in [forWriting, inPlace] {
            let error = await fsError(promise)
            #expect(error?.code == .noSuchDeviceOrAddress)
            #expect(
                error?.message == "no such device or address opening \(pipe) for writing "
                    + "(a FIFO that no process has open for reading; opening does not wait for a reader)")
        }
        let opened = fs.open(pipe).then(on: .inline) { file in
            file.read(count: 10).then(on: .inline) { bytes in file.close().then(on: .inline) { bytes } }
        }
        #expect(try await stillPending([opened], after: .seconds(5)) == 0, "open for reading still pending after 5 s")
        try await releaseFIFOWaiters(of: pipe, [opened])
        #expect(try await opened.get().isEmpty, "no writer yet: end of file")

        // With a reader, the write end opens and the descriptor blocks as usual.
        let reader = open(pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        try await fs.writeText(pipe, "through the pipe", options: .inPlace).get()
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "through the pipe")
    }

    /// Opens are non-blocking, yet a file another process holds a lease on (as Samba and NFS
    /// servers do) is still opened once the lease is given up, as a blocking open does, not
    /// refused with `EWOULDBLOCK`.
    @Test func anOpenWaitsForALeaseToBeGivenUp() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("leased"), "before")
        let helper = try Helper(["lease", dir("leased")], outputPath: dir("out"))
        #expect(try await helper.wait() == 0, "\(helper.output)")
        #expect(helper.output == "written after the lease\n")
    }

    /// A whole-file read and a copy of a file another process holds a write lease on wait for
    /// the lease to be given up and read what the holder left, as a blocking open does.
    @Test func aReadAndACopyWaitForAWriteLeaseToBeGivenUp() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("leased"), "before")
        let helper = try Helper(["write-lease", dir("leased")], outputPath: dir("out"))
        #expect(try await helper.wait() == 0, "\(helper.output)")
        #expect(helper.output == "read: changed under the lease; copied: changed under the lease\n")
    }

    /// An atomic write renames a regular file into place: over a FIFO or a device it would
    /// replace it (as root, `/dev/null` itself). It refuses; a symbolic link is replaced, not
    /// followed, so what it points to is untouched.
    @Test func anAtomicWriteRefusesToReplaceAFIFOOrADevice() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let pipe = dir("pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        let error = await fsError(fs.writeText(pipe, "replaced?"))
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message == "invalid argument writing \(pipe) (a FIFO (named pipe), not a regular file: "
                + "an atomic write would replace it with one; pass FSWriteOptions.inPlace to write into it)")
        #expect(plainIsKind(pipe, S_IFIFO), "the FIFO must still be a FIFO")
        #expect(plainList(dir.path) == ["pipe"], "no temporary file may be left")

        symlink(pipe, dir("link"))
        try await fs.writeText(dir("link"), "a file now").get()
        #expect(plainIsKind(dir("link"), S_IFREG) && plainRead(dir("link")) == "a file now")
        #expect(plainIsKind(pipe, S_IFIFO))

        // A device node like /dev/null (character device 1:3), where mknod is allowed (root).
        guard getuid() == 0, mknod(dir("null"), S_IFCHR | 0o666, dev_t(0x103)) == 0 else {
            print("anAtomicWriteRefusesToReplaceAFIFOOrADevice: the device case needs root and mknod; skipped")
            return
        }
        #expect(await fsError(fs.writeText(dir("null"), "replaced?"))?.code == .invalidArgument)
        #expect(plainIsKind(dir("null"), S_IFCHR), "the device must still be a device")
    }

    /// Bytes without contiguous storage (a lazy `repeatElement`) go out a slice at a time, in
    /// order, across the slice boundaries, by every writing call.
    @Test func aCollectionWithoutContiguousStorageIsWrittenWhole() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let count = 3 * (1 << 20) + 5
        let lazy = BytePattern(count: count)
        let expected = Array(lazy)
        #expect(lazy.withContiguousStorageIfAvailable { _ in true } == nil, "test setup: the bytes must not be contiguous")
        for options in [FSWriteOptions.atomic, .inPlace] {
            try await fs.writeFile(dir("written"), lazy, options: options).get()
            #expect(try await fs.readFile(dir("written")).get() == expected)
        }
        try await fs.appendFile(dir("written"), repeatElement(UInt8(9), count: 3)).get()
        #expect(try await fs.readFile(dir("written")).get() == expected + [9, 9, 9])
        let file = try await fs.open(dir("written"), options: .readWrite).get()
        try await file.write(repeatElement(UInt8(1), count: (1 << 20) + 1), at: 10).get()
        try await file.close().get()
        var patched = expected + [9, 9, 9]
        patched.replaceSubrange(10..<(10 + (1 << 20) + 1), with: repeatElement(1, count: (1 << 20) + 1))
        #expect(try await fs.readFile(dir("written")).get() == patched)
    }

    /// An empty path makes no directory, recursive or not: it fails with `ENOENT`, as
    /// `mkdir("")` and `mkdir -p ''` do.
    @Test func anEmptyPathMakesNoDirectory() async throws {
        for recursive in [true, false] {
            let error = await fsError(fs.createDirectory("", recursive: recursive))
            #expect(error?.code.errno == ENOENT, "recursive: \(recursive): \(String(describing: error))")
        }
    }

    /// Where one component of the path exists and is not a directory, a recursive
    /// `createDirectory` fails with the `errno` that `mkdir(2)` of the same path gives; a name
    /// ending in `/` that a write cannot create fails as `open(2)` with `O_CREAT` does.
    @Test func errorsMatchTheSystemCallsOnTheSamePath() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("file"), "x")
        symlink(dir("nowhere"), dir("dangling"))
        symlink("file", dir("file-link"))
        let before = plainList(dir.path)

        for name in ["file", "file/sub", "file/sub/deeper", "dangling", "dangling/sub", "file-link", "file-link/sub"] {
            let expected = mkdir(dir(name), 0o755) == 0 ? 0 : errno
            #expect(expected != 0, "test setup: mkdir \(name) succeeded")
            for recursive in [true, false] {
                let error = await fsError(fs.createDirectory(dir(name), recursive: recursive))
                #expect(
                    error?.code.errno == expected, "createDirectory(\(name), recursive: \(recursive)): \(String(describing: error)), mkdir gives \(expected)"
                )
                #expect(error?.description.contains(dir(name)) == true)
            }
        }
        for name in ["new/", "file/", "dangling/", "missing/new/", "file/new/"] {
            let fd = open(dir(name), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let expected = fd >= 0 ? 0 : errno
            if fd >= 0 { close(fd) }
            #expect(expected != 0, "test setup: open \(name) succeeded")
            for options in [FSWriteOptions.atomic, .inPlace] {
                let error = await fsError(fs.writeText(dir(name), "x", options: options))
                #expect(error?.code.errno == expected, "writeText(\(name), atomic: \(options.atomic)): \(String(describing: error)), open gives \(expected)")
            }
        }
        #expect(plainList(dir.path) == before, "nothing may be created")
        #expect(plainRead(dir("file")) == "x")
    }

    /// `umask` is process-wide, so the helper process sets it: every operation that creates a
    /// file or a directory applies it, atomic writes included; an atomic rewrite keeps the
    /// mode of the file it replaces.
    @Test func newFilesHonourTheUmaskAndARewriteKeepsTheMode() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let work = dir("work")
        mkdir(work, 0o755)
        plainWrite("\(work)/kept", "a", mode: 0o644)
        chmod("\(work)/kept", 0o644)
        let helper = try Helper(["umask", work], outputPath: dir("out"))
        #expect(try await helper.wait() == 0, "\(helper.output)")
        #expect(
            helper.output == """
                atomic 600
                atomic-0644 600
                in-place 600
                append 600
                open 600
                directory 700
                kept 644

                """)
    }

    /// An atomic rewrite by root keeps the replaced file's owner and group (and its mode,
    /// set-group-ID bit included); a writer that may not give the file away keeps it, as
    /// `cp -p` does, and the write succeeds.
    @Test(.enabled(if: getuid() == 0, "needs root: chown to another user"))
    func anAtomicRewriteKeepsTheOwnerWherePrivileged() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        chmod(dir.path, 0o777)
        plainWrite(dir("theirs"), "old")
        #expect(chown(dir("theirs"), 65534, 65534) == 0)
        #expect(chmod(dir("theirs"), 0o2640) == 0)
        try await fs.writeText(dir("theirs"), "new").get()
        let info = try await fs.stat(dir("theirs")).get()
        #expect(info.ownerID == 65534 && info.groupID == 65534, "owner \(info.ownerID):\(info.groupID)")
        #expect(info.permissions == 0o2640, "mode \(info.permissions)")
        #expect(plainRead(dir("theirs")) == "new")

        // Not privileged: uid 65534 rewrites root's file in a directory anyone may write.
        plainWrite(dir("roots"), "old", mode: 0o666)
        chmod(dir("roots"), 0o666)
        let helper = try Helper(["nobody-write", dir("roots")], outputPath: dir("out"))
        #expect(try await helper.wait() == 0)
        #expect(helper.output == "written\n")
        let after = try await fs.stat(dir("roots")).get()
        #expect(after.ownerID == 65534 && after.permissions == 0o666)
        #expect(plainRead(dir("roots")) == "written by nobody")
    }

    /// A move across file systems copies; the copies keep the access and modification times
    /// (to the nanosecond) of files, directories and symbolic links, as `rename` and `mv` do.
    @Test func aCrossDeviceMoveKeepsAccessAndModificationTimes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let shm = "/dev/shm/promisefs-times-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(shm, 0o755)
        defer { _ = system("rm -rf '\(shm)'") }
        let shmDevice = try await fs.stat(shm).get().device
        if try await fs.stat(dir.path).get().device == shmDevice {
            Issue.record("/dev/shm and /tmp are one file system here: the cross-device path was not exercised")
        }
        mkdir(dir("tree"), 0o755)
        mkdir(dir("tree/sub"), 0o750)
        plainWrite(dir("tree/sub/f"), "f")
        plainWrite(dir("tree/g"), "g")
        symlink("g", dir("tree/link"))
        plainWrite(dir("single"), "single")
        // Deepest first, so that setting an entry's times does not change its directory's.
        let names = ["tree/sub/f", "tree/sub", "tree/g", "tree/link", "tree", "single"]
        func times(_ index: Int) -> [timespec] {
            [
                timespec(tv_sec: 1_000_000_000 + index * 1000, tv_nsec: 123_456_789),
                timespec(tv_sec: 900_000_000 + index * 1000, tv_nsec: 987_654_321),
            ]
        }
        for (index, name) in names.enumerated() {
            #expect(utimensat(AT_FDCWD, dir(name), times(index), AT_SYMLINK_NOFOLLOW) == 0)
        }
        try await fs.move(dir("tree"), to: "\(shm)/tree").get()
        try await fs.move(dir("single"), to: "\(shm)/single").get()
        #expect(plainList(dir.path).isEmpty)
        for (index, name) in names.enumerated() {
            let info = try await fs.lstat("\(shm)/\(name)").get()
            let expected = times(index)
            #expect(info.accessTime == FSFileTime(seconds: Int64(expected[0].tv_sec), nanoseconds: Int64(expected[0].tv_nsec)), "\(name)")
            #expect(info.modificationTime == FSFileTime(seconds: Int64(expected[1].tv_sec), nanoseconds: Int64(expected[1].tv_nsec)), "\(name)")
        }
        #expect(plainMode("\(shm)/tree/sub") == 0o750)
    }
}

/// Byte `i` is `i % 251`, computed, with no contiguous storage.
private struct BytePattern: RandomAccessCollection, Sendable {
    let count: Int
    var startIndex: Int { 0 }
    var endIndex: Int { count }
    subscript(position: Int) -> UInt8 { UInt8(truncatingIfNeeded: position % 251) }
}
