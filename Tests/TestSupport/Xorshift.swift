/// A seeded random number generator, so that a failing randomized test repeats with its seed.
public struct Xorshift: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting from `state`, which must not be zero.
    public init(state: UInt64) {
        precondition(state != 0, "a xorshift generator never leaves the state 0")
        self.state = state
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
