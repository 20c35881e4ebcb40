internal import PromiseSystem

/// A file system path as the kernel sees it: a sequence of bytes, not necessarily UTF-8.
///
/// Linux file names are bytes; any byte but `/` and NUL may appear in a name, and nothing
/// makes them UTF-8. A `String` cannot hold a name such as `FF FE` without replacing it,
/// and the replaced name does not exist. `FSPath` holds the bytes unchanged, so a name read
/// from a directory listing or a symbolic link opens the file it came from.
///
/// ```swift
/// let fs = PromiseFileSystem()
/// let entries = try await fs.listDirectory(FSPath("downloads")).get()
/// for entry in entries {
///     print(entry.path)   // "caf\xE9.txt" for a Latin-1 name
///     let bytes = try await fs.readFile(FSPath("downloads").appending(entry.path)).get()
/// }
/// ```
///
/// A path holding a NUL byte is refused by every operation with
/// ``FSError/Code-swift.struct/invalidArgument``: the system calls would end it at the NUL.
public struct FSPath: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The path's bytes, exactly as they are passed to the system calls (without a final NUL).
    public var bytes: [UInt8]

    /// Creates a path from a string's UTF-8 bytes.
    ///
    /// - Parameter string: The path.
    public init(_ string: String) {
        bytes = Array(string.utf8)
    }

    /// Creates a path from raw bytes, kept unchanged.
    ///
    /// - Parameter bytes: The path's bytes, such as those of a name that is not UTF-8.
    public init(bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Creates a path from a string literal.
    ///
    /// - Parameter value: The path.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The path as a string, or `nil` when its bytes are not valid UTF-8 (use ``description``
    /// to show such a path).
    public var string: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The path for people to read: valid UTF-8 as text, every other byte as `\xFF` (two
    /// hexadecimal digits) and a NUL byte as `\0`. Lossy when the path itself holds such
    /// backslash sequences; use ``bytes`` to get the path back.
    public var description: String {
        if !bytes.contains(0), let text = string { return text }
        var shown = ""
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0 {
                shown += "\\0"
                index += 1
                continue
            }
            var decoded: String?
            for length in 1...4 where index + length <= bytes.count {
                if let piece = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                    decoded = piece
                    index += length
                    break
                }
            }
            if let decoded {
                shown += decoded
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                shown += "\\x" + String(decoding: [hex[Int(bytes[index] >> 4)], hex[Int(bytes[index] & 15)]], as: UTF8.self)
                index += 1
            }
        }
        return shown
    }

    /// This path followed by `/` and `other` (no `/` is added when this path is empty or
    /// already ends with one).
    ///
    /// - Parameter other: A relative path, such as a ``FSDirectoryEntry/path``.
    /// - Returns: The joined path.
    public func appending(_ other: FSPath) -> FSPath {
        if bytes.isEmpty { return other }
        var joined = bytes
        if joined.last != Self.slash { joined.append(Self.slash) }
        joined.append(contentsOf: other.bytes)
        return FSPath(bytes: joined)
    }

    /// The last component, trailing slashes aside (`c` for `a/b/c/`); `nil` for an empty path
    /// or `/`.
    public var lastComponent: FSPath? {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == Self.slash { end -= 1 }
        guard end > bytes.startIndex else { return nil }
        let start = bytes[..<end].lastIndex(of: Self.slash).map { $0 + 1 } ?? bytes.startIndex
        return FSPath(bytes: bytes[start..<end])
    }

    static let slash = UInt8(ascii: "/")

    /// Whether the path holds a NUL byte, which the system calls would cut it short at.
    var containsNUL: Bool { bytes.contains(0) }

    /// The directory part (`.` when there is none, `/` for a path directly under the root)
    /// and the last component, trailing slashes aside.
    var split: (directory: FSPath, name: FSPath) {
        let (directory, name) = AdapterPaths.split(bytes)
        return (FSPath(bytes: directory), FSPath(bytes: name))
    }

    /// Calls `body` with the path as a NUL-terminated C string.
    func withCString<R, E: Error>(_ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
        var terminated = bytes
        terminated.append(0)
        let result: Result<R, E> = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                do throws(E) { return .success(try body(chars.baseAddress!)) } catch { return .failure(error) }
            }
        }
        return try result.get()
    }
}

extension FSError {
    /// An error about `path`, shown as its ``FSPath/description``.
    init(_ code: Code, operation: String, path: FSPath, activity: String? = nil) {
        self.init(code, operation: operation, path: path.description, activity: activity)
    }
}
