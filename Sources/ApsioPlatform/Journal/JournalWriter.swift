internal import ApsioPOSIX
internal import CSystemd

#if canImport(Glibc)
internal import Glibc
#endif

/// Writes the daemon's own log entries to the journal with structured fields (sd_journal_sendv(3)),
/// so `journalctl MESSAGE_ID=…` finds every event of one kind.
package struct JournalWriter: Sendable {
    package init() {}

    /// Whether stderr is connected to the journal (`JOURNAL_STREAM` names stderr's device and inode),
    /// which is how a service started by systemd tells that structured entries will be seen.
    package static var stderrIsJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard let status = FileSystem.status(ofInherited: 2) else { return false }
        return status.device == device && status.inode == inode
    }

    /// `fields` are `NAME=value` pairs; names must be journal field names (uppercase, digits, `_`,
    /// not starting with `_`). Returns false when the journal refused the entry.
    @discardableResult
    package func send(_ fields: [(name: String, value: String)]) -> Bool {
        // One contiguous buffer for every assignment, so the iovecs point into memory that lives
        // for the whole call.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: field.value.utf8)
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { storage -> Bool in
            var vectors = ranges.map { range in
                iovec(iov_base: storage.baseAddress.map { $0 + range.lowerBound }, iov_len: range.count)
            }
            return vectors.withUnsafeMutableBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) } == 0
        }
    }
}
