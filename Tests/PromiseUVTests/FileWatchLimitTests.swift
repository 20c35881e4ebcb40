import Glibc
import PromiseTestSupport
import Testing

/// The per-user inotify watch limit, hit for real: a helper lowers it to 3 in a user namespace
/// of its own (the machine's limit is untouched) and starts 5 watches.
extension InotifyTests {
    @Suite struct FileWatchLimitTests {
        /// Whether this process may make a user namespace (`unshare -r`).
        static let userNamespaces = system("/usr/bin/unshare -r /bin/true >/dev/null 2>&1") == 0

        @Test(.enabled(if: userNamespaces, "cannot make a user namespace here (unshare -r)"))
        func watchesPastTheLimitFailWithWatchLimitReached() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let (status, output) = try await runHelperProgram("promiseuv-watch-helper", [dir.path, "3", "5"])
            #expect(status == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(output)")
            #expect(lines.prefix(3).allSatisfy { $0 == "pending" }, "\(output)")
            for line in lines.dropFirst(3) {
                #expect(line.hasPrefix("watchLimitReached UVError.watchLimitReached"), "\(line)")
                #expect(line.contains("limit 3 in this user namespace"), "\(line)")
                #expect(line.contains("sysctl fs.inotify.max_user_watches"), "\(line)")
            }
        }
    }
}
