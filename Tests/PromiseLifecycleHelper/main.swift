// Spawned by PromiseServiceLifecycleTests: a program that runs a UVLoop, a FileIOPool, a
// SQLiteDatabase and a CurlClient as services of one ServiceGroup, starts work on each, writes
// its pid once that work is in flight, and is sent SIGTERM by the test. It then prints what
// became of every piece of work, the order the services stopped in, and what it left open.
//
//   promise-lifecycle-helper sigterm <pid file> <directory>
//   promise-lifecycle-helper docc <directory>     the DocC landing page's program, run in
//                                                 <directory> (DocCExample.swift)
// Compiled only with the ServiceLifecycle trait, as the module under test is (`make test` enables it).
#if ServiceLifecycle

    import Glibc
    import Logging
    import PromiseCurl
    import PromiseFS
    import PromiseServiceLifecycle
    import PromiseSQLite
    import PromiseUV
    import ServiceLifecycle

    let arguments = CommandLine.arguments
    if arguments.count == 3, arguments[1] == "docc" {
        try await doccLandingPage(in: arguments[2])
        exit(0)
    }
    guard arguments.count == 4, arguments[1] == "sigterm" else {
        print("usage: promise-lifecycle-helper sigterm <pid file> <directory>")
        exit(2)
    }
    let pidFile = arguments[2]
    let directory = arguments[3]

    /// The order in which the services were asked to stop.
    final class StopLog: Sendable {
        private let names = Lock<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// A resource that notes when it is asked to stop, so the output shows the order.
    struct Recorded<Resource: GracefullyStoppable>: GracefullyStoppable {
        let name: String
        let resource: Resource
        let log: StopLog

        func stopGracefully() -> Promise<Void> {
            log.append(name)
            return resource.stopGracefully()
        }
    }

    /// The names in /proc/self/fd: the descriptors this process has open.
    func openDescriptors() -> Set<String> {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var names = Set<String>()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.insert(name) }
        }
        // The descriptor opendir itself holds is open only during this call.
        names.remove(String(dirfd(dir)))
        return names
    }

    /// The names (`comm`) of this process's threads.
    func threadNames() -> [String] {
        guard let dir = opendir("/proc/self/task") else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let id = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard id != ".", id != ".." else { continue }
            let fd = open("/proc/self/task/\(id)/comm", O_RDONLY)
            guard fd >= 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            if count > 0 { names.append(String(decoding: bytes[0..<count], as: UTF8.self).trimmingSuffix("\n")) }
        }
        return names
    }

    extension String {
        func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
    }

    /// A loopback listener that accepts connections and never answers: requests to it stay in
    /// flight until something stops them.
    func silentListener() -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 16)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// What descriptor `name` refers to (`socket:[…]`, `anon_inode:[eventfd]`, a path).
    func target(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    /// Writes this process's pid to `path` atomically: the test sends the signal once it is there.
    func announcePid(_ path: String) {
        let text = "\(getpid())\n"
        let fd = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, text.utf8.count) }
        close(fd)
        rename(path + ".tmp", path)
    }

    /// Announces the pid once the group runs its services, which it starts only after it has
    /// installed its signal handlers: a SIGTERM sent on the announcement is always caught.
    struct PidAnnouncer: Service {
        let path: String

        func run() async throws {
            announcePid(path)
            try? await gracefulShutdown()
        }
    }

    /// One lifecycle: the four resources as services of a group, work in flight on each, then a
    /// graceful shutdown: by SIGTERM from the test when `signalled`, else asked for from inside.
    /// Prints the report when `report` is set.
    func round(_ round: Int, signalled: Bool, report: Bool, listenerPort: UInt16) async throws {
        let prefix = directory + "/round\(round)"
        mkdir(prefix, 0o700)
        let loop = try UVLoop()
        try loop.startThread(named: "lc-loop")
        let pool = try FileIOPool(threads: 2)
        let files = PromiseFileSystem(pool: pool)
        var sqliteConfiguration = SQLiteConfiguration()
        sqliteConfiguration.threadName = "lc-sqlite"
        let db = SQLiteDatabase(path: prefix + "/app.sqlite", configuration: sqliteConfiguration)
        var curlConfiguration = CurlConfiguration()
        curlConfiguration.threadName = "lc-curl"
        let client = try CurlClient(configuration: curlConfiguration)

        // Work in flight on every resource when the shutdown comes.
        _ = try await db.execute("CREATE TABLE t(i INTEGER)").get()
        let inserts = (0..<200).map { db.execute("INSERT INTO t(i) VALUES (?)", [$0]) }
        let writes = (0..<20).map { files.writeFile(prefix + "/file\($0)", [UInt8](repeating: 7, count: 256 << 10)) }
        let requests = (0..<4).map { _ in client.get("http://127.0.0.1:\(listenerPort)/never") }
        let timer = loop.after(.seconds(3600))
        // The requests are on the wire (the listener has their connections queued) before the
        // shutdown is asked for.
        try await Task.sleep(for: .milliseconds(100))

        let stopOrder = StopLog()
        var logger = Logger(label: "promise-lifecycle-helper")
        logger.logLevel = .warning
        var services: [any Service] = [
            PromiseService(Recorded(name: "loop", resource: loop, log: stopOrder)),
            PromiseService(Recorded(name: "pool", resource: pool, log: stopOrder)),
            PromiseService(Recorded(name: "db", resource: db, log: stopOrder)),
            PromiseService(Recorded(name: "client", resource: client, log: stopOrder)),
        ]
        if signalled { services.insert(PidAnnouncer(path: pidFile), at: 0) }
        let group = ServiceGroup(
            services: services,
            gracefulShutdownSignals: signalled ? [.sigterm] : [],
            logger: logger
        )
        if !signalled {
            Task {
                try await Task.sleep(for: .milliseconds(50))
                await group.triggerGracefulShutdown()
            }
        }
        try await group.run()

        guard report else { return }
        // Everything has stopped.
        let everything: [any PromiseStatus] = inserts + writes + requests + [timer]
        print("stopped=\(stopOrder.all.joined(separator: ","))")
        print("pending=\(everything.filter(\.stillPending).count)")
        print("inserts fulfilled=\(inserts.filter(\.isFulfilled).count)")
        let writesDone = writes.filter(\.isFulfilled).count
        print("writes fulfilled=\(writesDone) rejected=\(writes.count - writesDone)")
        print("requests shutdown=\(requests.filter { $0.error.map { CurlError.Code.shutdown ~= $0 } == true }.count)")
        print("timer loopClosed=\(timer.error.map { UVError.Code.loopClosed ~= $0 } == true)")

        let reopened = SQLiteDatabase(path: prefix + "/app.sqlite")
        print("rows=\(try await reopened.scalar(Int.self, "SELECT count(*) FROM t").get() ?? -1)")
        print("integrity=\(try await reopened.scalar(String.self, "PRAGMA integrity_check").get() ?? "")")
        try await reopened.close().get()

        var leftovers: [String] = []
        if let dir = opendir(prefix) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.contains(".tmp") { leftovers.append(name) }
            }
            closedir(dir)
        }
        print("temporary files=\(leftovers.count)")
    }

    /// The threads the resources started (all named `lc-…`), once they have had a moment to exit.
    func resourceThreads() -> [String] {
        var ours = threadNames().filter { $0.hasPrefix("lc-") }
        for _ in 0..<200 where !ours.isEmpty {
            usleep(10_000)
            ours = threadNames().filter { $0.hasPrefix("lc-") }
        }
        return ours.sorted()
    }

    let listener = silentListener()
    // A first lifecycle, shut down from inside, lets the runtime open what it keeps for the
    // process's lifetime (Dispatch's epoll and timer descriptors, libuv's global signal pipe); a
    // second, signalled one must then open nothing that outlives it.
    try await round(1, signalled: false, report: false, listenerPort: listener.port)
    let descriptorsBefore = openDescriptors()
    try await round(2, signalled: true, report: true, listenerPort: listener.port)
    print("threads left=\(resourceThreads())")
    print("descriptors leaked=\(openDescriptors().subtracting(descriptorsBefore).map(target).sorted())")
    close(listener.fd)

    /// What the report needs of a promise of any type.
    protocol PromiseStatus {
        var stillPending: Bool { get }
    }

    extension Promise: PromiseStatus {
        var stillPending: Bool { isPending }
    }
#endif  // ServiceLifecycle
