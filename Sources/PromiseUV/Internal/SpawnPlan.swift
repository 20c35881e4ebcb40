internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSystem

/// Everything a spawn needs, checked and prepared on the calling thread before the loop
/// thread spawns it (``ChildLauncher``): the program resolved to a path, the argument and environment
/// strings, the working directory checked, and standard input's descriptor opened
/// (close-on-exec).
///
/// Not `Sendable`: built by one thread, then handed whole, inside its ``ChildProcess``, to the
/// loop thread, which alone uses and closes it.
final class SpawnPlan {
    /// The path the child executes.
    let file: String
    /// `argv`, starting with the program as given.
    let arguments: [String]
    /// `KEY=VALUE` strings, or `nil` for this process's environment as it is.
    let environment: [[UInt8]]?
    let workingDirectory: String?
    /// Standard input: -1 for `/dev/null`, 0 for this process's, or a descriptor this plan
    /// opened (a memfd or a file) and closes once the child has it.
    private(set) var inputDescriptor: Int32
    /// For ``UVCommand/Input/writer``, this process's end of the pipe whose other end is
    /// ``inputDescriptor``, until ``takeWriterDescriptor()`` hands it over; -1 otherwise.
    private var writerDescriptor: Int32
    let teardown: [UVTeardownStep]
    let processGroup: UVCommand.ProcessGroup
    let outputs: [UVCommand.Output]
    /// For standard output and error, the descriptor the child writes to when it is not a
    /// pipe of the loop's or `/dev/null`: 1 or 2 to inherit, the program's own for
    /// ``UVCommand/Output/descriptor(_:)``, or one this plan opened for
    /// ``UVCommand/Output/file(_:append:)`` (in ``openedOutputs``); -1 otherwise.
    let outputDescriptors: [Int32]
    /// The output files this plan opened, closed once the child has its copies.
    private var openedOutputs: [Int32]
    /// ``UVCommand/extraDescriptors``: the number in the child, and this plan's close-on-exec
    /// copy of the program's descriptor (closed once the child has its own), by number.
    private(set) var extraDescriptors: [(target: Int32, source: Int32)]
    /// The child's pseudo-terminal (``UVCommand/terminal``), or `nil`.
    let terminal: PseudoTerminal?

    private init(
        file: String, arguments: [String], environment: [[UInt8]]?, workingDirectory: String?, inputDescriptor: Int32,
        writerDescriptor: Int32, teardown: [UVTeardownStep], processGroup: UVCommand.ProcessGroup, outputs: [UVCommand.Output],
        outputDescriptors: [Int32], openedOutputs: [Int32], extraDescriptors: [(target: Int32, source: Int32)], terminal: PseudoTerminal?
    ) {
        self.file = file
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.inputDescriptor = inputDescriptor
        self.writerDescriptor = writerDescriptor
        self.teardown = teardown
        self.processGroup = processGroup
        self.outputs = outputs
        self.outputDescriptors = outputDescriptors
        self.openedOutputs = openedOutputs
        self.extraDescriptors = extraDescriptors
        self.terminal = terminal
    }

    deinit {
        closeDescriptors()
        if writerDescriptor >= 0 { _ = close(writerDescriptor) }
    }

    /// Hands over this process's end of a ``UVCommand/Input/writer`` pipe, once; `nil` for
    /// other inputs.
    func takeWriterDescriptor() -> Int32? {
        guard writerDescriptor >= 0 else { return nil }
        defer { writerDescriptor = -1 }
        return writerDescriptor
    }

    /// Closes the descriptors this plan opened (standard input's, output files, the
    /// terminal's slave): the child has its own copies.
    func closeDescriptors() {
        terminal?.closeSlave()
        if inputDescriptor > 2 { _ = close(inputDescriptor) }
        inputDescriptor = -1
        for descriptor in openedOutputs { _ = close(descriptor) }
        openedOutputs = []
        for extra in extraDescriptors { _ = close(extra.source) }
        extraDescriptors = []
    }

