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
}
