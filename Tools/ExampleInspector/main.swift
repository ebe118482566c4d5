// An inspector for your own reactors: the same command tree as `reactorlog`, handed a factory per
// reactor type, so every command rebuilds any state with your `reduce`. This one knows only the
// GitHub Search example; replace it with your reactors.
import ReactorLogExamples
import ReactorLogInspector

await ReactorLogInspector.main(reactors: [
    .reactor(GitHubSearchReactor.self) { GitHubSearchReactor() },
])
