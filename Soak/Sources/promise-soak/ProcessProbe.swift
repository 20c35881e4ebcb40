import CSoakSupport
import Glibc

/// Reads this process's resident memory and open descriptors from `/proc`.
enum ProcessProbe {
    /// Resident set size in bytes: the second field of `/proc/self/statm`, in pages.
    static func residentBytes() -> Int {
        let text = readSmallFile("/proc/self/statm")
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes that malloc has handed out and not had back, over all arenas (`mallinfo2`):
    /// what the program holds, without the allocator's free lists and fragmentation.
    static func heapInUseBytes() -> Int {
        Int(soak_heap_in_use())
    }

    /// Returns the free memory malloc keeps in its arenas to the kernel (`malloc_trim(0)`).
    static func trimHeap() {
        soak_trim_heap()
    }

    /// How many threads the process has (`Threads:` in `/proc/self/status`).
    static func threadCount() -> Int {
        let text = readSmallFile("/proc/self/status", capacity: 4096)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return -1 }
        return Int(String(line.dropFirst("Threads:".count).filter(\.isNumber))) ?? -1
    }

    /// How many descriptors are open, not counting the one used to list them.
    static func descriptorCount() -> Int {
        descriptors().count
    }

    /// Every open descriptor and what it refers to (`readlink` of `/proc/self/fd/N`), not
    /// counting the one used to list them.
    static func descriptors() -> [Int32: String] {
        guard let directory = opendir("/proc/self/fd") else { return [:] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var result: [Int32: String] = [:]
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard let fd = Int32(name), fd != own else { continue }
            result[fd] = linkTarget("/proc/self/fd/\(name)")
        }
        return result
    }

    private static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return "?" }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readSmallFile(_ path: String, capacity: Int = 256) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
