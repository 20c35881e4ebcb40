import Glibc
import PromiseTestSupport
import Testing

/// The per-user inotify watch limit, hit for real: a helper lowers it to 3 in a user namespace
/// of its own (the machine's limit is untouched) and starts 5 watches. And the descriptors of
/// 1 000 watches, counted in a helper process where no other test opens any.
extension InotifyTests {
    @Suite struct FileWatchLimitTests {
        @Test func aThousandWatchesStartedAndCancelledLeaveNoDescriptor() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let (status, output) = try await runHelperProgram("promiseuv-watch-helper", ["churn", dir.path])
            #expect(status == 0, "\(output)")
            // The helper's line is "before N after-1 N …"; a sanitizer's report may follow it.
            let report = output.split(separator: "\n").first { $0.hasPrefix("before ") } ?? ""
            let words = report.split(separator: " ").map(String.init)
            var counts: [String: Int] = [:]
            for index in stride(from: 0, to: words.count - 1, by: 2) { counts[words[index]] = Int(words[index + 1]) ?? -1 }
            let before = try #require(counts["before"], "\(output)")
            // The loop's own four (epoll, the wake-up eventfd, libuv's signal pipe) and the one
            // inotify descriptor its first watch opened.
            #expect(counts["after-1"] == before + 5, "\(output)")
            #expect(counts["after-1000"] == counts["after-1"], "\(output)")
            #expect(counts["after-shutdown"] == before, "\(output)")
        }

        /// Whether this process may make a user namespace (`unshare -r`).
        static let userNamespaces = system("/usr/bin/unshare -r /bin/true >/dev/null 2>&1") == 0

        @Test(.enabled(if: userNamespaces, "cannot make a user namespace here (unshare -r)"))
        func watchesPastTheLimitFailWithWatchLimitReached() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let (status, output) = try await runHelperProgram("promiseuv-watch-helper", [dir.path, "3", "5"])
            #expect(status == 0, "\(output)")
            // One line per watch; under a sanitizer its summary may follow them.
            let lines = output.split(separator: "\n").map(String.init).filter { $0 == "pending" || $0.contains("UVError") }
            #expect(lines.count == 5, "\(output)")
            #expect(lines.prefix(3).allSatisfy { $0 == "pending" }, "\(output)")
            for line in lines.dropFirst(3) {
                #expect(line.hasPrefix("watchLimitReached UVError.watchLimitReached"), "\(line)")
                #expect(line.contains("limit 3 in this user namespace"), "\(line)")
                #expect(line.contains("sysctl fs.inotify.max_user_watches"), "\(line)")
            }
        }

        @Test(.enabled(if: userNamespaces, "cannot make a user namespace here (unshare -r)"))
        func aRecursiveWatchOfATreePastTheLimitFailsWithWatchLimitReached() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            // The directory and its 5 subdirectories need 6 watches; 3 are allowed.
            let (status, output) = try await runHelperProgram("promiseuv-watch-helper", [dir.path, "3", "5", "tree"])
            #expect(status == 0, "\(output)")
            let line = try #require(output.split(separator: "\n").map(String.init).first { $0.contains("UVError") || $0 == "pending" }, "\(output)")
            #expect(line.hasPrefix("watchLimitReached UVError.watchLimitReached"), "\(line)")
            #expect(line.contains("inside the recursively watched directory '\(dir.path)' (3 directories watched)"), "\(line)")
            #expect(line.contains("limit 3 in this user namespace"), "\(line)")
        }
    }
}
