@testable import EventLogKit
import TestSupport
import Testing

/// `NumberTable`, the writer's table by stream id and encoder number, checked against `Dictionary` through long runs
/// of insertions, replacements and removals: removals are where open addressing goes wrong (a key left unreachable
/// behind an emptied slot).
@Suite("NumberTable")
struct NumberTableTests {
    @Test("agrees with a dictionary through random insertions, replacements and removals", arguments: [
        ("consecutive numbers", UInt32(1)...UInt32(300)),
        ("numbers that share their low bits", UInt32(0)...UInt32(40)),
        ("the largest numbers", UInt32.max - 200...UInt32.max),
    ])
    func agreesWithADictionary(kind: String, range: ClosedRange<UInt32>) {
        var generator = Xorshift(state: 42)
        var table = NumberTable<Int>()
        var model: [UInt32: Int] = [:]
        // In the second range every key is a multiple of 2^16: their products differ only in high bits.
        let spread: (UInt32) -> UInt32 = kind == "numbers that share their low bits" ? { $0 << 16 } : { $0 }
        for step in 0..<20_000 {
            let key = spread(UInt32.random(in: range, using: &generator))
            if Bool.random(using: &generator) || step % 7 == 0 {
                table[key] = step
                model[key] = step
            } else {
                table[key] = nil
                model[key] = nil
            }
            #expect(table[key] == model[key])
            #expect(table.count == model.count)
        }
        for key in model.keys { #expect(table[key] == model[key]) }
        // Emptied one key at a time, every other key stays reachable until its turn.
        let keys = model.keys.sorted()
        for (index, key) in keys.enumerated() {
            table[key] = nil
            #expect(table[key] == nil && table.count == keys.count - index - 1)
            if index % 16 == 0 { #expect(keys[(index + 1)...].allSatisfy { table[$0] == model[$0] }) }
        }
    }

    @Test("a key absent from a new table and from an emptied one, which takes keys again")
    func absentKeys() {
        var table = NumberTable<Int>()
        #expect(table[0] == nil && table[.max] == nil)
        table[7] = 1
        table[0] = 3
        table.removeAll()
        #expect(table[7] == nil && table[0] == nil && table.count == 0)
        table[7] = 2
        #expect(table[7] == 2 && table.count == 1)
    }

    @Test("grows past its first slots, keeping every key")
    func grows() {
        var table = NumberTable<UInt32>()
        for key in UInt32(1)...10_000 { table[key] = key &* 3 }
        #expect(table.count == 10_000)
        #expect((UInt32(1)...10_000).allSatisfy { table[$0] == $0 &* 3 })
        #expect(table[10_001] == nil)
    }
}
