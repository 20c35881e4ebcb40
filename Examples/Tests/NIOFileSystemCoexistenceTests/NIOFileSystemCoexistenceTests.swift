import NIOCore
import NIOFileSystem
import PromiseFS
import Testing

// This file imports swift-nio's file system module (`NIOFileSystem`; `NIOFS` in later
// swift-nio releases, with the same names) and PromiseFS together, as a SwiftNIO server that
// adopts PromiseFS does, and spells the names of both without a module prefix. It compiles
// only while no PromiseFS type shares a name with that module or with the SystemPackage types
// it re-exports; the test then checks that the two libraries see the same file the same way.

@Suite struct NIOFileSystemCoexistenceTests {
    @Test func bothLibrariesSeeTheSameFileThroughUnqualifiedNames() async throws {
        let nio: FileSystem = .shared
        let fs = PromiseFileSystem()
        let directory: String = try await fs.createTemporaryDirectory(prefix: "coexistence").get()
        let path = directory + "/data.bin"
        let bytes: [UInt8] = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }

        let writeOptions: FSWriteOptions = FSWriteOptions(mode: [.ownerRead, .ownerWrite])
        try await fs.writeFile(path, bytes, options: writeOptions).get()

        let ours: FSFileInfo = try await fs.stat(path).get()
        let theirs: FileInfo? = try await nio.info(forFileAt: FilePath(path), infoAboutSymbolicLink: false)
        let theirInfo = try #require(theirs)
        #expect(ours.size == theirInfo.size)
        #expect(ours.kind == FSFileKind.regular)
        #expect(theirInfo.type == FileType.regular)
        let ourPermissions: FSPermissions = ours.permissions
        let theirPermissions: FilePermissions = theirInfo.permissions
        #expect(ourPermissions.rawValue == UInt32(theirPermissions.rawValue))
        #expect(ourPermissions == [.ownerRead, .ownerWrite])

        let readBack: ByteBuffer = try await nio.withFileHandle(
            forReadingAt: FilePath(path), options: OpenOptions.Read()
        ) { handle in
            try await handle.readToEnd(maximumSizeAllowed: .kilobytes(8))
        }
        #expect(Array(readBack.readableBytesView) == bytes)

        let openOptions: FSOpenOptions = .read
        let file = try await fs.open(path, options: openOptions).get()
        var chunks: [UInt8] = []
        for try await chunk in file.chunks(size: 1000) { chunks += chunk }
        try await file.close().get()
        #expect(chunks == bytes)

        let ourEntries: [FSDirectoryEntry] = try await fs.listDirectory(directory).get()
        let theirEntries: [DirectoryEntry] = try await nio.withDirectoryHandle(atPath: FilePath(directory)) { handle in
            var entries: [DirectoryEntry] = []
            for try await entry in handle.listContents() { entries.append(entry) }
            return entries
        }
        #expect(ourEntries.map(\.relativePath) == ["data.bin"])
        #expect(theirEntries.map(\.name.string) == ["data.bin"])

        try await fs.remove(directory, recursive: true).get()
        #expect(try await nio.info(forFileAt: FilePath(directory), infoAboutSymbolicLink: true) == nil)
    }
}
