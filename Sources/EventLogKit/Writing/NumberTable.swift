/// A hash table keyed by 32-bit numbers that a log hands out in order (stream ids, encoder numbers), for the
/// writer's lookups once an entry or once a stream a commit.
///
/// `Dictionary` hashes every key with seeded SipHash, about a hundred instructions a lookup: a defence against keys
/// chosen to collide, which numbers counted up from one do not need. Here a multiplication spreads them (Fibonacci
/// hashing: consecutive numbers land far apart), collisions probe the next slots, a removal moves back the keys
/// that probed past it (so no slot is ever a tombstone), and the table doubles when half full.
struct NumberTable<Value> {
    /// Each slot's key, or ``empty``; a slot's value is in `values` at the same index.
    private var keys: [UInt64] = []
    private var values: [Value?] = []
    /// How far a product is shifted down to index a table of `keys.count` slots.
    private var shift: UInt32 = 32
    /// How many keys the table holds.
    private(set) var count = 0

    /// The mark of an empty slot: no 32-bit key widens to it.
    private static var empty: UInt64 { .max }
    /// The slots of a table's first allocation.
    private static var initialSlots: Int { 16 }

    /// An empty table; it allocates on its first insertion.
    init() {}

    /// The value stored under `key`, if any; setting `nil` removes it.
    subscript(key: UInt32) -> Value? {
        get {
            guard let index = index(of: key) else { return nil }
            return values[index]
        }
        set {
            if let newValue { insert(newValue, for: key) } else if let index = index(of: key) { remove(at: index) }
        }
    }

    /// Empties the table, keeping its slots for what comes next.
    mutating func removeAll() {
        for index in keys.indices where keys[index] != Self.empty {
            keys[index] = Self.empty
            values[index] = nil
        }
        count = 0
    }

    /// The slot `key` starts probing at.
    private func home(_ key: UInt32) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9) >> shift)
    }

    private func index(of key: UInt32) -> Int? {
        guard !keys.isEmpty else { return nil }
        let wide = UInt64(key), mask = keys.count - 1
        var index = home(key)
        while keys[index] != Self.empty {
            if keys[index] == wide { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    private mutating func insert(_ value: Value, for key: UInt32) {
        if (count + 1) * 2 > keys.count { grow() }
        let wide = UInt64(key), mask = keys.count - 1
        var index = home(key)
        while keys[index] != Self.empty {
            if keys[index] == wide {
                values[index] = value
                return
            }
            index = (index + 1) & mask
        }
        keys[index] = wide
        values[index] = value
        count += 1
    }

    /// Empties slot `index`, then moves each key of the run after it that may no longer be reachable into the hole,
    /// which moves on to where that key was.
    private mutating func remove(at index: Int) {
        let mask = keys.count - 1
        var hole = index
        var next = (index + 1) & mask
        while keys[next] != Self.empty {
            let home = home(UInt32(truncatingIfNeeded: keys[next]))
            // A key may fill the hole when the hole lies on its probe path: from its home slot up to where it is.
            if (next &- home) & mask >= (next &- hole) & mask {
                keys[hole] = keys[next]
                values[hole] = values[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        keys[hole] = Self.empty
        values[hole] = nil
        count -= 1
    }

    /// Doubles the slots (or makes the first ones) and inserts every key again.
    private mutating func grow() {
        let old = (keys, values)
        let slots = Swift.max(Self.initialSlots, keys.count * 2)
        keys = Array(repeating: Self.empty, count: slots)
        values = Array(repeating: nil, count: slots)
        shift = 32 - UInt32(slots.trailingZeroBitCount)
        count = 0
        for index in old.0.indices where old.0[index] != Self.empty {
            insert(old.1[index]!, for: UInt32(truncatingIfNeeded: old.0[index]))
        }
    }
}

extension NumberTable: Sendable where Value: Sendable {}
