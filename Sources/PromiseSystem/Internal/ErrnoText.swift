internal import Glibc

/// The one way the adapters turn an `errno` value into words for an error message.
package enum ErrnoText {
    /// The C library's sentence for `code` with its number, first letter lowercased so that it
    /// reads inside a message: `permission denied (errno 13)`.
    ///
    /// - Parameter code: An `errno` value.
    /// - Returns: The text.
    package static func describe(_ code: Int32) -> String {
        "\(sentence(code)) (errno \(code))"
    }

    /// The C library's sentence for `code`, first letter lowercased: `permission denied`.
    ///
    /// - Parameter code: An `errno` value.
    /// - Returns: The sentence (`unknown error N` for a number the C library does not know).
    package static func sentence(_ code: Int32) -> String {
        // glibc's strerror returns a constant string for every known code; only an unknown one
        // goes through a per-thread buffer, which is read here before anything else can reuse it.
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
