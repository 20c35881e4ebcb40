/// Strict UTF-8 decoding for the adapters' hot paths.
package enum UTF8Text {
    /// `bytes` as a `String` when they are valid UTF-8, `nil` otherwise; no byte is replaced.
    ///
    /// ASCII, the common case, is recognized eight bytes at a time and copied into the new
    /// string's storage (about 140 instructions for a ten-byte string, where
    /// `String(decoding:as:)` takes 220: it checks again for ASCII and takes a slower copy).
    /// `String(validating:as:)` reaches the same answer through an unspecialized generic path
    /// that looks up two generic types' metadata on every call (about 950 instructions for a
    /// ten-byte string); it decodes the rest.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: The string, or `nil` when the bytes are not valid UTF-8.
    package static func string(validating bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if isASCII(bytes) {
            return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether every byte is below 0x80.
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var offset = 0
        while offset + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset += 8
        }
        while offset < count {
            if base[offset] >= 0x80 { return false }
            offset += 1
        }
        return true
    }
}
