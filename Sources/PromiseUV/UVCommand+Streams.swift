import PromiseCore

extension UVCommand {
    /// Where a child's standard input comes from.
    public struct Input: Sendable {
        enum Storage: Sendable {
            case null
            case inherit
            case bytes([UInt8])
            case file(String)
            case descriptor(Int32)
            case pipe(UVPipe)
            case writer
        }

        let storage: Storage

        /// `/dev/null`: the child reads end-of-file at once.
        public static let null = Input(storage: .null)
        /// This process's standard input.
        public static let inherit = Input(storage: .inherit)

        /// `bytes`, then end-of-file. The bytes are handed to the child as an in-memory file
        /// (`memfd_create`) written before it starts, so a child that reads only part of them,
        /// or none, never blocks the loop and never raises `SIGPIPE` here.
        ///
        /// - Parameter bytes: The input.
        /// - Returns: The input.
        public static func bytes(_ bytes: [UInt8]) -> Input { Input(storage: .bytes(bytes)) }

        /// The UTF-8 bytes of `text`, as ``bytes(_:)``.
        ///
        /// - Parameter text: The input.
        /// - Returns: The input.
        public static func text(_ text: String) -> Input { Input(storage: .bytes(Array(text.utf8))) }

        /// The file at `path`, opened for reading when the child is spawned. A file that cannot
        /// be opened fails the spawn with libuv's code for the `errno` (`ENOENT`, `EACCES`).
        ///
        /// - Parameter path: The file's path.
        /// - Returns: The input.
        public static func file(_ path: String) -> Input { Input(storage: .file(path)) }

        /// `descriptor`, a file, pipe or socket this program holds open: the child reads from a
        /// copy made when the command is handed to ``UVLoop/spawn(_:)`` or ``UVLoop/start(_:)``,
        /// so this program may close its own at once. One that is not open fails the spawn
        /// with libuv's `EBADF`, operation `spawn`.
        ///
        /// - Parameter descriptor: The open descriptor.
        /// - Returns: The input.
        public static func descriptor(_ descriptor: Int32) -> Input { Input(storage: .descriptor(descriptor)) }

        /// The reading end of `pipe`, whose writing end another child's output is given
        /// (``UVCommand/Output/pipe(_:)``): the child reads what that one writes, and
        /// end-of-file once it (and what it started) has exited. The end is this child's
        /// alone from when the command is handed over; a second command naming it is refused
        /// with ``UVError/Code-swift.struct/invalidArgument``.
        ///
        /// - Parameter pipe: The pipe.
        /// - Returns: The input.
        public static func pipe(_ pipe: UVPipe) -> Input { Input(storage: .pipe(pipe)) }

        /// Written while the child runs, through ``UVChildProcess/standardInput`` of a child
        /// started with ``UVLoop/start(_:)``: each write's promise is fulfilled once its bytes
        /// are in the pipe, so a child that reads slowly holds the writer back, and
        /// ``UVStandardInput/finish()`` closes the pipe (the child reads end-of-file).
        ///
        /// The child's descriptor 0 is one end of a socket pair (as Node's and libuv's pipes
        /// are). ``UVLoop/spawn(_:)``, which gives no handle to write with, rejects it with
        /// ``UVError/Code-swift.struct/invalidArgument``.
        public static let writer = Input(storage: .writer)

        /// Whether the input is ``writer``.
        var isWriter: Bool {
            if case .writer = storage { return true }
            return false
        }
    }

    /// Where a child's standard output or standard error goes.
    public struct Output: Sendable {
        enum Storage: Sendable {
            case discard
            case inherit
            case capture(limit: Int)
            case lines(context: (any ExecutionContext)?, maxLength: Int, handler: @Sendable ([UInt8]) -> Void)
            case chunks(context: (any ExecutionContext)?, handler: @Sendable ([UInt8]) -> Void)
            case stream(bufferLimit: Int)
            case file(path: String, append: Bool)
            case descriptor(Int32)
            case pipe(UVPipe)
            case combinedWithOutput
        }

        let storage: Storage

        /// The default cap of ``capture(limit:)``: 16 MiB.
        public static let defaultCaptureLimit = 16 << 20

        /// `/dev/null`.
        public static let discard = Output(storage: .discard)
        /// This process's standard output (for the child's standard output) or standard error
        /// (for its standard error).
        public static let inherit = Output(storage: .inherit)

        /// Collected into ``UVProcessResult/standardOutput`` (or ``UVProcessResult/standardError``).
        ///
        /// - Parameter limit: The most bytes kept. The byte after it fails the spawn's promise
        ///   with ``UVError/Code-swift.struct/outputLimitExceeded``, after the child has been
        ///   stopped as a cancelled one is (its ``UVCommand/teardown``, then `SIGKILL`) and
        ///   reaped. Nothing is reserved up front, so a large limit costs nothing until
        ///   the output arrives. Negative limits fail the spawn with
        ///   ``UVError/Code-swift.struct/invalidArgument``.
        /// - Returns: The output.
        public static func capture(limit: Int = defaultCaptureLimit) -> Output { Output(storage: .capture(limit: limit)) }

