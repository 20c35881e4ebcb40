internal import Glibc

/// Why a connection to a Unix-domain socket failed, in the words a user acts on: libcurl's
/// own message names only the errno.
enum UnixSocketProbe {
    /// Describes a failed connect to `path`, looking at what is there (a `stat` of the path,
    /// made only once the connect has failed).
    ///
    /// - Parameters:
    ///   - path: The ``CurlRequest/unixSocketPath``.
    ///   - error: `CURLINFO_OS_ERRNO` of the failed connect.
    /// - Returns: One sentence naming the path and what is wrong with it.
    static func describeFailedConnect(to path: String, errno error: Int32) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let reason = Glibc.errno
            if reason == ENOENT { return "no Unix socket at '\(path)': nothing is there" }
            if reason == EACCES { return "cannot reach the Unix socket '\(path)': permission denied on a directory of its path" }
            return "cannot reach the Unix socket '\(path)': \(String(cString: strerror(reason)))"
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            return "'\(path)' is not a Unix socket (it is a \(kind(of: status.st_mode)))"
        }
        switch error {
        case ECONNREFUSED: return "nothing accepts connections on the Unix socket '\(path)' (a socket file left by a server that stopped?)"
        case EACCES: return "permission denied connecting to the Unix socket '\(path)'"
        default: return "connecting to the Unix socket '\(path)' failed"
        }
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "regular file"
        case S_IFDIR: "directory"
        case S_IFIFO: "FIFO"
        case S_IFLNK: "symbolic link"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        default: "file of another kind"
        }
    }
}
