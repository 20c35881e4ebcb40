internal import CUV
internal import Glibc
internal import PromiseSystem

/// Starts a child with `posix_spawn` and nothing else: glibc's `posix_spawn` runs the child
/// on a copy of the calling thread that shares this process's memory until `exec` (`clone`
/// with `CLONE_VM | CLONE_VFORK`), so a spawn costs the same from a small program and from one
/// holding gigabytes, where a `fork` copies the page tables of all of it.
///
/// The child gets exactly:
/// - descriptors 0, 1 and 2 as the ``Request`` gives them, and its extra ones, every other
///   descriptor closed before `exec`, however this process opened it (with or without
///   close-on-exec);
/// - every signal's default action and an empty signal mask, as a new program expects;
/// - its working directory, its environment, and a new session when asked, with a controlling
///   terminal when one is given.
///
/// Stateless: the caller, on the loop thread, owns what it passes and what it gets back.
enum ChildLauncher {
    /// What the child is started with.
    struct Request {
        /// The path to execute (already resolved on `PATH`; relative to ``workingDirectory``
        /// when it is relative).
        let file: String
        /// `argv`, starting with the name the child sees as its own.
        let arguments: [String]
        /// `KEY=VALUE` strings, or `nil` for this process's environment.
        let environment: [[UInt8]]?
        let workingDirectory: String?
        /// The descriptors of this process that become the child's 0, 1 and 2, in order; -1
        /// for `/dev/null`.
        let standard: [Int32]
        /// Further descriptors of this process the child gets, each as the number `target`
        /// (3 or more, each once).
        var extra: [(target: Int32, source: Int32)] = []
        /// The child's process group: this process's, a new one in this session
        /// (`setpgid(0, 0)`), or a new session (`setsid`) whose group it leads.
        let processGroup: UVCommand.ProcessGroup
        /// The path of a terminal the child opens once it leads its new session, which makes
        /// it the session's controlling terminal; `nil` for none. Needs
        /// ``UVCommand/ProcessGroup/ownSession``.
        var controllingTerminal: String? = nil
    }

    /// Why a launch failed: the `errno` and the call that reported it.
    struct Failure: Error, Equatable {
        let errno: Int32
        let operation: String
    }

    /// How the child closes the descriptors it must not keep.
    enum DescriptorClosing {
        /// One `close_range` in the child (glibc 2.34's
        /// `posix_spawn_file_actions_addclosefrom_np`), whatever was opened.
        case closeFrom
        /// A `close` in the child for each descriptor above 2 that this process has open when
        /// the spawn starts (from `/proc/self/fd`), for a C library without `closefrom`.
        case listed

        /// `closeFrom` where the C library has it.
        static let preferred: DescriptorClosing = GNUSpawn.addCloseFrom == nil ? .listed : .closeFrom
    }

    /// The longest of the waits before trying a busy program again (`ETXTBSY`), in µs: waits
    /// of 1, 2, 4, 8 and 16 ms.
    static let busyProgramWaitLimit: UInt32 = 16_000

    /// `SIGCHLD`'s default action, `SIGPIPE`'s and every other's, for the child.
    private static let defaultedSignals: sigset_t = {
        var all = sigset_t()
        sigfillset(&all)
        return all
    }()

