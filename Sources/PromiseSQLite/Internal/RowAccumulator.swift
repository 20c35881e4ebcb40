/// The decoded rows of one query, collected without an `Array` per row.
///
/// `decodeAll` is generic over the row type and runs unspecialized, where each `Array.append`
/// looks up the metadata of `[T]` in the runtime's cache (about 450 instructions a row with
/// the append itself). This buffer needs only `T`'s own metadata, which the generic code
/// already has; the array is built once, at the end.
struct RowAccumulator<T>: ~Copyable {
    private var base: UnsafeMutablePointer<T>?
    private var count = 0
    private var capacity = 0

    init() {}

    deinit {
        guard let base else { return }
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Adds `value` at the end.
    @inline(__always)
    mutating func append(_ value: consuming T) {
        if count == capacity { grow() }
        (base! + count).initialize(to: value)
        count += 1
    }

    private mutating func grow() {
        let newCapacity = Swift.max(16, capacity * 2)
        let grown = UnsafeMutablePointer<T>.allocate(capacity: newCapacity)
        if let base {
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = grown
        capacity = newCapacity
    }

    /// The rows, moved into an array.
    consuming func array() -> [T] {
        let base = self.base
        let count = self.count
        discard self
        guard let base else { return [] }
        defer { base.deallocate() }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: base, count: count)
            initialized = count
        }
    }
}
