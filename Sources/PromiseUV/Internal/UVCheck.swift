internal import CUV

/// Throws a ``UVError`` for a negative libuv status; the one place C status codes become errors.
///
/// - Parameters:
///   - status: What the libuv call returned.
///   - operation: The libuv function, such as `uv_loop_init`.
///   - detail: What was being done, for the error's description.
/// - Returns: `status`, when it is not an error.
@discardableResult
func uvCheck(_ status: Int32, _ operation: String, detail: String = "") throws(UVError) -> Int32 {
    if status < 0 {
        throw UVError(UVError.Code(uvCode: status), operation: operation, detail: detail)
    }
    return status
}

/// `uv_err_name_r`: unlike `uv_err_name`, it does not leak a string for unknown codes.
func libuvName(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        _ = uv_err_name_r(code, buffer.baseAddress, buffer.count)
        return String(cString: buffer.baseAddress!)
    }
}

/// `uv_strerror_r`: unlike `uv_strerror`, it does not leak a string for unknown codes.
func libuvMessage(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        _ = uv_strerror_r(code, buffer.baseAddress, buffer.count)
        return String(cString: buffer.baseAddress!)
    }
}
