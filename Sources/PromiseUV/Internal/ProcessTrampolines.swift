internal import CUV

// The C callbacks of child processes and their pipes. A process handle's `data` holds a
// reference to its ``ChildProcess``, a pipe's to its ``OutputPipe`` and a standard input's poll
// to its ``InputWriter``, taken with
// `Unmanaged.passRetained` before `uv_spawn` and released exactly once, in the close callback.

enum ProcessTrampolines {
    /// `uv_exit_cb`: libuv reaped the child (`waitpid` on its own pid only).
    static let exited: @convention(c) (UnsafeMutablePointer<uv_process_t>?, Int64, Int32) -> Void = { handle, status, signal in
        Unmanaged<ChildProcess>.fromOpaque(handle!.pointee.data).takeUnretainedValue().exited(status: status, signal: signal)
    }

    /// `uv_close` callback of a process handle.
    static let closed: @convention(c) (UnsafeMutablePointer<uv_handle_t>?) -> Void = { handle in
        let child = Unmanaged<ChildProcess>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        handle!.pointee.data = nil
        UnsafeMutableRawPointer(handle!).deallocate()
        child.core.handleClosed()
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

    /// `uv_close` callback of a pipe.
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
