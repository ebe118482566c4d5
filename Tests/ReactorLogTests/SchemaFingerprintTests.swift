import Foundation
import ReactorLogPersistence
import Testing

/// The structural fingerprint: what changes it and what does not.
@Suite("schema fingerprint")
struct SchemaFingerprintTests {
    struct Item: Codable { var title: String; var done: Bool }
    struct State: Codable { var count: Int; var items: [Item]; var note: String?; var tags: Set<String>; var at: Date }
    enum Mutation: Codable { case add(String); case setDone(index: Int, done: Bool); case clear }
    enum Level: String, Codable { case low, high }
    indirect enum Tree: Codable { case leaf(Int); case node([Tree]) }
    struct Wrapper: Codable { var level: Level; var id: UUID; var scores: [String: Double]; var tree: Tree? }

    @Test("a struct, an enum, raw values, collections and Foundation types are described by structure")
    func descriptions() {
        #expect(SchemaFingerprint.describe(State.self) == "{at:Date,count:Int,items:[{done:Bool,title:String}],note:String?,tags:[String]}")
        #expect(SchemaFingerprint.describe(Mutation.self) == "<add(_0:String)|clear|setDone(done:Bool,index:Int)>")
        #expect(SchemaFingerprint.describe(Wrapper.self) == #"{id:UUID,level:("low"|"high"),scores:[String:Double],tree:<leaf(_0:Int)|node(_0:[^Tree])>?}"#)
    }

    /// The fingerprint logs keep: 64-bit FNV-1a of the three descriptions, as the documentation states.
    func expected(_ action: String, _ mutation: String, _ state: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "Action=\(action);Mutation=\(mutation);State=\(state)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return "structure-1:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test("a fingerprint is made once per set of types and given again, never for another set, whichever comes first")
    func remembered() {
        let (level, mutation, state, wrapper) = (
            SchemaFingerprint.describe(Level.self), SchemaFingerprint.describe(Mutation.self),
            SchemaFingerprint.describe(State.self), SchemaFingerprint.describe(Wrapper.self))
        for _ in 0..<2 {
            #expect(SchemaFingerprint.of(action: Level.self, mutation: Mutation.self, state: State.self) == expected(level, mutation, state))
            #expect(SchemaFingerprint.of(action: Mutation.self, mutation: Level.self, state: State.self) == expected(mutation, level, state))
            #expect(SchemaFingerprint.of(action: Level.self, mutation: Mutation.self, state: Wrapper.self) == expected(level, mutation, wrapper))
            #expect(SchemaFingerprint.of(action: Level.self, mutation: Level.self, state: State.self) == expected(level, level, state))
        }
    }
}