    /// Starts the child.
    ///
    /// - Parameters:
    ///   - request: What it is started with.
    ///   - closing: How its extra descriptors are closed.
    /// - Returns: The child's pid, or why it could not start: `posix_spawn`'s error (the
    ///   `errno` of the child's failed `chdir` or `exec`), or the call in this process that
    ///   failed first.
    static func launch(_ request: Request, closing: DescriptorClosing = .preferred) -> Result<pid_t, Failure> {
        // Every source is copied to a number the child does not get, so that no `dup2` below
        // replaces a source a later one reads; close-on-exec, and closed by `closing`. A copy
        // that lands on one of the child's numbers is held aside while the next is made, not
        // made above them all: the highest number may be the last below the descriptor limit.
        let targets = [0, 1, 2] + request.extra.map(\.target)
        let highest = targets.max()!
        let taken = Set(targets)
        let sources = request.standard + request.extra.map(\.source)
        var copies: [Int32] = []
        var aside: [Int32] = []
        defer { for copy in copies + aside where copy >= 0 { SystemCall.close(copy) } }
        for source in sources {
            guard source >= 0 else {
                copies.append(-1)
                continue
            }
            var copy = fcntl(source, F_DUPFD_CLOEXEC, 3)
            while copy >= 0, taken.contains(copy) {
                aside.append(copy)
                copy = fcntl(source, F_DUPFD_CLOEXEC, 3)
            }
            guard copy >= 0 else { return .failure(Failure(errno: errno, operation: "fcntl")) }
            copies.append(copy)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal = request.controllingTerminal {
            precondition(request.processGroup == .ownSession, "a controlling terminal needs a session of its own")
            // The first terminal a session leader without one opens (without `O_NOCTTY`)
            // becomes its controlling terminal; `setsid` comes before the file actions. Opened
            // on a number that is neither a copy nor the child's, and closed at once: the
            // standard descriptors are the copies.
            let used = taken.union(copies)
            let scratch = (3...).first { !used.contains($0) }!
            var status = posix_spawn_file_actions_addopen(&actions, scratch, terminal, O_RDWR, 0)
            if status == 0 { status = posix_spawn_file_actions_addclose(&actions, scratch) }
            guard status == 0 else { return .failure(Failure(errno: status, operation: "posix_spawn_file_actions")) }
        }
        for (target, copy) in zip(targets, copies) {
            let status =
                copy >= 0
                ? posix_spawn_file_actions_adddup2(&actions, copy, target)
                : posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            guard status == 0 else { return .failure(Failure(errno: status, operation: "posix_spawn_file_actions")) }
        }
        if let status = addClosing(closing, keeping: Set(targets), below: highest + 1, to: &actions) {
            return .failure(Failure(errno: status, operation: "posix_spawn_file_actions"))
        }
        if let directory = request.workingDirectory {
            guard let addChangeDirectory = GNUSpawn.addChangeDirectory else {
                return .failure(Failure(errno: ENOSYS, operation: "posix_spawn_file_actions_addchdir_np"))
            }
            let status = addChangeDirectory(&actions, directory)
            guard status == 0 else { return .failure(Failure(errno: status, operation: "posix_spawn_file_actions_addchdir_np")) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaulted = defaultedSignals
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaulted)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        switch request.processGroup {
        case .inherited:
            break
        case .ownGroup:
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        case .ownSession:
            flags |= GNUSpawn.newSessionFlag
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var status = spawn(request.file, request.arguments, request.environment, &actions, &attributes)
        // `ETXTBSY`: the program was just written, and a child another thread of this process
        // is starting at this moment holds a copy of the writing descriptor until that child
        // closes it, before its own `exec`. Tried again a few times, 31 ms in all at most.
        var wait: UInt32 = 1_000
        while case .failure(let failure) = status, failure.errno == ETXTBSY, wait <= Self.busyProgramWaitLimit {
            usleep(wait)
            wait *= 2
            status = spawn(request.file, request.arguments, request.environment, &actions, &attributes)
        }
        if case .failure(let failure) = status, failure.errno == ENOEXEC {
            // Not a binary and no `#!` line: `execvp`'s rule, which `sh` scripts rely on, is
            // to run it with the shell.
            status = spawn("/bin/sh", ["/bin/sh", request.file] + request.arguments.dropFirst(), request.environment, &actions, &attributes)
        }
        return status
    }

    private static func spawn(
        _ file: String, _ arguments: [String], _ environment: [[UInt8]]?, _ actions: inout posix_spawn_file_actions_t,
        _ attributes: inout posix_spawnattr_t
    ) -> Result<pid_t, Failure> {
        var pid: pid_t = 0
        let status = CStrings.with(arguments) { argv in
            guard let environment else { return posix_spawn(&pid, file, &actions, &attributes, argv, environ) }
            return CStrings.with(environment) { envp in posix_spawn(&pid, file, &actions, &attributes, argv, envp) }
        }
        return status == 0 ? .success(pid) : .failure(Failure(errno: status, operation: "posix_spawn"))
    }

    /// Adds to `actions` the closing of every descriptor but those in `kept`, where every
    /// descriptor from `first` on is not kept; returns the error of a failed addition.
    private static func addClosing(
        _ closing: DescriptorClosing, keeping kept: Set<Int32>, below first: Int32, to actions: inout posix_spawn_file_actions_t
    ) -> Int32? {
        func close(_ descriptors: some Sequence<Int32>) -> Int32? {
            for descriptor in descriptors where !kept.contains(descriptor) {
                let status = posix_spawn_file_actions_addclose(&actions, descriptor)
                // One closed since it was listed, or above the limit (never opened): nothing to close.
                guard status == 0 || status == EBADF else { return status }
            }
            return nil
        }
        switch closing {
        case .closeFrom:
            guard let addCloseFrom = GNUSpawn.addCloseFrom else { return addClosing(.listed, keeping: kept, below: first, to: &actions) }
            // Below `first`, only what is open now and not kept; from it on, everything at once.
            if first > 3, let status = close(openDescriptors().filter { $0 < first }) { return status }
            let status = addCloseFrom(&actions, first)
            // `first` at the descriptor limit (the child's highest number is the last below
            // it): nothing can be open from there on.
            return status == 0 || status == EBADF ? nil : status
        case .listed:
            return close(openDescriptors())
        }
    }

    /// The descriptors this process has open, from `/proc/self/fd`; without `/proc`, every
    /// number below the descriptor limit (at most 65 536), each closed in the child whether
    /// open or not.
    static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else {
            var limit = rlimit()
            let top = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? min(Int(clamping: limit.rlim_cur), 1 << 16) : 1 << 10
            return (0..<Int32(top)).map { $0 }
        }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var descriptors: [Int32] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(directory) {
            // The name is read where it lies: an entry is only as long as its name, so copying
            // the whole 256-byte `d_name` could read past the end of the listing's buffer.
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if let descriptor = Int32(name), descriptor != own { descriptors.append(descriptor) }
        }
        return descriptors
    }
}

/// The GNU extensions of `posix_spawn` that Glibc's Swift module does not import (they need
/// `_GNU_SOURCE`), looked up once; `nil` in a C library without them.
private enum GNUSpawn {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29).
    static let addChangeDirectory: AddChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")
    /// `POSIX_SPAWN_SETSID` (glibc 2.26), from `<spawn.h>`.
    static let newSessionFlag: Int32 = 0x80

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}

/// A NULL-terminated `char**` for C, valid during one call.
enum CStrings {
    static func with<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        with(strings.map { Array($0.utf8) }, body)
    }

    /// A NULL-terminated array of NUL-terminated copies of `strings` (bytes without a NUL).
    static func with<R>(_ strings: [[UInt8]], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count) }
            }
            copy[bytes.count] = 0
            return copy
        }
        pointers.append(nil)
        defer { for pointer in pointers { pointer?.deallocate() } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
