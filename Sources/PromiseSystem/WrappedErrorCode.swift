/// What a product error's `Code` holds: the C library's code, or one of the conditions the
/// product detects itself (`Own`, a private enum of each product). Each `Code` keeps one of
/// these privately, so its public face is the named constants, the optional C code and `~=`.
package enum WrappedErrorCode<Own: Hashable & Sendable>: Hashable, Sendable {
    /// A code of the C library (`CURLcode`, an SQLite result code, `errno`, a libuv error).
    case c(Int32)
    /// A condition the product detects itself.
    case own(Own)

    /// The C library's code, or `nil` for one of the product's own conditions.
    package var cCode: Int32? {
        if case .c(let value) = self { value } else { nil }
    }
}
