/// Path rules the file-writing adapters (PromiseFS, PromiseCurl's downloads) share. `package`
/// access: not part of the public API.
package enum AdapterPaths {
    /// The longest file name Linux file systems take, in bytes (`NAME_MAX`).
    package static let nameMax = 255

    /// Whether `path` holds a NUL byte. Such a path must be refused: system calls take C
    /// strings, which end at the first NUL, so they would act on a shorter, different path.
    package static func containsNUL(_ path: String) -> Bool {
        path.utf8.contains(0)
    }

    /// `path` with each NUL shown as `\0`, for error messages.
    package static func showingNUL(_ path: String) -> String {
        var shown = ""
        shown.unicodeScalars.append(contentsOf: path.unicodeScalars.flatMap { $0 == "\0" ? ["\\", "0"] : [$0] })
        return shown
    }

    /// The directory part (`.` when there is none) and the last component of `path`, trailing
    /// slashes aside (`/` stays `/`).
    ///
    /// Works on UTF-8 bytes, not `Character`s: a `/` followed by a combining mark is one
    /// `Character` that is not equal to `"/"`, yet the kernel still sees a separator there.
    package static func split(_ path: String) -> (directory: String, name: String) {
        let slash = UInt8(ascii: "/")
        var bytes = Array(path.utf8)[...]
        while bytes.count > 1, bytes.last == slash { bytes = bytes.dropLast() }
        guard let last = bytes.lastIndex(of: slash) else { return (".", String(decoding: bytes, as: UTF8.self)) }
        let directory = bytes[..<last]
        return (
            directory.isEmpty ? "/" : String(decoding: directory, as: UTF8.self),
            String(decoding: bytes[(last + 1)...], as: UTF8.self)
        )
    }

    /// The components of `path` between slashes, empty ones skipped; split on bytes, like
    /// ``split(_:)``.
    package static func components(_ path: String) -> [String] {
        Array(path.utf8).split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The start of a hidden sibling's name for the file `name`: `.` + `name` + `tag`, with
    /// `name` cut at a Unicode scalar boundary so that adding `suffixLength` more bytes stays
    /// within ``nameMax``. Any name the file system accepts thus gets a temporary sibling it
    /// accepts too.
    package static func siblingPrefix(of name: String, tag: String, suffixLength: Int) -> String {
        let budget = nameMax - 1 - tag.utf8.count - suffixLength
        var kept = ""
        var used = 0
        for scalar in name.unicodeScalars {
            used += UTF8.width(scalar)
            if used > budget { break }
            kept.unicodeScalars.append(scalar)
        }
        return "." + kept + tag
    }
}
