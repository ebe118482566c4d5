import Foundation

/// One measured figure, with its ratio to the baseline measured in the same run.
struct Figure: Codable {
    let section: String
    let name: String
    let value: Double
    let unit: String
    let baseline: String?
    let ratio: Double?
}

/// Collects figures and prints them as a table (ratios first) or JSON.
final class Report {
    private(set) var figures: [Figure] = []
    private var values: [String: Double] = [:]

    /// Records a figure; with `against`, its ratio to that earlier figure: the figure divided by it, so "2.30× p50 in
    /// memory" reads as 2.3 times that latency and "0.23× the ceiling" as a quarter of that rate.
    @discardableResult
    func add(_ section: String, _ name: String, _ value: Double, _ unit: String, against baseline: String? = nil) -> Double {
        let ratio = baseline.flatMap { values[$0] }.map { base in base == 0 ? 0 : value / base }
        figures.append(Figure(section: section, name: name, value: value, unit: unit, baseline: baseline, ratio: ratio))
        values[name] = value
        FileHandle.standardError.write(Data("  \(name): \(Self.format(value)) \(unit)\(ratio.map { String(format: "  (%.2f× %@)", $0, baseline ?? "") } ?? "")\n".utf8))
        return value
    }

    func value(_ name: String) -> Double? { values[name] }

    func printTable() {
        var section = ""
        for figure in figures {
            if figure.section != section {
                section = figure.section
                print("\n\(section)")
            }
            let ratio = figure.ratio.map { String(format: "%6.2f×", $0) } ?? "       "
            let against = figure.baseline.map { "vs \($0)" } ?? ""
            print("  \(ratio)  \(figure.name.padding(toLength: 54, withPad: " ", startingAt: 0)) \(Self.format(figure.value).leftPadded(12)) \(figure.unit.padding(toLength: 12, withPad: " ", startingAt: 0)) \(against)")
        }
    }

    static func format(_ value: Double) -> String {
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.4f", value)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