        /// Each line, without its `\n`, passed to `handler` on `context` as it arrives, in
        /// order; a last line without a `\n` is passed at end-of-file. The bytes are as the
        /// child wrote them (decode with `String(validating:as:)`).
        ///
        /// - Parameters:
        ///   - context: Where `handler` runs; `nil` for the process-wide default context.
        ///   - maxLength: The longest line accepted; a longer one fails the spawn's promise
        ///     with ``UVError/Code-swift.struct/outputLimitExceeded`` after the child is
        ///     stopped and reaped. 1 MiB by default; values under 1 are refused with
        ///     ``UVError/Code-swift.struct/invalidArgument``.
        ///   - handler: Receives each line. The spawn's promise settles after the last call
        ///     was handed to `context`.
        /// - Returns: The output.
        public static func lines(
            on context: (any ExecutionContext)? = nil,
            maxLength: Int = 1 << 20,
            _ handler: @escaping @Sendable ([UInt8]) -> Void
        ) -> Output {
            Output(storage: .lines(context: context, maxLength: maxLength, handler: handler))
        }

        /// The bytes as they arrive, in pieces of whatever size the pipe delivered (at most
        /// 64 KiB), passed to `handler` on `context`, in order on a serial context.
        ///
        /// The loop does not wait for `handler`: pieces (and lines, for
        /// ``lines(on:maxLength:_:)``) queue on `context` as fast as the child writes, so a
        /// handler slower than the child holds the difference in memory.
        ///
        /// - Parameters:
        ///   - context: Where `handler` runs; `nil` for the process-wide default context.
        ///   - handler: Receives each piece.
        /// - Returns: The output.
        public static func chunks(on context: (any ExecutionContext)? = nil, _ handler: @escaping @Sendable ([UInt8]) -> Void) -> Output {
            Output(storage: .chunks(context: context, handler: handler))
        }

        /// Read through ``UVChildProcess/standardOutput`` (or ``UVChildProcess/standardError``)
        /// of a child started with ``UVLoop/start(_:)``, as a ``UVOutputStream``: an
        /// asynchronous sequence of the pieces as they arrive, with backpressure.
        /// ``UVLoop/spawn(_:)``, which gives no handle to read with, rejects it with
        /// ``UVError/Code-swift.struct/invalidArgument``.
        ///
        /// - Parameter bufferLimit: The bytes held for the consumer before the loop stops
        ///   reading the pipe (the child then blocks once the pipe is full too); 1 MiB by
        ///   default. Values under 1 fail the start with
        ///   ``UVError/Code-swift.struct/invalidArgument``.
        /// - Returns: The output.
        public static func stream(bufferLimit: Int = 1 << 20) -> Output { Output(storage: .stream(bufferLimit: bufferLimit)) }

        /// The file at `path`, opened by ``UVLoop/spawn(_:)`` before anything starts: created if missing (mode
        /// `0644`, less the umask), and emptied first, or written at its end with `append`. A
        /// file that cannot be opened fails the spawn with libuv's code for the `errno`
        /// (`ENOENT` for a missing directory, `EACCES`, `EISDIR`), operation `open`.
        ///
        /// - Parameters:
        ///   - path: The file's path.
        ///   - append: Whether to keep what the file holds and write after it.
        /// - Returns: The output.
        public static func file(_ path: String, append: Bool = false) -> Output { Output(storage: .file(path: path, append: append)) }

        /// `descriptor`, a file, pipe or socket this program holds open: the child writes to a
        /// copy made when the command is handed to ``UVLoop/spawn(_:)`` or ``UVLoop/start(_:)``,
        /// so this program may close its own at once. One that is not open fails the spawn
        /// with libuv's `EBADF`, operation `spawn`.
        ///
        /// - Parameter descriptor: The open descriptor.
        /// - Returns: The output.
        public static func descriptor(_ descriptor: Int32) -> Output { Output(storage: .descriptor(descriptor)) }

        /// The writing end of `pipe`, whose reading end another child's input is given
        /// (``UVCommand/Input/pipe(_:)``), as a shell's `|`. The end is this child's alone from
        /// when the command is handed over; a second command naming it is refused with
        /// ``UVError/Code-swift.struct/invalidArgument``.
        ///
        /// - Parameter pipe: The pipe.
        /// - Returns: The output.
        public static func pipe(_ pipe: UVPipe) -> Output { Output(storage: .pipe(pipe)) }

        /// For ``UVCommand/standardError``: wherever standard output goes, interleaved as the
        /// child writes the two (a shell's `2>&1`). When standard output is captured or
        /// streamed, both arrive through its pipe, and ``UVProcessResult/standardError`` stays
        /// empty. Given for standard output itself, the spawn fails with
        /// ``UVError/Code-swift.struct/invalidArgument``.
        public static let combinedWithOutput = Output(storage: .combinedWithOutput)

        /// Whether the loop reads this output through a pipe.
        var isPipe: Bool { storage.isPipe }
    }
}

extension UVCommand.Output.Storage {
    /// Whether the loop reads this output through a pipe.
    var isPipe: Bool {
        switch self {
        case .capture, .lines, .chunks, .stream: true
        case .discard, .inherit, .file, .descriptor, .pipe, .combinedWithOutput: false
        }
    }

    /// The buffer limit of ``UVCommand/Output/stream(bufferLimit:)``, or `nil` for another output.
    var streamLimit: Int? {
        if case .stream(let limit) = self { return limit }
        return nil
    }

    /// Whether this is ``UVCommand/Output/combinedWithOutput``.
    var isCombinedWithOutput: Bool {
        if case .combinedWithOutput = self { return true }
        return false
    }
}
