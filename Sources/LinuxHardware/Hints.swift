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

extension Hints {
    /// Fixes for a libcamera camera, by errno.
    /// What to check when libcamera finds no camera.
    static let libcameraCheck = "is the camera's ribbon cable seated and the camera enabled (camera_auto_detect=1 or its dtoverlay in "
        + "/boot/firmware/config.txt)? `rpicam-hello --list-cameras` (or `cam -l`) lists what libcamera finds; the service user "
        + "needs group video to see any (usermod -aG video scand)"

    static func libcamera(_ code: Int32) -> String? {
        switch code {
        case 2: return libcameraCheck + "; `scand probe --libcamera` lists the camera ids (camera.id)"
        case 13, 1: return "add the service user to group video (usermod -aG video scand)"
        case 16: return "another program holds the camera (rpicam-*, libcamera-*, a browser, another scand); stop it"
        case 19: return "the camera went away: check its ribbon cable; scand opens it again when it is back"
        default: return nil
        }
    }
}
