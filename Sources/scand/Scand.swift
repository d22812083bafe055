import ArgumentParser

@main
struct Scand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scand",
        abstract: "A barcode and QR scanner daemon for kiosk boards.",
        version: Version.full,
        subcommands: [Run.self, Decode.self, CheckConfig.self, Status.self, SnapshotCommand.self, ProbeCommand.self, Bench.self]
    )
}
