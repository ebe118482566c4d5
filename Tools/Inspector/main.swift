// The shipped `reactorlog` inspector. It knows the example reactors, so the demo log gets time travel at
// every step, and it has the `demo` command; any other log gets the generic inspector (states where the log
// recorded them).
import ReactorLogExamples
import ReactorLogInspector

await ReactorLogInspector.main(
    name: "reactorlog",
    reactors: [
        .reactor(GitHubSearchReactor.self) { GitHubSearchReactor() },
        .reactor(TodoReactor.self) { TodoReactor() },
        .reactor(CounterReactor.self) { CounterReactor() },
    ],
    commands: [Demo.self])
