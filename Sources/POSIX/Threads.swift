#if canImport(Glibc)
import Glibc
#endif

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Runs `body` on a detached thread of its own: for loops that block in poll(2) or read(2),
/// which must not hold one of the few threads of Swift's cooperative pool. False when the
/// system refused a thread (pthread_create failed; `body` does not run).
@discardableResult
public func spawnThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { arg in
        let body = Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue()
        body.run()
        return nil
    }, box)
    if rc == 0 { pthread_detach(thread) } else { Unmanaged<ThreadBody>.fromOpaque(box).release() }
    return rc == 0
}

/// A value behind a pthread mutex: every piece of state scand shares between threads, tasks
/// and callbacks (continuations included, which `Mutex`'s region checks do not let escape).
/// Not `Synchronization.Mutex`: on Linux its contended paths (`_lockSlow`, `_unlockSlow`) run in
/// the uninstrumented standard library, so ThreadSanitizer misses the hand-over between two
/// threads that met at the lock and reports the guarded state as racing (it did: two setup-page
/// previews opened at once). A pthread mutex it sees.
///
/// The mutex is a `ThreadLock`'s, at a fixed heap address of its own: `&mutex` on a stored
/// property would be a Swift access to the property, begun before the lock is held
/// (ThreadSanitizer reported four writers on one `Locked` as racing there).
public final class Locked<State>: @unchecked Sendable {
    private var state: State
    private let lock = ThreadLock()

    public init(_ state: State) { self.state = state }

    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try lock.withLock { () throws(E) -> R in try body(&state) }
    }
}

/// A pthread mutex guarding no value of its own: a stretch of work done by one thread at a
/// time (a file's writes, an output's flush). Not `Locked(())`: ThreadSanitizer takes the
/// `inout` access to a state of no size for an access to the object itself, and reported two
/// threads meeting at such a lock as a race.
public final class ThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
