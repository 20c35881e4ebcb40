package import PromiseCore
package import Testing

/// A cause for ``expectTheErrorModel(_:sourceLocation:)`` to wrap.
package struct SampleCause: Error, CustomStringConvertible {
    package let detail: String
    package init(_ detail: String) { self.detail = detail }
    package var description: String { "sample cause: \(detail)" }
}

/// Checks what every product's error promises (``PromiseLibraryError``): a message that is
/// the sentence shown in the description, log fields, the underlying error kept, and
/// equality and hashing that see code, message, context and cause.
///
/// - Parameters:
///   - make: Makes the same error each time, with the underlying error it is given.
package func expectTheErrorModel<E: PromiseLibraryError>(
    _ make: ((any Error)?) -> E, sourceLocation: SourceLocation = #_sourceLocation
) {
    let plain = make(nil)
    let caused = make(SampleCause("disk on fire"))
    #expect(!plain.message.isEmpty, "an empty message", sourceLocation: sourceLocation)
    #expect(plain.description.contains(plain.message), "the description leaves the message out: \(plain.description)", sourceLocation: sourceLocation)
    // The one description format: `Type.code (C code): message — context`.
    let head = "\(E.self).\(plain.code)"
    #expect(
        plain.description.hasPrefix(head + ": " + plain.message) || plain.description.hasPrefix(head + " ("),
        "the description does not start with \(head): \(plain.description)", sourceLocation: sourceLocation)
    #expect(!plain.description.contains("\n"), "the description is not one line", sourceLocation: sourceLocation)
    #expect(!plain.logFields.isEmpty, sourceLocation: sourceLocation)
    #expect(plain.underlying == nil, sourceLocation: sourceLocation)
    #expect((caused.underlying as? SampleCause)?.detail == "disk on fire", "the underlying error was not kept", sourceLocation: sourceLocation)
    #expect(plain == make(nil) && caused == make(SampleCause("disk on fire")), "equal errors compare unequal", sourceLocation: sourceLocation)
    #expect(plain.hashValue == make(nil).hashValue && caused.hashValue == make(SampleCause("disk on fire")).hashValue, sourceLocation: sourceLocation)
    #expect(plain != caused && caused != make(SampleCause("flood")), "the underlying error does not count in ==", sourceLocation: sourceLocation)
    #expect(Set([plain, caused, make(nil)]).count == 2, sourceLocation: sourceLocation)
    // Taken as one, without knowing the product.
    let erased: any Error = caused
    let asModel = erased as? any PromiseLibraryError
    #expect(asModel?.message == caused.message && asModel?.underlying != nil, sourceLocation: sourceLocation)
}
