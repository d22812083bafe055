#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor with one owner. I/O happens inside `use`, which borrows the number;
/// `close()` marks it closed at once and really closes it when the last borrow ends. So no
/// call can reach a closed descriptor, or a number the kernel has since given to another file,
/// whatever the threads do.
public final class Descriptor: Sendable, CustomStringConvertible {
    private struct State { var fd: Int32; var borrows = 0; var closed = false }
    private let state: Locked<State>
    private let closeCall: @Sendable (Int32) -> Void

    /// Owns `fd` from now on; `close` is the call that releases it (libv4l2's for its files).
    public init(_ fd: Int32, close: @escaping @Sendable (Int32) -> Void = { _ = Glibc.close($0) }) {
        state = Locked(State(fd: fd))
        closeCall = close
    }

    deinit {
        let fd = state.withLock { s -> Int32? in s.closed ? nil : s.fd }
        if let fd { closeCall(fd) }
    }

    /// Whether `close()` has not been called.
    public var isOpen: Bool { state.withLock { !$0.closed } }

    /// Runs `body` with the descriptor's number, which stays valid until `body` returns; nil
    /// when the descriptor is closed.
    public func use<R, E: Error>(_ body: (Int32) throws(E) -> R) throws(E) -> R? {
        guard let fd = state.withLock({ s -> Int32? in
            guard !s.closed else { return nil }
            s.borrows += 1
            return s.fd
        }) else { return nil }
        defer {
            let last = state.withLock { s -> Bool in
                s.borrows -= 1
                return s.closed && s.borrows == 0
            }
            if last { closeCall(fd) }
        }
        return try body(fd)
    }

    /// Closes the descriptor (when the last running `use` ends); later `use` calls get nil.
    /// Safe to call more than once.
    public func close() {
        let now = state.withLock { s -> Int32? in
            guard !s.closed else { return nil }
            s.closed = true
            return s.borrows == 0 ? s.fd : nil
        }
        if let now { closeCall(now) }
    }

    public var description: String { state.withLock { $0.closed ? "closed descriptor" : "descriptor \($0.fd)" } }
}
