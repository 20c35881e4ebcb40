internal import Glibc
internal import PromiseSystem

/// What the file system says about a path SQLite could not open, as a clause for the error
/// message: SQLite's own text ("unable to open database file") never says which part failed.
///
/// - Parameters:
///   - path: The path as the caller gave it.
///   - creates: Whether the configuration creates a missing file.
/// - Returns: A clause such as `the directory '/srv/data' does not exist`, or `nil` when the
///   path looks openable and the cause lies elsewhere.
func openFailureHint(path: String, creates: Bool) -> String? {
    let directory = String(decoding: AdapterPaths.split(path.utf8).directory, as: UTF8.self)
    var info = stat()
    if stat(path, &info) == 0 {
        if info.st_mode & S_IFMT == S_IFDIR { return "it is a directory" }
        if access(path, R_OK) != 0 { return "no permission to read it (\(ErrnoText.sentence(errno)))" }
        if access(directory, W_OK | X_OK) != 0 {
            return "the directory '\(directory)' is not writable, and SQLite creates its journal there"
        }
        return nil
    }
    let fileErrno = errno
    var directoryInfo = stat()
    guard stat(directory, &directoryInfo) == 0 else {
        return errno == ENOENT
            ? "the directory '\(directory)' does not exist"
            : "the directory '\(directory)' cannot be reached (\(ErrnoText.sentence(errno)))"
    }
    guard directoryInfo.st_mode & S_IFMT == S_IFDIR else { return "'\(directory)' is not a directory" }
    guard fileErrno == ENOENT else { return "the file cannot be reached (\(ErrnoText.sentence(fileErrno)))" }
    if !creates { return "the file does not exist, and this configuration does not create it; access .readWriteCreate does" }
    if access(directory, W_OK | X_OK) != 0 { return "the file does not exist, and the directory '\(directory)' is not writable" }
    return nil
}