    /// Checks `command` and prepares it.
    ///
    /// - Throws: ``UVError`` with ``UVError/Code-swift.struct/invalidArgument`` for bad
    ///   input, and the codes listed on ``UVLoop/spawn(_:)`` for a program or working
    ///   directory that cannot be used.
    static func make(_ command: UVCommand) throws(UVError) -> SpawnPlan {
        func refuse(_ detail: String) -> UVError { UVError(.invalidArgument, operation: "spawn", detail: detail) }
        guard !command.program.isEmpty else { throw refuse("the program is an empty string: name a program or give its path") }
        for text in [command.program, command.argv0 ?? ""] + command.arguments + [command.workingDirectory ?? ""] where text.utf8.contains(0) {
            throw refuse("\(AdapterPaths.showingNUL(text)) contains a NUL byte, which a C string cannot carry")
        }
        for (index, step) in command.teardown.enumerated() where step.wait < .zero {
            throw refuse(
                "teardown step \(index + 1) (\(step.signal)) waits \(step.wait): give zero or a positive duration (terminationGrace sets a one-step teardown)"
            )
        }
        for (name, output) in [("standardOutput", command.standardOutput), ("standardError", command.standardError)] {
            switch output.storage {
            case .capture(let limit) where limit < 0:
                throw refuse("\(name) capture limit is \(limit): give 0 or more bytes")
            case .lines(_, let maxLength, _) where maxLength < 1:
                throw refuse("\(name) maxLength is \(maxLength): give 1 or more bytes")
            case .stream(let limit) where limit < 1:
                throw refuse("\(name) stream bufferLimit is \(limit): give 1 or more bytes")
            default: break
            }
        }
        let environment = try environmentStrings(command.environment)
        if let directory = command.workingDirectory { try checkDirectory(directory) }
        let file = try resolve(command.program, in: command.workingDirectory, path: searchPath(environment))
        if case .combinedWithOutput = command.standardOutput.storage {
            throw refuse("standardOutput is combinedWithOutput: only standardError can go where standard output goes")
        }
        // Opened before the other descriptors: its deinit closes it when a later step throws.
        let terminal: PseudoTerminal?
        if let wanted = command.terminal {
            let size = try wanted.checkedSize(operation: "spawn")
            guard command.standardOutput.isPipe else {
                throw refuse(
                    "standardOutput with a terminal is what the terminal shows, which the loop reads: give capture, lines, chunks or stream")
            }
            terminal = try PseudoTerminal.open(size)
        } else {
            terminal = nil
        }
        var opened: [Int32] = []
        var descriptors: [Int32] = []
        do throws(UVError) {
            for (index, output) in [command.standardOutput, command.standardError].enumerated() {
                descriptors.append(try outputDescriptor(output, standard: Int32(index + 1), opened: &opened))
            }
        } catch {
            for descriptor in opened { _ = close(descriptor) }
            throw error
        }
        let input: (child: Int32, writer: Int32)
        let extras: [(target: Int32, source: Int32)]
        do throws(UVError) {
            extras = try copyExtraDescriptors(command.extraDescriptors)
        } catch {
            for descriptor in opened { _ = close(descriptor) }
            throw error
        }
        do throws(UVError) {
            input = try openInput(command.standardInput, terminal: terminal)
        } catch {
            for descriptor in opened + extras.map(\.source) { _ = close(descriptor) }
            throw error
        }
        return SpawnPlan(
            file: file, arguments: [command.argv0 ?? command.program] + command.arguments, environment: environment,
            workingDirectory: command.workingDirectory, inputDescriptor: input.child, writerDescriptor: input.writer,
            teardown: command.teardown,
            // A terminal controls a session, which the child leads.
            processGroup: terminal == nil ? command.processGroup : .ownSession, outputs: [command.standardOutput, command.standardError],
            outputDescriptors: descriptors, openedOutputs: opened, extraDescriptors: extras, terminal: terminal)
    }

