import ScanCore
import Testing

@Suite struct TokenBucketTests {
    @Test func aBurstThenTheRate() {
        var bucket = TokenBucket(perSecond: 10, burst: 20)
        func take(_ at: Duration) -> Bool { bucket.take(at: at) }
        let start = Duration.seconds(100)
        #expect((0..<25).map { _ in bucket.take(at: start) }.filter { $0 }.count == 20, "a burst of 20 at once")
        #expect(!take(start + .milliseconds(99)), "the next token after 100 ms")
        #expect(take(start + .milliseconds(100)))
        #expect(!take(start + .milliseconds(150)))
        // Over 10 s of a flood (one try a millisecond), 10 a second get through.
        var taken = 0
        for ms in 200..<10_200 where bucket.take(at: start + .milliseconds(ms)) { taken += 1 }
        #expect(taken == 100, "\(taken)")
    }

    @Test func itRefillsToTheBurstOnlyAndTimeGoingBackGivesNothing() {
        var bucket = TokenBucket(perSecond: 10, burst: 20)
        func take(_ at: Duration) -> Bool { bucket.take(at: at) }
        for _ in 0..<20 { _ = bucket.take(at: .seconds(1)) }
        #expect(!take(.seconds(1)))
        // An hour idle: full again, but no more than the burst.
        #expect((0..<30).map { _ in bucket.take(at: .seconds(3601)) }.filter { $0 }.count == 20)
        // An earlier time (another clock's reading) adds no credit.
        #expect(!take(.seconds(5)))
        #expect(!take(.seconds(3601)))
        #expect(take(.seconds(3601) + .milliseconds(100)))
    }
}
