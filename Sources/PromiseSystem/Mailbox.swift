/// The inbox of a thread that owns something (a libcurl multi handle, a SQLite connection, a
/// libuv loop): other threads post messages, the owner takes them all at once, and the owner
/// is woken only when it sleeps, once, however many messages arrive meanwhile.
///
/// A pure value, kept under the owner's lock. ``post(_:)`` says whether the poster must wake the
/// owner; the poster does so after releasing the lock, through whatever the owner sleeps on (a
/// semaphore, `curl_multi_wakeup`, `uv_async_send`).
///
/// Inlinable, so that each owner's mailbox is specialized for its message type: unspecialized,
/// every call looks up the metadata of the array and its optional element.
@usableFromInline
package struct Mailbox<Message> {
    @usableFromInline var inbox: [Message] = []
    @usableFromInline var ownerAsleep = false

    /// An empty inbox.
    ///
    /// - Parameter ownerAsleep: Whether the owner starts out waiting, so that the first post
    ///   wakes it (an event loop already polling); by default it counts as awake until it
    ///   first finds nothing to do.
    @inlinable
    package init(ownerAsleep: Bool = false) {
        self.ownerAsleep = ownerAsleep
    }

    /// How many messages wait.
    @inlinable
    package var count: Int { inbox.count }

    /// The message that has waited longest, if any.
    @inlinable
    package var first: Message? { inbox.first }

    /// Takes the message that has waited longest, for the poster to handle itself; the
    /// owner's state is unchanged.
    ///
    /// - Returns: The message, or `nil` when none waits.
    @inlinable
    package mutating func takeFirst() -> Message? {
        inbox.isEmpty ? nil : inbox.removeFirst()
    }

    /// Adds `message`.
    ///
    /// - Parameter message: The message.
    /// - Returns: `true` when the owner sleeps and must be woken: for the first message after
    ///   it went to sleep only.
    @inlinable
    package mutating func post(_ message: Message) -> Bool {
        inbox.append(message)
        defer { ownerAsleep = false }
        return ownerAsleep
    }

    /// The owner takes every waiting message, in the order posted, by swapping them into
    /// `batch` (which the owner emptied, keeping its capacity). With none waiting, the owner
    /// counts as asleep from now on and must sleep until woken.
    ///
    /// - Parameter batch: Receives the messages; must be empty.
    /// - Returns: `false` when there was nothing: go to sleep.
    @inlinable
    package mutating func takeAll(into batch: inout [Message]) -> Bool {
        precondition(batch.isEmpty, "Mailbox.takeAll needs an empty batch")
        guard !inbox.isEmpty else {
            ownerAsleep = true
            return false
        }
        swap(&batch, &inbox)
        return true
    }

    /// The owner takes every waiting message, if any, and stays awake when there is none (it
    /// keeps checking for a while before it sleeps), so posts meanwhile do not wake it.
    ///
    /// - Parameter batch: Receives the messages, in the order posted; must be empty.
    /// - Returns: `false` when there was nothing.
    @inlinable
    package mutating func takeAllStayingAwake(into batch: inout [Message]) -> Bool {
        precondition(batch.isEmpty, "Mailbox.takeAllStayingAwake needs an empty batch")
        guard !inbox.isEmpty else { return false }
        swap(&batch, &inbox)
        return true
    }

    /// The owner takes every waiting message and goes back to a wait without looking at the
    /// mailbox again (an event loop returning to its poll), so any later post must wake it.
    ///
    /// - Parameter batch: Receives the messages, in the order posted; must be empty.
    /// - Returns: Whether the owner had been woken (or was awake) since it last went to wait.
    @discardableResult
    @inlinable
    package mutating func takeAllBeforeWaiting(into batch: inout [Message]) -> Bool {
        precondition(batch.isEmpty, "Mailbox.takeAllBeforeWaiting needs an empty batch")
        swap(&batch, &inbox)
        defer { ownerAsleep = true }
        return !ownerAsleep
    }

    /// Asks for a wake-up without a message (the owner must re-read something else).
    ///
    /// - Returns: `true` when the owner sleeps and must be woken; a wake-up already requested
    ///   since it went to sleep makes this `false`.
    @inlinable
    package mutating func requestWake() -> Bool {
        defer { ownerAsleep = false }
        return ownerAsleep
    }

    /// Counts the owner as asleep again when no message waits (it was woken, but a poster
    /// handled the message itself and the owner went back to its wait without looking), so the
    /// next post wakes it.
    ///
    /// - Returns: `false` when messages wait: the owner must be woken to take them.
    @inlinable
    package mutating func markOwnerAsleepIfEmpty() -> Bool {
        guard inbox.isEmpty else { return false }
        ownerAsleep = true
        return true
    }

    /// Whether the owner counts as asleep (it found no message and no post has woken it).
    @inlinable
    package var isOwnerAsleep: Bool { ownerAsleep }
}
