import ArgumentParser

/// `promise-demo`: swift-promise's products working together.
///
/// `promise-demo [URL…]` (the default) mirrors URLs: PromiseCurl fetches them, PromiseFS
/// stores each body atomically, PromiseSQLite records every result, and all of it runs on a
/// PromiseUV loop that is the program's main thread. With no URLs it mirrors a built-in
/// sample site served on 127.0.0.1. `promise-demo tour` narrates PromiseCore's ideas one
/// scene at a time.
@main
struct PromiseDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promise-demo",
        abstract: "swift-promise's products working together: a URL mirror, and a tour of PromiseCore.",
        subcommands: [MirrorCommand.self, Tour.self],
        defaultSubcommand: MirrorCommand.self
    )
}
