// An inspector for your own reactors: the same command tree as `reactorlog`, handed a factory per reactor
// type, so every command rebuilds any state with your `reduce`. It is named after its executable
// (`example-inspector --help`), or after `name:`. This one knows only the GitHub Search example; replace it
// with your reactors.
import ReactorLogExamples
import ReactorLogInspector

await ReactorLogInspector.main(
    abstract: "Inspect the GitHub Search example's logs.",
    version: "1.0.0",
    reactors: [
        .reactor(GitHubSearchReactor.self) { GitHubSearchReactor() },
    ])