    /// Close-on-exec copies of `extras`' descriptors, by the number in the child, checked.
    private static func copyExtraDescriptors(_ extras: [Int32: Int32]) throws(UVError) -> [(target: Int32, source: Int32)] {
        guard !extras.isEmpty else { return [] }
        var limit = rlimit()
        let top = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1_024
        for (target, source) in extras.sorted(by: { $0.key < $1.key }) {
            guard target >= 3, Int(target) < top else {
                throw UVError(
                    .invalidArgument, operation: "spawn",
                    detail:
                        "extraDescriptors gives the child descriptor \(target): give a number from 3 (0, 1 and 2 are the standard streams) below the descriptor limit \(top)"
                )
            }
            guard source >= 0, fcntl(source, F_GETFD) != -1 else {
                throw UVError(
                    UVError.Code(uvCode: -EBADF), operation: "spawn",
                    detail: "extraDescriptors gives the child's descriptor \(target) from \(source), which this program does not hold open")
            }
        }
        var copies: [(target: Int32, source: Int32)] = []
        for (target, source) in extras.sorted(by: { $0.key < $1.key }) {
            let copy = fcntl(source, F_DUPFD_CLOEXEC, 3)
            guard copy >= 0 else {
                let code = errno
                for made in copies { _ = close(made.source) }
                throw UVError(
                    UVError.Code(uvCode: -code), operation: "fcntl",
                    detail: "copying descriptor \(source) for the child's descriptor \(target): \(ErrnoText.describe(code))")
            }
            copies.append((target, copy))
        }
        return copies
    }

    // MARK: Environment

