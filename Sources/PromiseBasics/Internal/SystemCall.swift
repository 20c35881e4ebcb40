internal import Glibc

/// The library's one layer between a system call and a signal that interrupts it.
///
/// A blocking call (`read`, `write`, `open` of a FIFO, `poll`, `nanosleep`, `fchmod` on some
/// file systems) fails with `EINTR` when a signal handler runs on its thread, even though
/// nothing went wrong. Every call the library retries for that reason goes through here, so
/// the rule is written once: retry `EINTR`, never `close` (on Linux the descriptor is gone
/// whatever `close` reports), keep `errno` of a real failure for the caller to read.
/// `SystemCallTests.noOtherFileRetriesInterruptedCalls` fails when a file elsewhere in
/// `Sources/` handles `EINTR` itself.
package enum SystemCall {
    /// Calls `body` again while it fails with `EINTR`, and returns what it returned last.
    ///
    /// - Parameter body: A system call that returns `-1` and sets `errno` on failure.
    /// - Returns: The call's result: a value, or `-1` with `errno` set to the failure, which
    ///   is never `EINTR`.
    package static func retryingInterrupts(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// ``retryingInterrupts(_:)-(()->Int32)`` for a call that returns a count (`read`, `write`).
    package static func retryingInterrupts(_ body: () -> Int) -> Int {
        while true {
            let result = body()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// Writes every byte of `bytes` to `descriptor`, continuing after a short write and after
    /// `EINTR`.
    ///
    /// - Parameters:
    ///   - descriptor: An open descriptor.
    ///   - bytes: What to write.
    /// - Returns: `nil` once every byte is written; otherwise the `errno` of the write that
    ///   failed (`EAGAIN` from a non-blocking descriptor that is full, `EPIPE`, `ENOSPC` …),
    ///   with the bytes before it written.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = retryingInterrupts { Glibc.write(descriptor, base + offset, bytes.count - offset) }
            if written < 0 { return errno }
            offset += written
        }
        return nil
    }

    /// Reads up to `buffer.count` bytes from `descriptor`, retrying `EINTR`.
    ///
    /// - Parameters:
    ///   - descriptor: An open descriptor.
    ///   - buffer: Where the bytes go.
    /// - Returns: The number of bytes read (0 at the end of the file), or the `errno` of the
    ///   failure as `.failure`.
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemCallError> {
        let count = retryingInterrupts { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        return count >= 0 ? .success(count) : .failure(SystemCallError(errno: errno))
    }

    /// Closes `descriptor` once, never retried: on Linux the descriptor is released even when
    /// `close` reports `EINTR`, and a retry could close a descriptor another thread just opened.
    ///
    /// - Parameter descriptor: An open descriptor.
    /// - Returns: The `errno` of a failure that may have lost written data (`EIO`, `ENOSPC`
    ///   on a network file system), or `nil`; `EINTR` is not one.
    @discardableResult
    package static func close(_ descriptor: Int32) -> Int32? {
        guard Glibc.close(descriptor) != 0, errno != EINTR else { return nil }
        return errno
    }

    /// Sleeps for `nanoseconds`, going back to sleep for the time left after a signal.
    ///
    /// - Parameter nanoseconds: How long; nothing happens for zero or less.
    package static func sleep(nanoseconds: Int64) {
        guard nanoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}

/// A system call's failure: the `errno` it left.
package struct SystemCallError: Error, Equatable {
    /// The `errno` value.
    package let errno: Int32

    /// Wraps an `errno` value.
    ///
    /// - Parameter errno: The value the failing call left in `errno`.
    package init(errno: Int32) {
        self.errno = errno
    }
}
