/// Left-aligned columns, two spaces apart.
enum Table {
    /// The lines of `rows`, each cell measured as it is shown: with what a log may hold in it made visible (a newline
    /// as `\u{A}`), as ``printLine(_:)`` shows it.
    static func render(_ rows: [[String]]) -> [String] {
        let rows = rows.map { $0.map { Terminal.visible($0, colored: true, keepNewlines: false) } }
        guard let columns = rows.map(\.count).max() else { return [] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].columns : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padded(to: widths[index])
            }.joined(separator: "  ")
        }
    }
}
