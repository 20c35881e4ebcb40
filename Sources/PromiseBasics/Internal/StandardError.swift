internal import Glibc

/// The one writer of diagnostics to standard error.
package enum StandardError {
    /// Writes `line` and a newline (unless it ends with one) to descriptor 2, unbuffered, in as
    /// few `write` calls as the kernel allows: a write interrupted by a signal (`EINTR`) or cut
    /// short is continued; any other error drops the rest, since there is nowhere left to report it.
    ///
    /// - Parameter line: The text.
    package static func writeLine(_ line: String) {
        var text = line
        if !text.hasSuffix("\n") { text += "\n" }
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
