#if canImport(Glibc)
import Glibc
#endif

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Runs `body` on a detached thread of its own: for loops that block in poll(2) or read(2),
/// which must not hold one of the few threads of Swift's cooperative pool.
public func spawnThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { arg in
        let body = Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue()
        body.run()
        return nil
    }, box)
    if rc == 0 { pthread_detach(thread) } else { Unmanaged<ThreadBody>.fromOpaque(box).release() }
}
