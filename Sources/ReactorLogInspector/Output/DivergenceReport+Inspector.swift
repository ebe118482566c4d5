import TimeTravel

extension DivergenceReport.Unchecked {
    /// Why the steps could not be checked, a sentence: the damage's own, or the missing value's.
    var problem: String {
        switch reason {
        case .damage(let damage): damage.problem
        case .valueNotRecorded(let error): error.problem
        }
    }
}
