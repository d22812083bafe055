/// Fixes a person can apply, by errno, for the device kinds scand opens.
enum Hints {
    static func camera(_ code: Int32) -> String? {
        switch code {
        case 13, 1: return "add the service user to group video (usermod -aG video scand)"
        case 16: return "another program holds the camera; stop it (fuser -v /dev/video*)"
        case 2: return "is the camera plugged in? list cameras with `scand probe` or `v4l2-ctl --list-devices`"
        default: return nil
        }
    }
    static func gpio(_ code: Int32) -> String? {
        switch code {
        case 13, 1: return "add the service user to group gpio"
        case 16: return "another program holds the line; `gpioinfo` shows its consumer"
        default: return nil
        }
    }
    static func serial(_ code: Int32) -> String? {
        switch code {
        case 13, 1: return "add the service user to group dialout"
        case 16: return "another program holds the port"
        default: return nil
        }
    }
}
