// Compiled only with the Logging trait (Package.swift): without it this module is empty and
// the package it needs is neither resolved nor built.
#if Logging
    public import Logging
    // Re-exported, like every product of this package, so `import PromiseLogging` is enough.
    @_exported public import PromiseCore

    extension Promises {
        /// Sends every `PromiseDiagnostic` (unhandled rejections, broken promises,
        /// work a shut-down context dropped) to `logger` instead of standard error.
        ///
        /// ```swift
        /// import PromiseLogging
        ///
        /// Promises.logDiagnostics(to: Logger(label: "my-server"))
        /// ```
        ///
        /// Each diagnostic is one entry at ``PromiseCore/PromiseDiagnostic/logLevel``, whose
        /// message is the diagnostic's kind and promise type and whose metadata are
        /// ``PromiseCore/PromiseDiagnostic/loggingMetadata``: the error's type and description, and
        /// the fields of errors that describe themselves (`LogFieldsProviding`: every error of
        /// swift-promise's products), such as `http.url` with credentials shown as `***@` or
        /// `sqlite.sql` without its bound values.
        ///
        /// This replaces `Promises.diagnosticsHandler`; call it once, early (the
        /// handler is process-wide).
        ///
        /// - Parameter logger: Where the diagnostics go.
        public static func logDiagnostics(to logger: Logger) {
            diagnosticsHandler = { diagnostic in
                logger.log(level: diagnostic.logLevel, "\(diagnostic.summary)", metadata: diagnostic.loggingMetadata)
            }
        }
    }

    extension PromiseDiagnostic {
        /// The level a diagnostic is logged at: `error` for unhandled rejections and broken
        /// promises (each is a promise whose outcome the program lost), `warning` for dropped work
        /// (the program shut a context down while work was still arriving).
        public var logLevel: Logger.Level {
            kind == .droppedWork ? .warning : .error
        }

        /// The diagnostic as log metadata:
        /// - `promise.diagnostic`: the kind, such as `unhandled rejection`;
        /// - `promise.value_type`: the promise's value type, when there is one;
        /// - `error.type` and `error.description`: the error;
        /// - the error's own fields when it is `LogFieldsProviding` (`curl.code`, `http.url`,
        ///   `sqlite.sql`, `fs.path`, `uv.operation`, `promise.code`, …).
        public var loggingMetadata: Logger.Metadata {
            var metadata: Logger.Metadata = [
                "promise.diagnostic": .string(kind.description),
                "error.type": .string(String(reflecting: type(of: error))),
                "error.description": .string(String(describing: error)),
            ]
            if !valueType.isEmpty { metadata["promise.value_type"] = .string(valueType) }
            if let described = error as? any LogFieldsProviding {
                for (name, value) in described.logFields { metadata[name] = .string(value) }
            }
            return metadata
        }

        /// `unhandled rejection of Promise<Int>`, or `dropped work`: the message, without the
        /// error (which is in the metadata).
        var summary: String {
            valueType.isEmpty ? kind.description : "\(kind) of Promise<\(valueType)>"
        }
    }
#endif  // Logging
