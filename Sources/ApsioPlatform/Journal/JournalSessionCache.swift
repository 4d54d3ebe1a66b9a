import ApsioCore

/// `session.id` for each `_SYSTEMD_INVOCATION_ID` seen. A unit's entries carry the same few ids
/// over and over, and writing one as a UUID costs more than reading the whole entry.
///
/// Direct-mapped: an id has one slot, picked from its bytes, and a newer id that lands there takes
/// it. That is one comparison per entry rather than hashing with `Hasher`, and forgetting an id
/// only costs writing it again.
///
/// It also keeps the session each process last wrote in (`processes`), for crash reports: both
/// are the reader's memory of sessions, kept across its re-openings and turns to other apps.
struct JournalSessionCache {
    var processes = JournalProcessSessions()

    /// The 32 hex characters as they are, not parsed: a key, not a value.
    private struct Key: Equatable {
        let first, second, third, fourth: UInt64
    }

    private struct Slot {
        let key: Key
        let session: String?
    }

    private var slots: [Slot?] = Array(repeating: nil, count: 1 << slotBits)
    /// 256 slots: a box does not start this many units between two entries of one of them.
    private static let slotBits = 8

    mutating func session(forInvocationID bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count == 32 else {
            return SessionID.fromInvocationID(String(decoding: bytes, as: UTF8.self))
        }
        let key = Key(
            first: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
            second: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            third: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
            fourth: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        let index = Self.slot(key)
        if let slot = slots[index], slot.key == key { return slot.session }
        let session = SessionID.fromInvocationID(String(decoding: bytes, as: UTF8.self))
        slots[index] = Slot(key: key, session: session)
        return session
    }

    private static func slot(_ key: Key) -> Int {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = key.first &* multiplier
        hash = (hash ^ key.second) &* multiplier
        hash = (hash ^ key.third) &* multiplier
        hash = (hash ^ key.fourth) &* multiplier
        return Int(truncatingIfNeeded: hash >> UInt64(64 - slotBits))
    }
}
