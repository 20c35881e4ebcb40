internal import CUV
internal import Glibc
internal import PromiseSystem

/// The pseudo-terminal of one child (``UVCommand/terminal``), from its opening on the calling
/// thread until the loop has it: the master, which the loop reads the output from (and types
/// the input at), and the slave, which becomes the child's standard descriptors.
///
/// Not `Sendable`: made inside a ``SpawnPlan``, then used with it on the loop thread only.
final class PseudoTerminal {
    /// This process's side; -1 once handed over (``takeMaster()``).
    private var master: Int32
    /// The child's side, opened here without becoming this process's controlling terminal;
    /// -1 once closed (``closeSlave()``), which this process does once the child has its copies,
    /// so that the output ends when the child's side is closed by everything else.
    private(set) var slave: Int32
    /// `/dev/pts/N`: the child opens it again after `setsid` to make it its controlling terminal.
    let slavePath: String

    private init(master: Int32, slave: Int32, slavePath: String) {
        self.master = master
        self.slave = slave
        self.slavePath = slavePath
    }

    deinit {
        if master >= 0 { SystemCall.close(master) }
        closeSlave()
    }

    /// Opens a pseudo-terminal of `size`.
    ///
    /// - Throws: ``UVError`` with the `errno` of the call that failed (`ENOENT` without
    ///   `/dev/ptmx`, `ENOSPC` when the system's pseudo-terminals are all in use).
    static func open(_ size: (rows: UInt16, columns: UInt16)) throws(UVError) -> PseudoTerminal {
        func failure(_ operation: String, _ code: Int32) -> UVError {
            UVError(UVError.Code(uvCode: -code), operation: operation, detail: "opening the child's terminal: \(ErrnoText.describe(code))")
        }
        var number: UInt32 = 0
        let master = SystemCall.retryingInterrupts { cuv_open_terminal_master(&number) }
        guard master >= 0 else { throw failure("open", errno) }
        guard cuv_set_window_size(master, size.rows, size.columns) == 0 else {
            let code = errno
            SystemCall.close(master)
            throw failure("ioctl", code)
        }
        let path = "/dev/pts/\(number)"
        let slave = SystemCall.retryingInterrupts { Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) }
        guard slave >= 0 else {
            let code = errno
            SystemCall.close(master)
            throw failure("open", code)
        }
        return PseudoTerminal(master: master, slave: slave, slavePath: path)
    }

    /// A close-on-exec copy of the master, for a caller that closes it.
    func masterCopy() throws(UVError) -> Int32 { try Self.copy(of: master) }

    /// A close-on-exec copy of the slave, for a caller that closes it.
    func slaveCopy() throws(UVError) -> Int32 { try Self.copy(of: slave) }

    private static func copy(of descriptor: Int32) throws(UVError) -> Int32 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else {
            let code = errno
            throw UVError(UVError.Code(uvCode: -code), operation: "fcntl", detail: "copying the child's terminal: \(ErrnoText.describe(code))")
        }
        return copy
    }

    /// The master while this terminal still holds it (before the spawn), else `nil`.
    var heldMaster: Int32? { master >= 0 ? master : nil }

    /// Hands over the master, once.
    func takeMaster() -> Int32 {
        precondition(master >= 0, "the terminal's master was handed over already")
        defer { master = -1 }
        return master
    }

    /// Closes this process's copy of the slave.
    func closeSlave() {
        if slave >= 0 { SystemCall.close(slave) }
        slave = -1
    }
}
