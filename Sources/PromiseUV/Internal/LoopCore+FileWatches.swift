internal import CUV

// LoopCore's file watches (``UVLoop/nextChange(of:recursive:keepsLoopAlive:)`` and the rest), split
// from LoopCore.swift by concern. Each watch owns a `uv_fs_event_t` on this loop; the loop
// keeps the live ones so that shutdown can end them.
extension LoopCore {
    /// Shutdown (loop thread): ends every watch with ``UVError/Code-swift.struct/loopClosed``
    /// and closes its handle, whose close callback runs before `uv_run` returns.
    ///
    /// - Returns: How many watches were live.
    func endFileWatches() -> Int {
        let live = Array(fileWatches.values)
        for watch in live {
            watch.stop(UVError(.loopClosed, operation: watch.operation, detail: "the UVLoop was shut down while watching '\(watch.path)'"))
        }
        return live.count
    }

    /// How many watches are live (loop thread; for tests).
    var liveFileWatchCount: Int { fileWatches.count }

    /// The loop's inotify descriptor, or -1 before its first watch (loop thread; for tests):
    /// libuv opens one per loop on the first `uv_fs_event_start` and closes it with the loop.
    var inotifyDescriptor: Int32 { loop.pointee.inotify_fd }
}

extension Trampolines {
    /// `uv_fs_event_t` callback: libuv read an inotify event for the watch's directory.
    static let fileEvent: @convention(c) (UnsafeMutablePointer<uv_fs_event_t>?, UnsafePointer<CChar>?, Int32, Int32) -> Void = {
        handle, name, events, status in
        Unmanaged<FileWatch>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            .onEvent(name: name, events: events, status: status)
    }

    /// `uv_fs_event_t` callback of a directory below a recursive watch's directory.
    static let subdirectoryEvent: @convention(c) (UnsafeMutablePointer<uv_fs_event_t>?, UnsafePointer<CChar>?, Int32, Int32) -> Void = {
        handle, name, events, status in
        let subdirectory = Unmanaged<FileWatch.Subdirectory>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
        subdirectory.watch.onEvent(in: subdirectory, name: name, events: events, status: status)
    }

    /// `uv_close` callback of a subdirectory's handle: releases the reference the handle held
    /// and frees the handle's memory.
    static let subdirectoryClosed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        Unmanaged<FileWatch.Subdirectory>.fromOpaque(handle!.pointee.data).release()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
    }

    /// `uv_close` callback of a watch's handle: releases the reference the handle held and
    /// frees the handle's memory, which libuv no longer touches.
    static let fileWatchClosed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        Unmanaged<FileWatch>.fromOpaque(handle!.pointee.data).release()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
    }
}
