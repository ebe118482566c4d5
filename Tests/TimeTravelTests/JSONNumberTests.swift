import Foundation
import Testing
@testable import TimeTravel

/// A state's integers are kept exactly, however it reaches time travel: through the binary codec, JSON text, or
/// `Codable`. A double cannot tell 1795878961569513827 from 1795878961569513828: a diff compared through one
/// found no change between them, and an import rounded both to 1.7958789615695137e+18.
@Suite("JSON numbers")
struct JSONNumberTests {
    struct Record: Codable, Equatable {
        var id: Int64 = 1_795_878_961_569_513_827
        var hash: UInt64 = .max
        var smallest: Int64 = .min
        var ratio = 0.1
        var count = 3
    }

    @Test("integers keep every digit through the binary codec, JSON text and Codable, and render as digits")
    func exactIntegers() throws {
        let value = try JSONValue(encoding: Record())
        #expect(value["id"] == .number(.integer(1_795_878_961_569_513_827)))
        #expect(value["hash"] == .number(.unsigned(.max)))
        #expect(value["smallest"] == .number(.integer(.min)))
        #expect(value.description == #"{"count":3,"hash":18446744073709551615,"id":1795878961569513827,"ratio":0.1,"smallest":-9223372036854775808}"#)
        #expect(try JSONValue(parsing: value.data) == value)
        #expect(try JSONValue(parsing: JSONEncoder().encode(Record())) == value)
        let coded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(coded == value && coded.description == value.description)
        #expect(try JSONDecoder().decode(Record.self, from: value.data) == Record())
    }

    @Test("numbers are equal when they denote the same value, whichever form, and hash alike")
    func numericEquality() throws {
        let pairs: [(JSONNumber, JSONNumber, Bool)] = [
            (.integer(5), .double(5.0), true), (.integer(0), .double(-0.0), true), (.unsigned(9_223_372_036_854_775_808), .double(9_223_372_036_854_775_808), true),
            (.integer(1_795_878_961_569_513_827), .integer(1_795_878_961_569_513_828), false),
            // The double nearest 1795878961569513827 is 1795878961569513728: another number.
            (.integer(1_795_878_961_569_513_827), .double(1_795_878_961_569_513_728), false),
            (.integer(1_795_878_961_569_513_728), .double(1_795_878_961_569_513_728), true),
            (.integer(5), .double(5.5), false), (JSONNumber(UInt64(7)), .integer(7), true),
        ]
        for (a, b, equal) in pairs {
            #expect((a == b) == equal, "\(a) and \(b)")
            if equal { #expect(a.hashValue == b.hashValue, "\(a) and \(b)") }
        }
        #expect(JSONNumber(UInt64(7)) == .integer(7) && JSONNumber(text: "18446744073709551616") == .double(18_446_744_073_709_551_616))
        #expect(JSONNumber(text: "1e999") == nil)
    }

    @Test("a diff finds a change in an integer's last digit")
    func diffSeesLastDigit() throws {
        let old = try JSONValue(parsing: Data(#"{"id":1795878961569513827}"#.utf8))
        let new = try JSONValue(parsing: Data(#"{"id":1795878961569513828}"#.utf8))
        #expect(StateDiff(from: old, to: new).rendered() == ["~ id: 1795878961569513827 → 1795878961569513828"])
    }
}
