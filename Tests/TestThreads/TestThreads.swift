import Dispatch
import POSIX
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own for tests that compute for seconds without a suspension point (a
/// decode of a corpus): on Swift's cooperative pool (two threads on a two-core machine) such
/// tests held both threads for minutes while every other test of the parallel phase waited to
/// resume, and tests with a time limit, a session timeout or a bounded wait failed (CI of
/// 2026-11-28: a 1-minute suite limit exceeded 413 s into the phase). Here they queue for as
/// many threads as the machine has cores, which the kernel shares with the pool's.
public final class TestThreads: TaskExecutor, Sendable {
    public static let shared = TestThreads(count: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    private let jobs = Locked<[UnownedJob]>([])
    /// One signal per job queued.
    private let queued = DispatchSemaphore(value: 0)

    init(count: Int) {
        for _ in 0..<count { spawnThread { self.work() } }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        queued.signal()
    }

    private func work() {
        while true {
            queued.wait()
            jobs.withLock { $0.removeFirst() }.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// The trait that runs a suite's tests (or a test) on `TestThreads`: for tests that compute
/// without suspending, so that they never hold the cooperative pool the other tests resume on.
public struct OnTestThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard !test.isSuite else { return try await function() }
        try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
    }
}

extension Trait where Self == OnTestThreads {
    /// Runs the tests on threads of their own, not Swift's cooperative pool (`TestThreads`).
    public static var onTestThreads: Self { Self() }
}
