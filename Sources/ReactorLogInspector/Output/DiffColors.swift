/// Colours diff lines: additions green, removals red, changes yellow.
enum DiffColors {
    static func paint(_ line: String, _ terminal: Terminal) -> String {
        switch line.first {
        case "+": terminal.paint(line, .green)
        case "-": terminal.paint(line, .red)
        case "~": terminal.paint(line, .yellow)
        default: line
        }
    }
}
