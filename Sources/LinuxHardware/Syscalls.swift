import CGPIOD
import CV4L2
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// The one funnel through which the Linux drivers make system and library calls.
///
/// Every call retries EINTR and turns a failure into a `HardwareError` naming the call, the
/// device and the errno. Tests replace `Syscalls.current` with a scripted implementation to
/// inject faults (EBUSY on open, ENODEV mid-stream, EIO on write) and canned ioctl answers.
public struct Syscalls: @unchecked Sendable {
    public var open: (_ path: String, _ flags: Int32) -> Int32
    public var close: (_ fd: Int32) -> Int32
    public var ioctl: (_ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer?) -> Int32
    public var read: (_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int
    public var write: (_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int
    public var poll: (_ fds: UnsafeMutablePointer<pollfd>?, _ count: Int, _ timeoutMs: Int32) -> Int32
    /// Maps `length` bytes of a device at `offset`; nil on failure (errno set).
    public var mmap: (_ fd: Int32, _ length: Int, _ offset: Int) -> UnsafeMutableRawPointer?
    public var munmap: (_ address: UnsafeMutableRawPointer, _ length: Int) -> Int32
    public var tcgetattr: (_ fd: Int32, _ attributes: UnsafeMutablePointer<termios>) -> Int32 = { Glibc.tcgetattr($0, $1) }
    public var tcsetattr: (_ fd: Int32, _ attributes: UnsafePointer<termios>) -> Int32 = { Glibc.tcsetattr($0, TCSANOW, $1) }
    public var errno: () -> Int32

    /// The real kernel.
    public static let system = Syscalls(
        open: { path, flags in scand_open(path, flags) },
        close: { Glibc.close($0) },
        ioctl: { fd, request, arg in scand_ioctl(fd, request, arg) },
        read: { Glibc.read($0, $1, $2) },
        write: { Glibc.write($0, $1, $2) },
        poll: { Glibc.poll($0, nfds_t($1), $2) },
        mmap: { scand_mmap_read($0, $1, $2) },
        munmap: { Glibc.munmap($0, $1) },
        errno: { Glibc.errno }
    )

    /// The kernel through libv4l2, which converts pixel formats the camera offers into ones it
    /// does not (the fallback when a camera has none of scand's formats).
    public static let libv4l2 = Syscalls(
        open: { path, flags in scand_v4l2_open(path, flags) },
        close: { v4l2_close($0) },
        ioctl: { fd, request, arg in scand_v4l2_ioctl(fd, request, arg) },
        read: { Glibc.read($0, $1, $2) },
        write: { Glibc.write($0, $1, $2) },
        poll: { Glibc.poll($0, nfds_t($1), $2) },
        mmap: { scand_v4l2_mmap_read($0, $1, $2) },
        munmap: { v4l2_munmap($0, $1) },
        errno: { Glibc.errno }
    )

    /// Runs `call` until it does not fail with EINTR; returns its result or throws a
    /// `HardwareError` for `operation` on `device`.
    @discardableResult
    public func check<T: BinaryInteger>(_ operation: String, device: String, hint: ((Int32) -> String?)? = nil,
                                        _ call: () -> T) throws(HardwareError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno()
            if code == EINTR { continue }
            throw HardwareError(HardwareError.kind(forErrno: code), operation: operation, device: device,
                                errno: code, hint: hint?(code))
        }
    }
}

/// Versions of the system libraries the drivers are linked with.
public enum LinuxLibraries {
    /// libgpiod's version string, e.g. `1.6.3`.
    public static var gpiodVersion: String { String(cString: gpiod_version_string()) }
}
