/// Path rules the file-writing adapters (PromiseFS, PromiseCurl's downloads) share.
package enum AdapterPaths {
    /// The longest file name Linux file systems take, in bytes (`NAME_MAX`).
    package static let nameMax = 255

    /// Whether `path` holds a NUL byte. Such a path must be refused: system calls take C
    /// strings, which end at the first NUL, so they would act on a shorter, different path.
    package static func containsNUL(_ path: String) -> Bool {
        path.utf8.contains(0)
    }

    /// The one sentence every adapter refuses a path holding a NUL byte with (each with its
    /// `invalidArgument` code): `<subject> '<path, NUL shown as \0>' contains a NUL byte, …`.
    ///
    /// - Parameters:
    ///   - subject: What the path is, such as `download path`.
    ///   - path: The path.
    /// - Returns: The sentence.
    package static func nulRefusal(_ subject: String, _ path: String) -> String {
        "\(subject) '\(showingNUL(path))' contains a NUL byte, which would cut it short in the system call; refused"
    }

    /// `path` with each NUL shown as `\0`, for error messages.
    package static func showingNUL(_ path: String) -> String {
        var shown = ""
        shown.unicodeScalars.append(contentsOf: path.unicodeScalars.flatMap { $0 == "\0" ? ["\\", "0"] : [$0] })
        return shown
    }

    /// The directory part (`.` when there is none, `/` for a name directly under the root) and
    /// the last component of `path`, trailing slashes aside (`/` itself is `/` and an empty name).
    ///
    /// Works on bytes, not `Character`s: a `/` followed by a combining mark is one `Character`
    /// that is not equal to `"/"`, yet the kernel still sees a separator there. Splitting UTF-8
    /// at `/` bytes leaves both parts valid UTF-8.
    package static func split(_ path: some Collection<UInt8>) -> (directory: [UInt8], name: [UInt8]) {
        let slash = UInt8(ascii: "/")
        var bytes = Array(path)[...]
        while bytes.count > 1, bytes.last == slash { bytes = bytes.dropLast() }
        guard let last = bytes.lastIndex(of: slash) else { return ([UInt8(ascii: ".")], Array(bytes)) }
        let directory = bytes[..<last]
        return (directory.isEmpty ? [slash] : Array(directory), Array(bytes[(last + 1)...]))
    }

    /// The start of a hidden sibling's name for the file `name`: `.` + `name` + `tag`, with
    /// `name` cut (never inside a UTF-8 sequence) so that adding `suffixLength` more bytes stays
    /// within ``nameMax``. Any name the file system accepts thus gets a temporary sibling it
    /// accepts too.
    ///
    /// - Parameters:
    ///   - name: The file's name, without a directory.
    ///   - tag: What follows the name, such as `.tmp-`.
    ///   - suffixLength: How many bytes the caller appends.
    /// - Returns: The prefix.
    package static func siblingPrefix(of name: some Collection<UInt8>, tag: String, suffixLength: Int) -> [UInt8] {
        let bytes = Array(name)
        let budget = max(0, nameMax - 1 - tag.utf8.count - suffixLength)
        var kept = bytes.prefix(budget)
        while kept.count < bytes.count, !kept.isEmpty, bytes[kept.count] & 0xC0 == 0x80 { kept = kept.dropLast() }
        return [UInt8(ascii: ".")] + kept + Array(tag.utf8)
    }
}
