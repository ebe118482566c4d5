import EventLogKit
import Testing

@Suite("Splitting a path")
struct SplitPathTests {
    @Test(
        "a path splits into the directory that holds it, '.' for none, and its name; a sibling is joined in that directory",
        arguments: [
            ("x", ".", "x", "./y"),
            ("logs/app.reactorlog", "logs", "app.reactorlog", "logs/y"),
            ("/app.reactorlog", "/", "app.reactorlog", "/y"),
            ("/var/log/a/", "/var/log", "a", "/var/log/y"),
            ("../a", "..", "a", "../y"),
        ])
    func splits(path: String, directory: String, name: String, sibling: String) {
        let split = SplitPath(path)
        #expect(split.directory == directory && split.name == name && split.sibling("y") == sibling, "\(path)")
    }
}
