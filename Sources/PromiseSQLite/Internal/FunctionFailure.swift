internal import Glibc

/// The Swift error behind the last failed call of a Swift SQL function on this thread, so the
/// statement's ``SQLiteError`` can carry it as ``SQLiteError/underlying``.
///
/// SQLite passes a function's failure on as a message only. The function runs on the thread
/// that steps the statement, and that thread builds the statement's error (``sqliteError(_:_:sql:)``)
/// right after the step returns: a thread-local slot hands the error over. The slot is taken
/// only when SQLite's message is the one recorded with it, and the next failure replaces it.
enum FunctionFailure {
    private final class Recorded {
        let message: String
        let error: any Error

        init(message: String, error: any Error) {
            self.message = message
            self.error = error
        }
    }

    /// `nil` if the process ran out of thread-local keys: errors then carry no underlying one.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { recorded in
            // Runs when a thread with a recorded failure ends.
            guard let recorded else { return }
            Unmanaged<AnyObject>.fromOpaque(recorded).release()
        }
        return status == 0 ? key : nil
    }()

    /// Records that a function failed the statement with `message` because it threw `error`.
    static func record(message: String, error: any Error) {
        guard let key else { return }
        clear()
        let recorded = Unmanaged.passRetained(Recorded(message: message, error: error) as AnyObject).toOpaque()
        pthread_setspecific(key, recorded)
    }

    /// The error recorded with `message` on this thread, if that is the last failure; the slot
    /// is emptied either way.
    static func take(message: String) -> (any Error)? {
        guard let key, let stored = pthread_getspecific(key) else { return nil }
        let recorded = Unmanaged<AnyObject>.fromOpaque(stored).takeUnretainedValue() as? Recorded
        let error = recorded?.message == message ? recorded?.error : nil
        clear()
        return error
    }

    private static func clear() {
        guard let key, let stored = pthread_getspecific(key) else { return }
        pthread_setspecific(key, nil)
        Unmanaged<AnyObject>.fromOpaque(stored).release()
    }
}
