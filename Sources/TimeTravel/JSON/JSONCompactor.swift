import BinaryPayloadKit
import Foundation

/// Checks a UTF-8 JSON document and copies it without whitespace, in one pass and without building a tree: the
/// fast path for writing millions of stored payloads as lines (`reactorlog export`). The copy keeps every token
/// exactly as stored (key order, number spelling, escapes); only whitespace between tokens is dropped, so the
/// result is one line.
enum JSONCompactor {
    /// The compact text of `data`, or `nil` when it is not one valid JSON document with finite numbers, nested at
    /// most 512 levels deep (the binary form's limit, as every reader of JSON text here).
    static func compact(_ data: Data) -> [UInt8]? {
        var output: [UInt8] = []
        return append(data, to: &output) ? output : nil
    }

    /// Appends the compact text of `data` to `output` and returns `true`, or leaves `output` as it was and returns
    /// `false`.
    static func append(_ data: Data, to output: inout [UInt8]) -> Bool {
        data.withUnsafeBytes { append($0, to: &output) }
    }

    /// ``append(_:to:)-(Data,_)`` for bytes in memory (such as a record read in place).
    static func append(_ raw: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Bool {
        let start = output.count
        var scanner = JSONScanner(raw)
        do throws(JSONScanner.Failure) {
            try copyValue(&scanner, to: &output, depth: 0)
            scanner.skipSpace()
            if scanner.isAtEnd { return true }
        } catch {}
        output.removeSubrange(start...)
        return false
    }

    /// Copies the value `scanner` reads next, `depth` containers deep, without the whitespace around its tokens.
    private static func copyValue(_ scanner: inout JSONScanner, to output: inout [UInt8], depth: Int) throws(JSONScanner.Failure) {
        switch try scanner.startValue(depth: depth) {
        case .object:
            output.append(UInt8(ascii: "{"))
            try scanner.members { (scanner: inout JSONScanner, key: JSONScanner.StringToken, index: Int) throws(JSONScanner.Failure) in
                if index > 0 { output.append(UInt8(ascii: ",")) }
                copy(key, of: scanner, to: &output)
                output.append(UInt8(ascii: ":"))
                try copyValue(&scanner, to: &output, depth: depth + 1)
            }
            output.append(UInt8(ascii: "}"))
        case .array:
            output.append(UInt8(ascii: "["))
            try scanner.elements { (scanner: inout JSONScanner, index: Int) throws(JSONScanner.Failure) in
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try copyValue(&scanner, to: &output, depth: depth + 1)
            }
            output.append(UInt8(ascii: "]"))
        case .string: copy(try scanner.string(), of: scanner, to: &output)
        case .number: copy(try scanner.number(), of: scanner, to: &output)
        case .true: append("true", to: &output)
        case .false: append("false", to: &output)
        case .null: append("null", to: &output)
        }
    }

    /// Appends a literal's bytes in one copy (a `String`'s UTF-8 view is appended byte by byte).
    private static func append(_ word: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
    }

    /// Copies a string as written, with its quotes, except `\/`, which becomes `/` (the same character; Foundation's
    /// encoder escapes slashes). Strings are copied as they are; the caller escapes what a terminal would act on.
    private static func copy(_ token: JSONScanner.StringToken, of scanner: JSONScanner, to output: inout [UInt8]) {
        let quoted = (token.contents.lowerBound - 1)..<(token.contents.upperBound + 1)
        guard token.hasEscapes else { return copy(quoted, of: scanner, to: &output) }
        // Runs between the `\/` escapes, each copied whole.
        var run = quoted.lowerBound, index = token.contents.lowerBound
        while index < token.contents.upperBound {
            guard scanner.bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if scanner.bytes[index + 1] == UInt8(ascii: "/") {
                copy(run..<index, of: scanner, to: &output)
                run = index + 1
            }
            index += 2
        }
        copy(run..<quoted.upperBound, of: scanner, to: &output)
    }

    /// Copies the bytes in `range` as they are (typed, so that the append is one copy, not a loop).
    private static func copy(_ range: Range<Int>, of scanner: JSONScanner, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: scanner.bytes[range]).assumingMemoryBound(to: UInt8.self))
    }
}
