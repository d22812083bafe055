import ArgumentParser

@main
struct Scand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scand",
        abstract: "A barcode and QR scanner daemon for kiosk boards.",
        discussion: """
            scand runs a kiosk: a button (or a host command, the setup page, MQTT, a code held up in \
            presentation mode) starts a scan session; scand lights the torch if needed, reads the \
            camera's viewport, beeps and flashes on a good read and sends the result over the serial \
            port, the log, MQTT and its other outputs. Camera faults show on the status LED and the \
            buzzer and in the log, and scand recovers by itself.

            Start with `scand run --config /etc/scand/scand.toml` (the systemd unit does), check a \
            config with `scand check-config`, ask a running daemon with `scand status`, see what \
            the camera sees with `scand snapshot`, list cameras and lines with `scand probe`, and \
            read codes from image files with `scand decode`.

            Files: /etc/scand/scand.toml (the config; SIGHUP reads it again), \
            /run/scand/control.sock (the control socket), /var/lib/scand (the outbox). The manual \
            is in /usr/share/doc/scand/docs (configuration.md, protocol.md, outputs.md, \
            deploying.md, decoding.md).
            """,
        version: Version.full,
        subcommands: [Run.self, Decode.self, CheckConfig.self, Status.self, SnapshotCommand.self, ProbeCommand.self, Bench.self]
    )
}
