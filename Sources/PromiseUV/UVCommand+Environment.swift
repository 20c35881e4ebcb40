extension UVCommand {
    /// A child's environment: this process's as it is, replaced, or amended.
    public struct Environment: Sendable {
        enum Storage: Sendable {
            case inherit
            case replace([String: String])
            case amend([String: String?])
        }

        let storage: Storage

        /// This process's environment at the time of the spawn.
        public static let inherit = Environment(storage: .inherit)

        /// Exactly `variables`, nothing of this process's.
        ///
        /// - Parameter variables: Names and values. A name that is empty or contains `=`, or a
        ///   name or value that contains a NUL byte, makes the spawn fail with
        ///   ``UVError/Code-swift.struct/invalidArgument``.
        /// - Returns: The environment.
        public static func replace(_ variables: [String: String]) -> Environment {
            Environment(storage: .replace(variables))
        }

        /// This process's environment with `changes` applied: a value sets a variable, `nil`
        /// removes it.
        ///
        /// - Parameter changes: Names and new values (`nil` to remove); checked as for
        ///   ``replace(_:)``.
        /// - Returns: The environment.
        public static func inherit(amending changes: [String: String?]) -> Environment {
            Environment(storage: .amend(changes))
        }
    }
}
