extension Array where Element: Sendable {
    /// `transform` of each element and its index, two at a time: each runs processes one after another, and on a
    /// machine of two cores the other fills the second. The results in the order they finish.
    func mapTwoAtATime<Result: Sendable>(_ transform: @escaping @Sendable (Int, Element) async throws -> Result) async throws -> [Result] {
        try await withThrowingTaskGroup(of: Result.self) { group in
            var (next, results) = (0, [Result]())
            func start() {
                let (index, element) = (next, self[next])
                next += 1
                group.addTask { try await transform(index, element) }
            }
            for _ in 0..<Swift.min(2, count) { start() }
            while let result = try await group.next() {
                results.append(result)
                if next < count { start() }
            }
            return results
        }
    }
}
