/// The one writer of diagnostics to standard error.
package enum StandardError {
    /// Writes `line` and a newline (unless it ends with one) to descriptor 2, unbuffered, in as
    /// few `write` calls as the kernel allows (``SystemCall/writeAll(_:_:)``); an error drops
    /// the rest, since there is nowhere left to report it.
    ///
    /// - Parameter line: The text.
    package static func writeLine(_ line: String) {
        var text = line
        if !text.hasSuffix("\n") { text += "\n" }
        text.withUTF8 { bytes in
            _ = SystemCall.writeAll(2, UnsafeRawBufferPointer(bytes))
        }
    }
}
