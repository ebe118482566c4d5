import BinaryPayloadKit
import Foundation
import Testing
@testable import TimeTravel

/// JSONValue's own parser: the same values as Foundation's on valid JSON, a sentence on anything else.
@Suite("JSON parser")
struct JSONParserTests {
    /// Foundation's reading of `text`, as a JSONValue, to compare with ours.
    func foundation(_ text: String) throws -> JSONValue {
        func convert(_ any: Any) -> JSONValue {
            switch any {
            case is NSNull: return .null
            case let number as NSNumber where String(cString: number.objCType) == "c": return .bool(number.boolValue)
            case let number as NSNumber:
                // Foundation keeps an integer literal as an integer, as JSONValue does.
                switch String(cString: number.objCType) {
                case "q", "l", "i", "s": return .number(JSONNumber(number.int64Value))
                case "Q", "L", "I", "S": return .number(JSONNumber(number.uint64Value))
                default: return .number(JSONNumber(number.doubleValue))
                }
            case let text as String: return .string(text)
            case let array as [Any]: return .array(array.map(convert))
            case let object as [String: Any]: return .object(object.mapValues(convert))
            default: return .null
            }
        }
        return convert(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
    }

    @Test("valid documents parse to the same values as Foundation's", arguments: [
        #"{"a":[1,2.5,-3e2,0.125E+1],"b":{"c":null,"d":true,"e":false},"f":""}"#,
        #"  [ "tab\tnew\nline", "quote\" backslash\\ slash\/", "\u00e9\u20ac\ud83d\ude00", "\u0000\u001b" ]  "#,
        #"{"updateQuery":{"_0":"swift"}}"#, "42", #""text""#, "[]", "{}", "[[[[]]]]", "-0", "1e-7",
    ])
    func agreesWithFoundation(_ text: String) throws {
        #expect(try JSONValue(parsing: Data(text.utf8)) == (try foundation(text)))
    }

    @Test("invalid documents are refused with the offset and the reason", arguments: [
        ("[1,2,]", "unexpected character"), (#"{"a" 1}"#, "expected ':'"), (#""abc"#, "ends inside a string"),
        ("[1] 2", "unexpected text after the value"), (#""\q""#, "an unknown escape"), (#""\ud800""#, "high surrogate"),
        ("\"a\u{1}b\"", "a control character"), ("01", "a leading zero"), ("1e999", "out of range"), ("tru", "expected true"),
        ("", "ends where a value should be"), ("-", "expected a digit"), (#""\u+00e9""#, "four hexadecimal digits"),
    ])
    func refuses(_ text: String, _ reason: String) {
        let error = #expect(throws: JSONParser.Failure.self) { try JSONValue(parsing: Data(text.utf8)) }
        #expect(error?.description.contains(reason) == true, "\(text): \(String(describing: error))")
    }

    @Test("hostile nesting and invalid UTF-8 are refused, never a crash")
    func hostile() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: JSONParser.Failure.self) { try JSONValue(parsing: Data(deep.utf8)) }
        #expect(error?.description.contains("nested more than 512 levels") == true)
        #expect(throws: JSONParser.Failure.self) { try JSONValue(parsing: Data([0x22, 0xFF, 0xFE, 0x22])) }
    }

    @Test("compact text keeps every token as written, drops whitespace, and accepts exactly what the parser accepts")
    func compactText() throws {
        #expect(JSONValue.compactText(Data(#" { "b" : [ 1 , 2.50 , "x\/y \u00e9" ] ,"a":null } "#.utf8)) == #"{"b":[1,2.50,"x/y \u00e9"],"a":null}"#)
        for refused in [#""\ud800""#, "1e999", "[1,]", #""\u+00e9""#, "\"a\u{1}b\"", "01", "[1] 2"] {
            #expect(JSONValue.compactText(Data(refused.utf8)) == nil, "\(refused)")
            #expect(throws: JSONParser.Failure.self) { try JSONValue(parsing: Data(refused.utf8)) }
        }
    }

    @Test("the parser, the compactor, the conversion to the binary form and verify's check accept exactly the same documents", arguments: [
        #"{"a":[1,-2.5e-3,true,null,"\u00e9\ud83d\ude00\n\/"],"b":{}}"#, "0", "-0.0", "[]", #""""#, "  7  ",
        String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
        String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
        "[1,]", "{,}", #"{"a"}"#, #"{"a":1,}"#, "01", "1.", ".5", "1e", "+1", "1e999", "-", "nul", "[1 2]",
        #""\x""#, #""\u12""#, #""\udc00""#, #""\ud800\u0041""#, "\"a\u{7}\"", "\"\u{7F}\"", "[1] x", "", "\u{FEFF}1", #"{"a":1 "b":2}"#,
    ])
    func readersAgree(_ text: String) {
        let data = Data(text.utf8)
        let parsed = (try? JSONValue(parsing: data)) != nil
        #expect((JSONValue.compactText(data) != nil) == parsed, "compactor against parser on \(text.prefix(40))")
        #expect(((try? BinaryPayload.fromJSON(data)) != nil) == parsed, "fromJSON against parser on \(text.prefix(40))")
        #expect(data.withUnsafeBytes { JSONScanner.isDocument($0) } == parsed, "verify's check against parser on \(text.prefix(40))")
    }

    @Test("the binary form's rendering and JSONValue spell strings and numbers alike")
    func oneSpelling() throws {
        let text = "quote\" backslash\\ newline\n tab\t bell\u{7} é 😀"
        let values: [JSONValue] = [.string(text), .number(1e15), .number(-0.1), .number(42), .number(1e-7), .number(2.5e300)]
        for value in values {
            let rendered = String(decoding: try BinaryPayload.json(Data(try BinaryPayload.fromJSON(value.data))), as: UTF8.self)
            #expect(rendered == value.description)
        }
        #expect(JSONValue.string(text).description == #""quote\" backslash\\ newline\n tab\t bell\u0007 é 😀""#)
    }
}

