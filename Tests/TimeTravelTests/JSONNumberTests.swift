import Foundation
import Testing
@testable import TimeTravel

/// A state's integers and long decimals are kept exactly, however it reaches time travel: through the binary codec,
/// JSON text, or `Codable`. A double cannot tell 1795878961569513827 from 1795878961569513828: a diff compared through
/// one found no change between them, and an import rounded both to 1.7958789615695137e+18; nor can it tell the
/// `Decimal` 0.12345678901234567891 from 0.12345678901234567892, which `state` printed as 0.12345678901234568.
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
        #expect(JSONNumber(UInt64(7)) == .integer(7) && JSONNumber(text: "1e19") == .double(10_000_000_000_000_000_000))
        #expect(JSONNumber(text: "1e999") == nil)
    }

    @Test("a diff finds a change in an integer's last digit")
    func diffSeesLastDigit() throws {
        let old = try JSONValue(parsing: Data(#"{"id":1795878961569513827}"#.utf8))
        let new = try JSONValue(parsing: Data(#"{"id":1795878961569513828}"#.utf8))
        #expect(StateDiff(from: old, to: new).rendered() == ["~ id: 1795878961569513827 → 1795878961569513828"])
    }

    struct Amounts: Codable, Equatable {
        var balance = Decimal(string: "12345678901234567.891")!
        var rate = Decimal(string: "0.12345678901234567891")!
        var huge = Decimal(string: "123456789012345678901234567890")!
        var price = Decimal(string: "12.345")!
        var sum = 0.1 + 0.2
    }

    @Test("decimals a double cannot hold keep every digit through the binary codec, JSON text and Codable")
    func exactDecimals() throws {
        let value = try JSONValue(encoding: Amounts())
        #expect(value["balance"] == .number(.decimal(Decimal(string: "12345678901234567.891")!)))
        #expect(value["rate"] == .number(.decimal(Decimal(string: "0.12345678901234567891")!)))
        #expect(value["huge"] == .number(.decimal(Decimal(string: "123456789012345678901234567890")!)))
        // A decimal a double holds stays a double, and a double's 17 digits are its own.
        #expect(value["price"] == .number(.double(12.345)))
        #expect(value["sum"] == .number(.double(0.30000000000000004)))
        #expect(value.description == #"{"balance":12345678901234567.891,"huge":123456789012345678901234567890,"price":12.345,"rate":0.12345678901234567891,"sum":0.30000000000000004}"#)
        #expect(try JSONValue(parsing: value.data) == value)
        #expect(try JSONValue(parsing: JSONEncoder().encode(Amounts())) == value)
        let coded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(coded == value && coded.description == value.description)
        #expect(try JSONDecoder().decode(Amounts.self, from: value.data) == Amounts())
    }

    @Test("a number's text takes the form that holds its value: a double where one does, a decimal where none does")
    func formOfText() throws {
        let doubles = ["0.1", "0.10", "1e2", "0.30000000000000004", "-2.5e-8",
                       "1.7976931348623157e308", "4.9406564584124654e-324", "1.2345678901234567891e-300"]
        for text in doubles {
            guard case .double(let double)? = JSONNumber(text: text) else {
                Issue.record("\(text) is not a double: \(String(describing: JSONNumber(text: text)))")
                continue
            }
            #expect(double == Double(text), "\(text)")
        }
        let decimals = ["0.12345678901234567891", "-98765432109876543.21", "18446744073709551616", "1.00000000000000000001"]
        for text in decimals {
            #expect(JSONNumber(text: text) == .decimal(Decimal(string: text)!), "\(text)")
            #expect(JSONNumber(text: text)?.description == text, "\(text)")
        }
        #expect(JSONNumber(Decimal(7)) == .integer(7) && JSONNumber(Decimal(string: "0.5")!) == .double(0.5))
    }

    @Test("a decimal equals the same value in any form, and hashes alike")
    func decimalEquality() throws {
        let pairs: [(JSONNumber, JSONNumber, Bool)] = [
            (.decimal(Decimal(5)), .integer(5), true), (.decimal(Decimal(string: "0.5")!), .double(0.5), true),
            (.decimal(Decimal(string: "0.123456789012345678910")!), .decimal(Decimal(string: "0.12345678901234567891")!), true),
            (.decimal(Decimal(string: "0.12345678901234567891")!), .decimal(Decimal(string: "0.12345678901234567892")!), false),
            (.decimal(Decimal(string: "0.12345678901234567891")!), .double(0.12345678901234568), false),
        ]
        for (a, b, equal) in pairs {
            #expect((a == b) == equal, "\(a) and \(b)")
            if equal { #expect(a.hashValue == b.hashValue, "\(a) and \(b)") }
        }
    }

    @Test("a diff finds a change in a decimal's twentieth digit")
    func diffSeesDecimalDigit() throws {
        let old = try JSONValue(encoding: ["rate": Decimal(string: "0.12345678901234567891")!])
        let new = try JSONValue(encoding: ["rate": Decimal(string: "0.12345678901234567892")!])
        #expect(StateDiff(from: old, to: new).rendered() == ["~ rate: 0.12345678901234567891 → 0.12345678901234567892"])
    }
}
