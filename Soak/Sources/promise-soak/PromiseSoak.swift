import ArgumentParser

@main
struct PromiseSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promise-soak",
        abstract: "Long runs of swift-promise under load, watching resident memory and open descriptors.",
        discussion: """
            Each subcommand samples resident memory (/proc/self/statm, read again after \
            malloc_trim(0) returns glibc's cached free pages), the bytes malloc has handed out \
            (mallinfo2), the threads and the open descriptors (/proc/self/fd) at 21 evenly \
            spaced points, and prints them as a table. The first sample at or past 10 % of the \
            run is the warm-up level. The run fails (exit status 1) on any error or wrong \
            result, when a later sample's trimmed RSS exceeds the warm-up level by more than \
            max(8 MiB, 10 %) or its heap in use by more than max(4 MiB, 25 %), or when the \
            last sample's descriptor count differs from the warm-up level.
            """,
        subcommands: [CoreSoak.self, HTTPSoak.self, SQLiteSoak.self, TimerSoak.self]
    )
}

/// Checks a `--count` value: at least 20, so that every sampling point gets its own row.
func validateCount(_ count: Int) throws {
    guard count >= SoakMonitor.points else {
        throw ValidationError("--count must be at least \(SoakMonitor.points), got \(count)")
    }
}
