internal import Synchronization

/// Names for temporary files and directories: a prefix followed by 14 letters and digits, a
/// per-process random part and a counter.
///
/// Uniqueness, not secrecy, is what matters (creation uses `O_EXCL` and retries on `EEXIST`),
/// so one random draw per process is enough, and no name costs a system call.
package enum TemporaryName {
    /// How many bytes ``suffix()`` returns.
    package static let suffixLength = 14

    /// The next unique suffix: 14 bytes of `[0-9a-z]`.
    ///
    /// - Returns: The suffix.
    package static func suffix() -> [UInt8] {
        let serial = counter.add(1, ordering: .relaxed).newValue
        return base36(processNonce, width: 7) + base36(UInt64(serial) % 78_364_164_096, width: 7)
    }

    private static let processNonce = UInt64.random(in: 0..<78_364_164_096)  // 36^7
    private static let counter = Atomic<Int>(0)

    private static func base36(_ value: UInt64, width: Int) -> [UInt8] {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        var value = value
        var out = [UInt8](repeating: 0, count: width)
        for index in stride(from: width - 1, through: 0, by: -1) {
            out[index] = digits[Int(value % 36)]
            value /= 36
        }
        return out
    }
}
