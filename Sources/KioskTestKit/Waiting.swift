/// `body`'s value, or nil when it has not come within `limit`: a bound that ends a hang in a
/// test, never a speed check (on a loaded two-core machine a test may wait many seconds).
public func withinBound<T: Sendable>(_ limit: Duration = .seconds(60), _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask { try? await Task.sleep(for: limit); return nil }
        let first = await group.next()!
        group.cancelAll()
        return first
    }
}

/// The one reader of a stream (a test's view of events or writes), used by one task at a time.
public final class StreamReader<T: Sendable>: @unchecked Sendable { // one task at a time, by contract
    private var iterator: AsyncStream<T>.Iterator
    public init(_ stream: AsyncStream<T>) { iterator = stream.makeAsyncIterator() }
    public func next() async -> T? { await iterator.next() }
}
