import Foundation
import LMDB

extension EventLog {
    /// Opens, read-only, a log that LMDB refuses because bad bits damaged records where LMDB finds them, as their own
    /// bytes, their pages and their trees show (`LMDB.MendedRecord`): a flag LMDB never gives the record (a value
    /// flagged as stored on overflow pages that lies in its page, whose first bytes LMDB would take for a page number; a
    /// record flagged as holding duplicates; a named database's record in the main database without its flag, where its
    /// 48 bytes describe that database's tree; its name one bit from that of a database of the log no record has), a
    /// branch node's child page number one bit from the page that heads its subtree, a value's or a key's size that runs
    /// past the page, a node's offset in its page or where the page's nodes start, where one bit from what is stated the
    /// page's nodes lie end to end as LMDB lays them; and a branch page damaged beyond that, rebuilt from the pages under
    /// it, which are whole, where the tree so rebuilt holds exactly what its database counts
    /// (`LMDB.MendedRecord.Damage.branchRebuilt(reason:children:)`), or the one page of a small database whose header
    /// alone is damaged, rebuilt from its records (`LMDB.MendedRecord.Damage.leafRebuilt(reason:records:)`). Such a record often lies on a page both meta pages' commits share, so the commit before cannot be read
    /// either. The log is read whole, from a copy of its data file made in `directory` (an empty directory of the
    /// caller's, private to it, which may be removed once the log is open) with those bytes mended; the log itself is
    /// only read. What was read is what was written: each entry's checksum, and the metadata's, still vouch for their
    /// bytes. With `leavingOutPages`, a leaf page of a database's tree damaged beyond that (its header zeroed by a bad
    /// sector, say), which no other page reaches, is left out in the copy (`LMDB.MendedRecord.Damage.pageLeftOut(reason:)`):
    /// its records are missing, and readers name them as damage (the log's entries, index blocks and snapshots all carry a
    /// checksum), where before the whole log was refused; so is the root leaf of `snapshots` in a log whose snapshots fit one
    /// page (every state is then rebuilt from the entries). That is a last resort: a page only the last commit reaches is
    /// whole in the commit before (``openFromOtherMetaPage(at:copyingInto:)``), which loses less. `records` counts the
    /// records mended, `pagesLeftOut` the pages left out; `problem` says what was wrong, a clause without the log's path ("its data.mdb flags a record as stored on overflow pages, though
    /// its 6 bytes lie in its page (…)"), for a sentence of the caller's.
    ///
    /// `nil`, the directory left empty, where no record is damaged so, a writer has the log open (its pages change
    /// under a copy), or the copy mended is still refused (other damage: ``openFromOtherMetaPage(at:copyingInto:)`` may
    /// then read the commit before, into the same directory).
    public static func openMended(
        at path: String, copyingInto directory: String, leavingOutPages: Bool = false
    ) -> (log: EventLog, records: Int, pagesLeftOut: Int, problem: String)? {
        // Walked in place first: a log refused for anything else (the usual one) is not copied for nothing.
        let names = LogLayout.namedDatabases
        let dataFile = path + "/" + LogLayout.dataFile
        // A root leaf of snapshots may go too: the entries rebuild every state (with the reducer), the log reads on.
        let roots = [LogLayout.snapshotsDatabase: KeyCoding.streamSequence(0, 0).count]
        guard !PageTreeCheck.mendableRecords(inDataFile: dataFile, databases: names, leavingOutPages: leavingOutPages, rootLeafKeySizes: roots).isEmpty,
              let copy = copyDataFile(of: path, into: directory)
        else { return nil }
        let mended = FallbackCopy.mendRecords(dataFile: copy, databases: names, leavingOutPages: leavingOutPages, rootLeafKeySizes: roots)
        guard let first = mended.first, let log = try? openReadOnly(at: directory) else {
            // The directory is left empty, for ``openFromOtherMetaPage(at:copyingInto:)`` to copy into.
            emptyStaging(directory)
            return nil
        }
        let leftOut = mended.filter(\.leavesOut).count
        let others = mended.count - 1, plural = others == 1 ? "" : "s"
        let more = others == 0 ? "" : leftOut == 0 ? ", and \(others) more record\(plural) a bad bit damaged" : ", and \(others) more damaged record\(plural) or page\(plural)"
        return (log, mended.count - leftOut, leftOut, "its data.mdb \(first.problem)\(more)")
    }
}
