extension EventLog {
    /// Opens, read-only, a log whose pages are sound but for those of its call sites (the `sites` database, which LMDB
    /// would follow into the damage), leaving that database unopened: every entry, snapshot and stream reads as written,
    /// and each action's call site is damage to its reader (``callSite(at:)`` throws
    /// ``EventLogError/corruptEntry(sequence:reason:)``), never an action that recorded none. A bad sector in the one page
    /// that holds a log's sites, written once and shared by every later commit, so costs their sites, not the log. The
    /// log is read in place: no page of `sites` is read. `problem` says what is wrong with those pages, a clause without
    /// the log's path ("its data.mdb has a damaged page structure (…)"), for a sentence of the caller's.
    ///
    /// `nil` where the log opens as it is, its other pages are damaged too, or it cannot be opened for another reason:
    /// the error of ``openReadOnly(at:)-(String)`` is then the one to report.
    public static func openWithoutCallSites(at path: String) -> (log: EventLog, problem: String)? {
        // The open checks the other trees itself, as it passes over `sites`.
        let sites: Set = [LogLayout.sitesDatabase]
        guard let problem = LogStorage.pageTreeProblem(path: path, forWriting: false),
              let log = try? EventLog(path: path, readOnly: true, configuration: EventLogConfiguration(), passingOver: sites)
        else { return nil }
        return (log, "its " + problem)
    }
}