    /// The child's `NAME=VALUE` entries as bytes, or `nil` for this process's environment.
    /// Inherited entries keep their bytes as they are, UTF-8 or not.
    private static func environmentStrings(_ environment: UVCommand.Environment) throws(UVError) -> [[UInt8]]? {
        var variables: [(name: [UInt8], value: [UInt8])]
        switch environment.storage {
        case .inherit:
            return nil
        case .replace(let replacement):
            variables = replacement.sorted { $0.key < $1.key }.map { (Array($0.key.utf8), Array($0.value.utf8)) }
        case .amend(let changes):
            let changed = Set(changes.keys.map { Array($0.utf8) })
            variables = currentEnvironment().filter { !changed.contains($0.name) }
            for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
                if let value { variables.append((Array(name.utf8), Array(value.utf8))) }
            }
        }
        for (name, value) in variables {
            if name.isEmpty || name.contains(UInt8(ascii: "=")) || name.contains(0) || value.contains(0) {
                let shown = AdapterPaths.showingNUL(String(decoding: name, as: UTF8.self))
                throw UVError(
                    .invalidArgument, operation: "spawn",
                    detail:
                        "environment variable \(shown) cannot be set: a name must be non-empty and hold no '=', and neither name nor value a NUL byte"
                )
            }
        }
        return variables.map { $0.name + [UInt8(ascii: "=")] + $0.value }
    }

    /// This process's environment as name and value bytes.
    private static func currentEnvironment() -> [(name: [UInt8], value: [UInt8])] {
        var pairs: [(name: [UInt8], value: [UInt8])] = []
        guard var entry = Optional(environ) else { return pairs }
        while let pointer = entry.pointee {
            let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((Array(bytes[..<equals]), Array(bytes[(equals + 1)...])))
            }
            entry = entry.successor()
        }
        return pairs
    }

    /// The `PATH` the program is looked up in: the child's, else this process's, else a default.
    private static func searchPath(_ environment: [[UInt8]]?) -> String {
        if let environment {
            let prefix = Array("PATH=".utf8)
            if let entry = environment.first(where: { $0.starts(with: prefix) }) { return String(decoding: entry.dropFirst(5), as: UTF8.self) }
        } else if let value = getenv("PATH") {
            return String(cString: value)
        }
        return "/usr/local/bin:/usr/bin:/bin"
    }

    // MARK: Program and directory

    /// What a path names, as far as running it goes. `execve` refuses anything but a regular
    /// file (`EACCES`), whatever its permission bits, so a FIFO, socket or device is `.other`.
    private enum Kind { case missing(Int32), directory, other, file(executable: Bool) }

    private static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file(executable: access(path, X_OK) == 0)
        default: return .other
        }
    }

    private static func checkDirectory(_ directory: String) throws(UVError) {
        switch kind(of: directory) {
        case .missing(let code):
            throw UVError(
                UVError.Code(uvCode: -code), operation: "chdir", detail: "the working directory \(directory) cannot be used: \(ErrnoText.describe(code))")
        case .file, .other:
            throw UVError(.notADirectory, operation: "chdir", detail: "the working directory \(directory) is not a directory")
        case .directory:
            guard access(directory, X_OK) == 0 else {
                throw UVError(.permissionDenied, operation: "chdir", detail: "the working directory \(directory) cannot be entered (no search permission)")
            }
        }
    }

    /// The path to execute for `program`, as `execvp` would find it, with a clear error for
    /// each way it cannot be run. Like `execvp`, the search moves on past every entry that
    /// `execve` would refuse (a directory, a file without execute permission, a FIFO or other
    /// special file), and reports the first refusal only when no entry can run.
    private static func resolve(_ program: String, in directory: String?, path: String) throws(UVError) -> String {
        if program.utf8.contains(UInt8(ascii: "/")) {
            let full = program.hasPrefix("/") || directory == nil ? program : "\(directory!)/\(program)"
            switch kind(of: full) {
            case .missing(let code):
                throw UVError(UVError.Code(uvCode: -code), operation: "spawn", detail: "the program \(program) cannot be run: \(ErrnoText.describe(code))")
            case .directory:
                throw UVError(.isADirectory, operation: "spawn", detail: "the program \(program) is a directory")
            case .other:
                throw UVError(.permissionDenied, operation: "spawn", detail: "the program \(program) is not a regular file")
            case .file(let executable):
                guard executable else {
                    throw UVError(.permissionDenied, operation: "spawn", detail: "the program \(program) is not executable (no execute permission)")
                }
                return program
            }
        }
        var refused: (candidate: String, reason: String)?
        var sawDirectory: String?
        let entries = path.split(separator: ":", omittingEmptySubsequences: false).map { $0.isEmpty ? "." : String($0) }
        for base in entries {
            let candidate = "\(base)/\(program)"
            let full = candidate.hasPrefix("/") || directory == nil ? candidate : "\(directory!)/\(candidate)"
            switch kind(of: full) {
            case .file(executable: true): return candidate
            case .file(executable: false): refused = refused ?? (candidate, "is not executable (no execute permission)")
            case .other: refused = refused ?? (candidate, "is not a regular file")
            case .directory: sawDirectory = sawDirectory ?? candidate
            case .missing: continue
            }
        }
        if let refused {
            throw UVError(
                .permissionDenied, operation: "spawn", detail: "the program \(refused.candidate) \(refused.reason), and no other \(program) was found on PATH")
        }
        if let sawDirectory {
            throw UVError(.isADirectory, operation: "spawn", detail: "\(sawDirectory) on PATH is a directory, and no program \(program) was found")
        }
        throw UVError(.noSuchFileOrDirectory, operation: "spawn", detail: "no program named \(program) on PATH (\(searched(entries)))")
    }

    /// The directories a `PATH` search looked in, named briefly: every one when there are a few,
    /// else the first three and how many more, each named once.
    private static func searched(_ entries: [String]) -> String {
        var seen = Set<String>()
        let unique = entries.filter { seen.insert($0).inserted }
        guard unique.count > 4 else { return "searched " + unique.joined(separator: ", ") }
        return "searched \(unique.prefix(3).joined(separator: ", ")) and \(unique.count - 3) more directories"
    }

    // MARK: Standard input

    /// The descriptor `output` of standard descriptor `standard` (1 or 2) is written to, or
    /// -1 (see ``outputDescriptors``); a file it opens is added to `opened`.
    private static func outputDescriptor(_ output: UVCommand.Output, standard: Int32, opened: inout [Int32]) throws(UVError) -> Int32 {
        let name = standard == 1 ? "standardOutput" : "standardError"
        switch output.storage {
        case .inherit:
            return standard
        case .descriptor(let descriptor):
            let copy = try copyOf(descriptor, for: name)
            opened.append(copy)
            return copy
        case .pipe(let pipe):
            guard let end = pipe.takeWritingEnd() else {
                throw UVError(
                    .invalidArgument, operation: "spawn",
                    detail: "\(name) is a UVPipe whose writing end was given to another command: give each end to one command")
            }
            opened.append(end)
            return end
        case .file(let path, let append):
            guard !path.utf8.contains(0) else {
                throw UVError(.invalidArgument, operation: "spawn", detail: "the \(name) file \(AdapterPaths.showingNUL(path)) contains a NUL byte")
            }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0o644)
            guard descriptor >= 0 else {
                let code = errno
                throw UVError(
                    UVError.Code(uvCode: -code), operation: "open", detail: "the \(name) file \(path) cannot be written: \(ErrnoText.describe(code))")
            }
            opened.append(descriptor)
            return descriptor
        case .discard, .capture, .lines, .chunks, .stream, .combinedWithOutput:
            return -1
        }
    }

    /// A close-on-exec copy of `descriptor`, which the program named for the child's `name`.
    private static func copyOf(_ descriptor: Int32, for name: String) throws(UVError) -> Int32 {
        let copy = descriptor >= 0 ? fcntl(descriptor, F_DUPFD_CLOEXEC, 3) : -1
        guard copy >= 0 else {
            let code = descriptor >= 0 ? errno : EBADF
            throw UVError(
                UVError.Code(uvCode: -code), operation: "spawn",
                detail: code == EBADF
                    ? "\(name) is descriptor \(descriptor), which this program does not hold open"
                    : "copying descriptor \(descriptor) for the child's \(name): \(ErrnoText.describe(code))")
        }
        return copy
    }

    /// The child's standard input, and for ``UVCommand/Input/writer`` this process's end of its
    /// pipe, or of `terminal` (-1 otherwise).
    private static func openInput(_ input: UVCommand.Input, terminal: PseudoTerminal?) throws(UVError) -> (child: Int32, writer: Int32) {
        switch input.storage {
        case .null: return (-1, -1)
        case .inherit: return (0, -1)
        case .file(let path):
            guard !path.utf8.contains(0) else {
                throw UVError(.invalidArgument, operation: "spawn", detail: "the input file \(AdapterPaths.showingNUL(path)) contains a NUL byte")
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                throw UVError(UVError.Code(uvCode: -code), operation: "open", detail: "the input file \(path) cannot be read: \(ErrnoText.describe(code))")
            }
            return (descriptor, -1)
        case .bytes(let bytes):
            return (try memoryFile(holding: bytes), -1)
        case .descriptor(let descriptor):
            return (try copyOf(descriptor, for: "standardInput"), -1)
        case .pipe(let pipe):
            guard let end = pipe.takeReadingEnd() else {
                throw UVError(
                    .invalidArgument, operation: "spawn",
                    detail: "standardInput is a UVPipe whose reading end was given to another command: give each end to one command")
            }
            return (end, -1)
        case .writer:
            guard let terminal else { return try inputPipe() }
            let child = try terminal.slaveCopy()
            do throws(UVError) {
                return (child, try terminal.masterCopy())
            } catch {
                SystemCall.close(child)
                throw error
            }
        }
    }

    /// A close-on-exec socket pair: the child's end, and this process's end, which only sends.
    private static func inputPipe() throws(UVError) -> (child: Int32, writer: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            let code = errno
            throw UVError(UVError.Code(uvCode: -code), operation: "socketpair", detail: "the child's standard input: \(ErrnoText.describe(code))")
        }
        _ = shutdown(ends[0], Int32(SHUT_WR))
        _ = shutdown(ends[1], Int32(SHUT_RD))
        return (ends[0], ends[1])
    }

    /// A close-on-exec memfd holding `bytes`, positioned at its start.
    private static func memoryFile(holding bytes: [UInt8]) throws(UVError) -> Int32 {
        func failure(_ call: String, code: Int32 = errno) -> UVError {
            return UVError(UVError.Code(uvCode: -code), operation: call, detail: "preparing the child's standard input: \(ErrnoText.describe(code))")
        }
        guard let create = memfdCreate else {
            throw UVError(.invalidArgument, operation: "memfd_create", detail: "this C library has no memfd_create: give standard input as a file")
        }
        let descriptor = create("promise-uv-stdin", 1 /* MFD_CLOEXEC */)
        guard descriptor >= 0 else { throw failure("memfd_create") }
        if let code = bytes.withUnsafeBytes({ SystemCall.writeAll(descriptor, $0) }) {
            SystemCall.close(descriptor)
            throw failure("write", code: code)
        }
        _ = lseek(descriptor, 0, SEEK_SET)
        return descriptor
    }
}

/// `memfd_create`, a GNU function that Glibc's Swift module does not import; looked up once.
private let memfdCreate: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memfd_create") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32).self)
}()
