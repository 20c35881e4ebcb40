/// A first-in, first-out queue with amortized O(1) `append` and `popFirst`: an array read from
/// a moving head, compacted once the consumed half outweighs the rest. A popped element is
/// released at once, not when the array is next compacted.
package struct FIFO<Element> {
    private var slots: [Element?] = []
    private var head = 0

    /// An empty queue.
    package init() {}

    /// How many elements wait.
    package var count: Int { slots.count - head }

    /// Whether no element waits.
    package var isEmpty: Bool { head == slots.count }

    /// Adds `element` at the back.
    ///
    /// - Parameter element: The element.
    package mutating func append(_ element: Element) {
        slots.append(element)
    }

    /// Removes and returns the front element, or `nil` when the queue is empty.
    ///
    /// - Returns: The oldest element.
    package mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head].take()
        head += 1
        if head == slots.count {
            // Keep a moderate buffer for the next burst; let a huge one go.
            slots.removeAll(keepingCapacity: slots.capacity <= 4096)
            head = 0
        } else if head >= 1024, head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes and returns every waiting element, oldest first.
    ///
    /// - Returns: The elements.
    package mutating func removeAll() -> [Element] {
        let elements = slots[head...].map { $0! }
        slots.removeAll()
        head = 0
        return elements
    }
}
