import Glibc

/// A small disk that really fills up, for the out-of-space tests: a size-limited tmpfs mounted
/// in a mount namespace of the helper process's own (`unshare -rm`). Nothing outside the helper
/// sees the mount, and it goes away when the helper exits, so the helper must check what is on
/// the disk itself and report it.
package enum SmallDisk {
    /// Whether this process may mount a tmpfs in a mount namespace of its own: root can, and
    /// so can anyone where unprivileged user namespaces are on.
    package static let available: Bool = {
        let probe = "d=$(mktemp -d) && mount -t tmpfs -o size=64k promise-probe \"$d\"; s=$?; umount \"$d\" 2>/dev/null; rmdir \"$d\"; exit $s"
        return system("/usr/bin/unshare -rm /bin/sh -c '\(probe)' >/dev/null 2>&1") == 0
    }()

    /// Why a test that needs ``available`` is skipped.
    package static let unavailableReason = "cannot mount a tmpfs here (unshare -rm, then mount -t tmpfs)"

    /// The start of a command line that mounts a tmpfs of `kibibytes` KiB on `mountPoint` (an
    /// empty directory) in a new mount namespace, then runs the command line that follows it.
    package static func launcher(mountingOn mountPoint: String, kibibytes: Int) -> [String] {
        let script = "mount -t tmpfs -o size=\(kibibytes)k promise-test \"$1\" && shift && exec \"$@\""
        return ["/usr/bin/unshare", "-rm", "/bin/sh", "-c", script, "sh", mountPoint]
    }
}
