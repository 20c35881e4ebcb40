internal import CUV

// The C callbacks of child processes and their pipes. A pidfd poll's `data` holds a reference
// to its ``ChildProcess``, a pipe's (or a terminal's poll's) to its ``OutputPipe``, a standard input's poll to its
// ``InputWriter`` and a SIGCHLD watch's to its ``ChildSignalWatch``, taken with
// `Unmanaged.passRetained` when the handle is initialized and released exactly once, in the
// close callback.

enum ProcessTrampolines {
    /// `uv_poll_cb` of a child's pidfd: the child exited (or the poll failed).
    static let exitReadable: @convention(c) (UnsafeMutablePointer<uv_poll_t>?, Int32, Int32) -> Void = { handle, _, _ in
        Unmanaged<ChildProcess>.fromOpaque(handle!.pointee.data).takeUnretainedValue().reapIfExited()
    }

    /// `uv_close` callback of a child's pidfd poll.
    static let exitPollClosed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        let child = Unmanaged<ChildProcess>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
        child.exitPollClosed()
    }

    /// `uv_signal_cb` of a loop's SIGCHLD watch.
    static let childSignal: @convention(c) (UnsafeMutablePointer<uv_signal_t>?, Int32) -> Void = { handle, _ in
        Unmanaged<ChildSignalWatch>.fromOpaque(handle!.pointee.data).takeUnretainedValue().core.childSignalArrived()
    }

    /// `uv_close` callback of a loop's SIGCHLD watch.
    static let childSignalClosed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        let watch = Unmanaged<ChildSignalWatch>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
        watch.core.handleClosed()
    }

    /// `uv_alloc_cb` of a pipe: its own buffer, reused by every read.
    static let allocate: @convention(c) (UnsafeMutablePointer<uv_handle_t>?, Int, UnsafeMutablePointer<uv_buf_t>?) -> Void = {
        handle, _, buffer in
        buffer!.pointee = Unmanaged<OutputPipe>.fromOpaque(handle!.pointee.data).takeUnretainedValue().readBuffer()
    }

    /// `uv_read_cb` of a pipe: bytes, or its end (`UV_EOF`) or an error (both negative).
    static let read: @convention(c) (UnsafeMutablePointer<uv_stream_t>?, Int, UnsafePointer<uv_buf_t>?) -> Void = { stream, count, _ in
        Unmanaged<OutputPipe>.fromOpaque(stream!.pointee.data).takeUnretainedValue().received(count)
    }

    /// `uv_poll_cb` of a terminal's master: there is output to read (or the poll failed).
    static let terminalReadable: @convention(c) (UnsafeMutablePointer<uv_poll_t>?, Int32, Int32) -> Void = { handle, status, _ in
        Unmanaged<OutputPipe>.fromOpaque(handle!.pointee.data).takeUnretainedValue().terminalReadable(status: status)
    }

    /// `uv_close` callback of a pipe (its `uv_pipe_t`, or a terminal's `uv_poll_t`).
    static let pipeClosed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        let pipe = Unmanaged<OutputPipe>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
        pipe.core.handleClosed()
    }

    /// `uv_poll_cb` of a child's standard input: there is room in the pipe again (or an error).
    static let inputWritable: @convention(c) (UnsafeMutablePointer<uv_poll_t>?, Int32, Int32) -> Void = { handle, status, _ in
        Unmanaged<InputWriter>.fromOpaque(handle!.pointee.data).takeUnretainedValue().writable(status: status)
    }

    /// `uv_close` callback of a standard input's poll.
    static let inputClosed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        let writer = Unmanaged<InputWriter>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
        writer.core.handleClosed()
    }
}
