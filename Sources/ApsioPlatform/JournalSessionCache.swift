import ApsioCore

/// `session.id` for each `_SYSTEMD_INVOCATION_ID` seen. A unit's entries carry the same few ids
/// over and over, and writing one as a UUID costs more than reading the whole entry.
struct JournalSessionCache {
    /// The 32 hex characters as they are, not parsed: a key, not a value.
    private struct Key: Hashable {
        let first, second, third, fourth: UInt64
    }

    private var sessions: [Key: String?] = [:]
    /// Invocations kept; a box does not start this many units between two entries of one of them,
    /// and forgetting them all only costs writing the ids again.
    static let capacity = 1024

    mutating func session(forInvocationID bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count == 32 else {
            return SessionID.fromInvocationID(String(decoding: bytes, as: UTF8.self))
        }
        let key = Key(
            first: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
            second: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            third: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
            fourth: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        if let known = sessions[key] { return known }
        let session = SessionID.fromInvocationID(String(decoding: bytes, as: UTF8.self))
        if sessions.count >= Self.capacity { sessions.removeAll(keepingCapacity: true) }
        sessions[key] = session
        return session
    }
}
