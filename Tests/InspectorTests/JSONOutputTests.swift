import Foundation
@testable import ReactorLogInspector
import Testing

/// The inspector's `--json` output: sorted keys, pretty-printed, empty containers closed where they open.
@Suite("reactorlog JSON output")
struct JSONOutputTests {
    struct Sample: Encodable {
        var empty: [Int] = []
        var nested: [[String: [Int]]] = [[:], ["a": []]]
        var text = "[\n\n]"
        var values = [1, 2]
    }

    @Test("an empty array or object is [] or {}, nested or not; strings and full containers are untouched")
    func emptyContainers() throws {
        let text = try jsonString(Sample(), pretty: true)
        #expect(text == """
            {
              "empty" : [],
              "nested" : [
                {},
                {
                  "a" : []
                }
              ],
              "text" : "[\\n\\n]",
              "values" : [
                1,
                2
              ]
            }
            """)
        #expect(try jsonString(Sample(), pretty: false) == #"{"empty":[],"nested":[{},{"a":[]}],"text":"[\n\n]","values":[1,2]}"#)
    }
}
