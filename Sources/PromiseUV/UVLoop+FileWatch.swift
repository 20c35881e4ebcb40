import PromiseCore

extension UVLoop {
    /// A promise of the next change to the file or directory at `path`, fulfilled on the
    /// loop thread.
    ///
    /// ```swift
    /// let change = try loop.run(until: loop.nextChange(of: "\(dir)/config.json"))
    /// print(change)   // rename /tmp/…/config.json (exists, 1 event)
    /// ```
    ///
    /// A directory is watched itself: a change to any entry in it fulfils the promise, and
    /// with `recursive`, a change to any entry below it, at any depth. Any other path is
    /// watched through its directory, by name, so the watch sees the file being replaced by a
    /// rename (an atomic write, which is one change), removed, or created again. The article
    /// <doc:WatchingFiles> says what Linux reports and what it cannot.
    ///
    /// - Parameters:
    ///   - path: The file or directory to watch; it must exist.
    ///   - recursive: Whether a directory's subdirectories are watched too, at every depth,
    ///     those created or moved in while it is watched included (Node's `recursive: true`).
    ///     Each directory takes one of the user's inotify watches; the tree is listed on the
    ///     loop thread when the watch starts and whenever a directory appears. For a file,
    ///     it changes nothing. See <doc:WatchingFiles#Watching-a-tree>.
    ///   - keepsLoopAlive: Whether the pending watch keeps ``run()`` going (the default, as
    ///     Node's `fs.watch` does). Pass `false` for a watch that must not keep a program alive.
    /// - Returns: A promise fulfilled with the change on the loop thread. Cancelling it stops
    ///   the watch. Rejected with ``UVError/Code-swift.struct/noSuchFileOrDirectory`` when
    ///   `path` does not exist (or its directory is removed while watched),
    ///   ``UVError/Code-swift.struct/watchLimitReached`` when this user's inotify watches are
    ///   all taken, another ``UVError`` when the kernel refuses the watch, and
    ///   ``UVError/Code-swift.struct/loopClosed`` when the loop is shut down (or deallocated)
    ///   first.
    public func nextChange(of path: String, recursive: Bool = false, keepsLoopAlive: Bool = true) -> Promise<UVFileChange> {
        let promise = Promise<UVFileChange>.pending(resolvedOn: core.contextID)
        let contextID = core.contextID
        let watch = FileWatchHandle(
            core: core, path: path, operation: "nextChange", keepsLoopAlive: keepsLoopAlive, recursive: recursive,
            consumer: FileWatch.Consumer(
                deliver: { changes in
                    AdapterSupport.runTurn(contextID) { promise.resolveFromLibrary(.success(changes[0])) }
                    return false
                },
                end: { error in if let error { promise.reject(error) } }
            ))
        promise.onCancelFromLibrary { watch.cancel() }
        return promise
    }

    /// Calls `body` on the loop thread with each change to the file or directory at `path`,
    /// until the returned promise is cancelled.
    ///
    /// ```swift
    /// let watching = loop.watchChanges(of: configPath) { change in
    ///     if change.exists { reload(change.path) }
    /// }
    /// // …
    /// watching.cancel()     // stops the watch
    /// ```
    ///
    /// What is watched is as for ``nextChange(of:recursive:keepsLoopAlive:)``. Changes that the kernel
    /// reports before `body` has seen the previous ones are merged, one per name (see
    /// ``UVFileChange/count``), so a burst of writes costs a few calls, not one per write,
    /// and a watch holds a bounded number of waiting changes (see <doc:WatchingFiles>).
    ///
    /// - Parameters:
    ///   - path: The file or directory to watch; it must exist.
    ///   - recursive: Whether a directory's subdirectories are watched too, at every depth
    ///     (see ``nextChange(of:recursive:keepsLoopAlive:)``).
    ///   - keepsLoopAlive: Whether the watch keeps ``run()`` going (the default).
    ///   - body: Runs on the loop thread with each change, in the order of each name's first
    ///     event.
    /// - Returns: A promise that stays pending while the watch runs: cancel it to stop the
    ///   watch (no call of `body` starts after the loop has processed the cancellation,
    ///   at once on the loop thread). It is rejected when the watch cannot start or ends
    ///   on its own, with the errors of ``nextChange(of:recursive:keepsLoopAlive:)``.
    public func watchChanges(
        of path: String,
        recursive: Bool = false,
        keepsLoopAlive: Bool = true,
        _ body: @escaping @Sendable (UVFileChange) -> Void
    ) -> Promise<Void> {
        let promise = Promise<Void>.pending(resolvedOn: core.contextID)
        let contextID = core.contextID
        let watch = FileWatchHandle(
            core: core, path: path, operation: "watchChanges", keepsLoopAlive: keepsLoopAlive, recursive: recursive,
            consumer: FileWatch.Consumer(
                deliver: { changes in
                    AdapterSupport.runTurn(contextID) {
                        // A `body` that cancels the watch stops the rest of the batch too.
                        for change in changes {
                            guard promise.isPending else { break }
                            body(change)
                        }
                    }
                    return true
                },
                end: { error in if let error { promise.reject(error) } }
            ))
        promise.onCancelFromLibrary { watch.cancel() }
        return promise
    }

    /// The changes to the file or directory at `path`, as an asynchronous sequence.
    ///
    /// ```swift
    /// for try await change in loop.changes(of: logDirectory) {
    ///     print(change.name ?? "many entries", change.events)
    /// }
    /// ```
    ///
    /// Each iterator starts its own watch when it is made and stops it when it is dropped
    /// (a `break`) or when the iterating task is cancelled; the sequence then ends. What is
    /// watched is as for ``nextChange(of:recursive:keepsLoopAlive:)``; changes wait, merged one per
    /// name, until the consumer reads them, so a slow consumer holds a bounded number.
    ///
    /// - Parameters:
    ///   - path: The file or directory to watch; it must exist.
    ///   - recursive: Whether a directory's subdirectories are watched too, at every depth
    ///     (see ``nextChange(of:recursive:keepsLoopAlive:)``).
    ///   - keepsLoopAlive: Whether the watch keeps ``run()`` going (the default).
    /// - Returns: The sequence. Its iterator throws the errors of
    ///   ``nextChange(of:recursive:keepsLoopAlive:)`` (once, after the changes that came before),
    ///   ``UVError/Code-swift.struct/loopClosed`` among them when the loop shuts down.
    public func changes(of path: String, recursive: Bool = false, keepsLoopAlive: Bool = true) -> UVFileChanges {
        UVFileChanges(loop: self, path: path, recursive: recursive, keepsLoopAlive: keepsLoopAlive)
    }
}
