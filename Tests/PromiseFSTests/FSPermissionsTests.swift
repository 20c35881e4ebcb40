import PromiseFS
import Testing

/// `FSPermissions`: named bits, octal literals, `ls`-style text, and real files.
@Suite struct FSPermissionsTests {
    @Test func namedBitsAndOctalLiteralsAreTheSame() {
        let rwr: FSPermissions = [.ownerRead, .ownerWrite, .groupRead, .otherRead]
        #expect(rwr == 0o644 && rwr.rawValue == 0o644)
        #expect(FSPermissions.ownerAll.union(.groupAll).union(.otherAll) == 0o777)
        #expect(FSPermissions(rawValue: 0o100_644) == 0o644, "the file type bits are dropped")
        #expect(FSPermissions(0o4755).contains(.setUserID) && !FSPermissions(0o755).contains(.setUserID))
    }

    @Test func theDescriptionReadsLikeLs() {
        #expect(FSPermissions(0o644).description == "rw-r--r--")
        #expect(FSPermissions(0o750).description == "rwxr-x---")
        #expect(FSPermissions(0o4755).description == "rwsr-xr-x")
        #expect(FSPermissions(0o2640).description == "rw-r-S---")
        #expect(FSPermissions(0o1777).description == "rwxrwxrwt")
        #expect(FSPermissions(0o1666).description == "rw-rw-rwT")
        #expect(FSPermissions(0).description == "---------")
    }

    @Test func realFilesGetAndReportThePermissionsGiven() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fs = PromiseFileSystem()
        try await fs.writeText(dir("secret"), "s", options: FSWriteOptions(mode: [.ownerRead, .ownerWrite])).get()
        #expect(try await fs.stat(dir("secret")).get().permissions == [.ownerRead, .ownerWrite])
        try await fs.setPermissions(dir("secret"), 0o640).get()
        let info = try await fs.stat(dir("secret")).get()
        #expect(info.permissions == [.ownerRead, .ownerWrite, .groupRead])
        #expect(!info.permissions.contains(.otherRead))
        try await fs.createDirectory(dir("private"), mode: .ownerAll).get()
        #expect(try await fs.stat(dir("private")).get().permissions == .ownerAll)
    }
}

extension FSPermissions {
    /// Test shorthand: permissions from mode bits.
    fileprivate init(_ bits: UInt32) { self.init(rawValue: bits) }
}
