extension UVCommand {
    /// A pseudo-terminal the child runs in (``UVCommand/terminal``), and its window size when
    /// the child starts.
    ///
    /// ```swift
    /// var command = UVCommand("python3", arguments: ["-i"])
    /// command.terminal = UVCommand.Terminal(columns: 120, rows: 40)
    /// command.standardInput = .writer                // typed at the terminal
    /// command.standardError = .combinedWithOutput    // shown on it, as the prompt is
    /// let python = loop.start(command)
    /// python.standardInput!.write("print(6 * 7)\n")
    /// python.resizeTerminal(columns: 80, rows: 24)  // the child gets SIGWINCH
    /// ```
    ///
    /// With a terminal, the child leads a new session (as
    /// ``UVCommand/ProcessGroup/ownSession``, whatever ``UVCommand/processGroup`` says) whose
    /// controlling terminal it is, so `isatty` is true, `/dev/tty` opens, and what a terminal
    /// does reaches the child and what it starts:
    ///
    /// - ``UVCommand/standardOutput`` is what the terminal shows, read as the output asks
    ///   (``UVCommand/Output/capture(limit:)``, ``UVCommand/Output/lines(on:maxLength:_:)``,
    ///   ``UVCommand/Output/chunks(on:_:)`` or ``UVCommand/Output/stream(bufferLimit:)``;
    ///   any other output is refused with ``UVError/Code-swift.struct/invalidArgument``). The
    ///   terminal shows it as a terminal does: each `\n` the child writes arrives as `\r\n`.
    /// - ``UVCommand/standardError`` shows on the terminal too when it is
    ///   ``UVCommand/Output/combinedWithOutput``; any other output keeps it apart, as usual.
    /// - ``UVCommand/standardInput`` is typed at the terminal when it is
    ///   ``UVCommand/Input/writer``: what is written is echoed into the output (unless the
    ///   child turns echo off), a line reaches a child reading lines when its `\n` is typed,
    ///   and ``UVStandardInput/finish()`` types the end-of-file character (Ctrl-D), twice when
    ///   a line is unfinished, so that the child reads end-of-file. Any other input stays as
    ///   it is (`.null` is `/dev/null`, not the terminal).
    ///
    /// The output ends once the child and everything it started have closed the terminal;
    /// when the child, which leads the session, exits, the kernel hangs up (`SIGHUP`) what
    /// still runs in the terminal's foreground. That end is the end of the output, not an
    /// error. The terminal is closed once the child has settled.
    public struct Terminal: Sendable, Hashable {
        /// The largest number of columns or rows a terminal holds.
        public static let maximumSize = Int(UInt16.max)

        /// The width, in character cells: 1 to ``maximumSize``.
        public var columns: Int
        /// The height, in lines: 1 to ``maximumSize``.
        public var rows: Int

        /// Creates a terminal of the given size; 80 by 24 by default.
        ///
        /// A size out of range is refused when the command is started, with
        /// ``UVError/Code-swift.struct/invalidArgument``.
        ///
        /// - Parameters:
        ///   - columns: The width, in character cells.
        ///   - rows: The height, in lines.
        public init(columns: Int = 80, rows: Int = 24) {
            self.columns = columns
            self.rows = rows
        }

        /// The size as the kernel takes it, or why it cannot be.
        func checkedSize(operation: String) throws(UVError) -> (rows: UInt16, columns: UInt16) {
            guard let columns = UInt16(exactly: columns), let rows = UInt16(exactly: rows), columns > 0, rows > 0 else {
                throw UVError(
                    .invalidArgument, operation: operation,
                    detail: "a terminal of \(columns) columns and \(rows) rows: give each from 1 to \(Self.maximumSize)")
            }
            return (rows, columns)
        }
    }
}
