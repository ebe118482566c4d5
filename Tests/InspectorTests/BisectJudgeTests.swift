import Foundation
import TestSupport
import Testing

/// Bisect's judge runs in a process group of its own, and never outlives a timeout or an interrupt.
@Suite("reactorlog bisect judge", .serialized, .timeLimit(.minutes(2)))
struct BisectJudgeTests {
    let scratch = ScratchDirectory()
    let demo: String

    init() async throws {
        demo = try await Tool.demoLog(in: scratch)
    }

    /// A judge that starts a long sleep in the background, writes its pid, and waits for it.
    func lingeringJudge(_ pidFile: String) -> String {
        "sleep 60 & echo $! > \(pidFile); wait"
    }

    /// Whether process `pid` is gone within two seconds. A process killed with SIGKILL closes its files before it
    /// turns into a zombie, so the moment its pipe reads EOF it may still be exiting: poll, it is another program.
    func isGone(_ pid: Int32) -> Bool {
        for _ in 0..<200 {
            if isGoneNow(pid) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Whether process `pid` is gone (or a zombie waiting to be reaped).
    func isGoneNow(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// The pid the judge wrote to `file`, once it has written all of it.
    func writtenPID(in file: String) -> Int32? {
        (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func pid(in file: String) throws -> Int32 {
        try #require(writtenPID(in: file))
    }

    @Test("a judge that takes longer than --timeout is stopped with everything it started; exit 7, one line")
    func timeout() async throws {
        let pidFile = scratch.file("timeout.pid")
        let result = try await Tool.run(["bisect", demo, "--stream", "search", "--timeout", "1", "--run", lingeringJudge(pidFile)])
        #expect(result.status == 7)
        #expect(result.error.contains("did not answer within 1.0 s at #0"))
        #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
        #expect(isGone(try pid(in: pidFile)))
    }

    @Test("Ctrl-C stops the judge's whole process group and says so")
    func interrupt() async throws {
        let pidFile = scratch.file("interrupt.pid")
        let errors = scratch.file("interrupt.err")
        let bisect = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path,
            ["bisect", demo, "--stream", "search", "--run", lingeringJudge(pidFile)], error: .file(errors))
        // The judge is another program: nothing to await but its pid file (bounded by the suite's limit).
        // Polled without `#require`, which would record the not-yet-written file as a failure even under `try?`.
        while writtenPID(in: pidFile) == nil {
            usleep(10_000)
        }
        let sleeper = try pid(in: pidFile)
        bisect.signal(SIGINT)
        let exit = try await bisect.exit()
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(exit.status == 130 && !exit.signalled, "\(message)")
        #expect(message.contains("bisect interrupted; stopped the judge"), "\(message)")
        #expect(isGone(sleeper))
    }

    @Test("--timeout takes seconds or a length with units; one that is not a positive length is refused")
    func badTimeout() async throws {
        let result = try await Tool.run(["bisect", demo, "--stream", "search", "--timeout", "0", "--run", "true"])
        #expect(result.status == 2)
        #expect(result.error.contains("--timeout is 0.0 s, but a probe needs a length above 0 and at most a year"))
        let unreadable = try await Tool.run(["bisect", demo, "--stream", "search", "--timeout", "5x", "--run", "true"])
        #expect(unreadable.status == 64)
        #expect(unreadable.error.contains("'5x' is invalid for '--timeout <timeout>': a length of time is a number of seconds, or a number and a unit"), "\(unreadable.error)")
        // A judge that outlasts a length given with units is stopped, as one given in seconds.
        let slow = try await Tool.run(["bisect", demo, "--stream", "search", "--timeout", "200ms", "--run", "sleep 5"])
        #expect(slow.status == 7 && slow.error.contains("did not answer within 0.2 s"), "\(slow.error)")
    }
}
