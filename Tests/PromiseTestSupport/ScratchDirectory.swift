import Foundation

/// A new directory under the temporary directory for one test, removed with everything in it
/// when the value is released.
package final class ScratchDirectory: Sendable {
    /// The directory's path.
    package let path: String

    /// Creates the directory, named after `prefix`.
    package init(_ prefix: String = "promise-test") throws {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp failed: errno \(errno)"])
        }
        path = String(cString: made)
    }

    /// `name` inside the directory.
    package func callAsFunction(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
